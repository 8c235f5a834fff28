"""A card's page model: the state keys every card shares, and a model opened only when needed.

The state is the front-end contract of docs/cards.md: the kernel writes ``spec`` once; the
page writes ``draft`` on every edit; the kernel writes ``errors``, ``handled``, ``phase`` and
``summary``. A card may be made without its page model (``opened=False``) and opened when
something needs it, so a card answered at once reaches the page once, already answered. The
traits anywidget would add to each instance are declared once on the class, so a card costs
no class of its own (docs/notebooks.md, 'What a card costs').

What a card does with that state (actions, the answer, awaiting it, settling) is
``nbacp.widgets.card.Card``.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Mapping
from typing import Any

import anywidget
import traitlets

from nbacp import kernel, marimo_runtime
from nbacp.widgets import card_code, shared
from nbacp.widgets.quick_state import QuickState, synced_names

OPEN, SENT, ANSWERED = "open", "sent", "answered"
"""``phase``: answerable; answered but still reporting (a URL card waits for completion); done."""


class CardModel(QuickState, anywidget.AnyWidget):
    """One card's anywidget model: its synced state, opened at once or later (``opened=False``).

    ``_esm`` is the stub that renders through the shared ``CardCode`` (or the whole bundle
    where the front end cannot share it, with the stylesheet as ``_css``).
    """

    # Declared as traits once, on the class: anywidget adds ``_esm``, ``_css`` and
    # ``_anywidget_id`` to each instance with ``add_traits``, which makes a new class per card
    # (about 8 KB kept for as long as the answered card lives); here adding them only sets
    # their values (``add_traits`` below; docs/notebooks.md, 'What a card costs').
    _esm = traitlets.Unicode(card_code.card_module()).tag(sync=True)
    _css = traitlets.Unicode("" if card_code.HOST_LOOKUP else card_code.css_source()).tag(sync=True)
    _anywidget_id = traitlets.Unicode("nbacp.widgets.card.Card").tag(sync=True)

    code = traitlets.Unicode("").tag(sync=True)
    spec = traitlets.Dict().tag(sync=True)
    draft = traitlets.Dict().tag(sync=True)
    errors = traitlets.Dict().tag(sync=True)
    handled = traitlets.Int(0).tag(sync=True)
    phase = traitlets.Unicode(OPEN).tag(sync=True)
    summary = traitlets.Unicode("").tag(sync=True)

    _unopened = False  # made with opened=False and its page model not opened yet

    def __init__(
        self, spec: Mapping[str, Any], draft: Mapping[str, Any] | None = None, *, opened: bool = True, **kwargs: Any
    ) -> None:
        """``opened=False``: the card is made without its page model, which ``open_model()`` (or
        anything that needs the model's id: a page it is placed in, ``display``) opens later,
        with the state the card has by then. The client offers a card to the answer policy
        before it opens it, so a card answered at once reaches the page once, already answered:
        its summary in the model's first message, not the whole spec and then an update."""
        self._unopened = not opened  # read by open(), which ipywidgets' __init__ calls
        kernel.ensure_comm_status()  # a cell awaiting a card sees busy/idle for its messages (docs/kernels.md)
        kernel.ensure_stream_replies()  # or ipykernel 7.0-7.3 can leave a request unread
        card_code.own_code_in_marimo(kwargs)
        # The starting state is stored before ipywidgets' __init__, once, together with the
        # values traitlets would otherwise work out as defaults when the page model opens. Given
        # to __init__ as keyword arguments, traitlets sets each one twice (again after
        # cross-validation), and any trait set before __init__ notifies observers that cannot
        # exist yet (no page model, no caller holding the card), at a cost per trait and card.
        cls = type(self)
        values = self._trait_values
        values.update(
            spec=dict(spec),
            draft=dict(draft or {}),
            errors={},
            keys=list(synced_names(cls)),  # a copy: ipywidgets may extend an instance's keys
            layout=shared.layout(),  # a card has no look of its own to set: one Layout model for all
            # What anywidget sets on every instance (module.Class): already there, its add_traits sets nothing.
            _anywidget_id=f"{cls.__module__}.{cls.__name__}",
        )
        if (
            "code" not in kwargs and self._esm == card_code.CARD_STUB
        ):  # the stub renders through the kernel's one code model
            values["code"] = f"anywidget:{card_code.card_code().model_id}"
        rest: dict[str, Any] = {}
        for name, value in kwargs.items():  # a caller's: validated as a trait set would
            if self.has_trait(name):
                values[name] = cls.class_traits()[name].validate(self, value)
            else:
                rest[name] = value
        if _anywidget_init_needed(cls):
            super().__init__(**rest)
        else:  # what AnyWidget.__init__ would add is declared on this class (see above)
            super(anywidget.AnyWidget, self).__init__(**rest)

    # -- the page model ----------------------------------------------------------------
    def open(self) -> None:
        """ipywidgets' comm open (run by its ``__init__``); held back for a card made with ``opened=False``."""
        if not self._unopened:
            super().open()
            self._forward_in_marimo()

    def open_model(self) -> None:
        """Open the page model of a card made with ``opened=False`` (else nothing to do)."""
        if self._unopened:
            self._unopened = False
            super().open()
            self._forward_in_marimo()

    def _forward_in_marimo(self) -> None:
        # marimo handles a page message only after the running cell ends: a card's messages are
        # let through while a cell awaits (nbacp.marimo_runtime.forwarding).
        if marimo_runtime.running_in_marimo():
            marimo_runtime.forward_model(self)

    @property
    def model_id(self) -> str:
        """The page model's id; asking for it opens the model of a card made with ``opened=False``."""
        self.open_model()
        return str(super().model_id)

    def close(self) -> None:
        self._unopened = False  # a closed card never opens again
        super().close()

    def hold_sync(self) -> contextlib.AbstractContextManager[None]:
        """ipywidgets' batching of state updates; nothing to batch before the page model opens
        (its comm open carries the state as it is then), so an unopened card holds nothing.
        A card opened inside such a hold sends each later change on its own."""
        if self._unopened:
            return contextlib.nullcontext()
        return super().hold_sync()  # type: ignore[no-any-return]

    def add_traits(self, **traits: Any) -> None:
        """Set traits this class already declares; add (with a new class) only unknown ones."""
        new = {name: trait for name, trait in traits.items() if not self.has_trait(name)}
        for name, trait in traits.items():
            if name not in new and getattr(self, name) != trait.default_value:
                self.set_trait(name, trait.default_value)
        if new:
            super().add_traits(**new)

    @traitlets.validate("draft")
    def _no_draft_once_answered(self, proposal: Any) -> Any:
        # A page's held update can arrive after the answer (docs/slow-links.md): it changes nothing.
        return {} if self.phase == ANSWERED else proposal["value"]


def _anywidget_init_needed(cls: type) -> bool:
    """Whether a card class needs ``AnyWidget.__init__`` (the same in anywidget 0.9.21 to 0.11).

    It adds ``_esm``, ``_css`` and ``_anywidget_id`` to each instance as new traits, which
    ``CardModel`` declares on the class (making three trait objects per card for nothing); it
    also turns on Colab's widget manager and registers the class's anywidget commands. Cards
    skip it, except in Colab or for a class with commands (nbacp's cards define none).
    """
    return "google.colab.output" in sys.modules or bool(getattr(cls, "_anywidget_commands", None))
