"""The anywidget choice card: one question's options plus an optional "Other" text box.

All state a person can change lives in ONE synced trait, ``answer = {"picked", "custom"}``,
so a click and a keystroke can never race or clobber each other. Python only holds and
mutates that state (the same way the front end does); validation belongs to the form model.
"""

from __future__ import annotations

import os
import pathlib
import re
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any

import anywidget
import traitlets

from nbacp.widgets import shared

EVENTS = ("submit", "cancel")
ESM_FILE = pathlib.Path(__file__).parent / "static" / "choice_card.js"


def _esm_source() -> str | pathlib.Path:
    """The card's JS as text, not as a Path.

    Given a Path, anywidget 0.11 connects every instance to the file's change signal and never
    disconnects it (manzt/anywidget#929), so no card could ever be freed, even after close().
    ``ANYWIDGET_HMR=1`` keeps the Path, for live reloading while developing the JS.
    """
    if os.environ.get("ANYWIDGET_HMR") == "1":
        return ESM_FILE
    try:
        return ESM_FILE.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RuntimeError(
            f"nbacp's choice card is not built ({ESM_FILE} is missing): reinstall nbacp with npm available "
            "(`pip install -e .` runs the JS build)."
        ) from None


# Every card's own module: a few hundred bytes that render through the shared code widget.
# anywidget >= 0.10 hands ``render`` a ``host`` whose ``getWidget("anywidget:<id>")`` waits for
# that model's ``initialize`` and gives what it returned (``{render}``, see js/src/choice_card.js).
CARD_STUB = """export default {
  async render({ model, el, host }) {
    const ref = model.get("code");
    if (!ref || !host) {
      el.textContent = "This question needs nbacp's choice card code: run the cell again.";
      return;
    }
    const code = await host.getWidget(ref);
    return code.exports.render({ model, el });
  },
};
"""


def _host_lookup() -> bool:
    """Whether this anywidget hands ``render`` a ``host`` with ``getWidget`` (0.11 and later).

    The front end's anywidget matches the kernel's where it is loaded per kernel (Colab loads the
    version the kernel's model names). With an older anywidget (Colab's 0.9.21) a stub could not
    reach the shared code, so each card carries the whole module again (docs/kernels.md, 'Colab').
    """
    try:
        found = re.match(r"(\d+)\.(\d+)", metadata.version("anywidget"))
    except metadata.PackageNotFoundError:
        return False
    return found is not None and (int(found.group(1)), int(found.group(2))) >= (0, 11)


HOST_LOOKUP = _host_lookup()


class ChoiceCardCode(anywidget.AnyWidget):
    """The choice card's JavaScript (about 19 KB), sent to the front end once per kernel.

    Renders nothing itself; every ``ChoiceCard`` points at it (``code``) instead of carrying
    the whole module in its own state, so a card costs its spec, not the code (docs/notebooks.md,
    'What a card costs').
    """

    _esm = _esm_source()


def card_code() -> ChoiceCardCode:
    """This kernel's one live ChoiceCardCode (made again if it was closed)."""
    return shared.shared_model("choice-card-code", lambda: ChoiceCardCode(layout=shared.layout()))


class ChoiceCard(anywidget.AnyWidget):
    """Radio rows (single) or checkbox rows (multi) with a custom-text box.

    ``spec`` is set once by Python and read by the front end; ``answer`` is the one state trait
    both sides change; ``errors`` are shown under the card; ``disabled`` freezes it. ``code``
    names the shared ChoiceCardCode model whose module renders the card.
    """

    _esm = ESM_FILE if os.environ.get("ANYWIDGET_HMR") == "1" else (CARD_STUB if HOST_LOOKUP else _esm_source())
    code = traitlets.Unicode("").tag(sync=True)
    spec = traitlets.Dict().tag(sync=True)
    answer = traitlets.Dict({"picked": [], "custom": ""}).tag(sync=True)
    errors = traitlets.List(traitlets.Unicode()).tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        if "code" not in kwargs and self._esm == CARD_STUB:
            kwargs["code"] = f"anywidget:{card_code().model_id}"
        kwargs.setdefault("layout", shared.layout())
        super().__init__(**kwargs)
        self._event_callbacks: list[Callable[[str], None]] = []
        self.on_msg(self._route_event)

    # -- reading the state ------------------------------------------------------------
    @property
    def multi(self) -> bool:
        return bool(self.spec.get("multi", False))

    @property
    def option_values(self) -> list[str]:
        return [str(option["value"]) for option in self.spec.get("options", [])]

    @property
    def picked(self) -> list[str]:
        value = self.answer.get("picked", [])
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    @property
    def custom(self) -> str:
        value = self.answer.get("custom", "")
        return value if isinstance(value, str) else ""

    @property
    def overridden(self) -> bool:
        """Single-select with non-blank Other text: the pending pick does not count (yet).

        A note box (``spec.custom.mode == "note"``) never overrides: the note is sent with the pick.
        """
        custom = self.spec.get("custom")
        note = isinstance(custom, dict) and custom.get("mode") == "note"
        return not self.multi and not note and self.custom.strip() != ""

    # -- changing it exactly as the front end does ------------------------------------
    def pick_values(self, values: Sequence[str]) -> None:
        """Replace the picks (custom text kept); picks are stored unique, in option order."""
        if isinstance(values, str):
            raise TypeError("pick_values takes a sequence of option values, not one string")
        offered = self.option_values
        for value in values:
            if value not in offered:
                raise ValueError(f"{value!r} is not an option of {self._label()} (offered: {offered})")
        wanted = set(values)
        if not self.multi and len(wanted) > 1:
            raise ValueError(f"{self._label()} is single-select; got {len(wanted)} values: {list(values)}")
        self._write([v for v in offered if v in wanted], self.custom)

    def toggle(self, value: str) -> None:
        """One click on the row of ``value``: multi toggles it, single selects it."""
        if value not in self.option_values:
            raise ValueError(f"{value!r} is not an option of {self._label()} (offered: {self.option_values})")
        if not self.multi:
            self._write([value], self.custom)
        elif value in self.picked:
            self._write([v for v in self.picked if v != value], self.custom)
        else:
            wanted = {*self.picked, value}
            self._write([v for v in self.option_values if v in wanted], self.custom)

    def type_custom(self, text: str) -> None:
        """Set the Other box's text (picks kept), as typing does."""
        self._write(self.picked, text)

    def _write(self, picked: list[str], custom: str) -> None:
        # A new dict every time: traitlets only notices (and syncs) a reassignment.
        self.answer = {"picked": list(picked), "custom": custom}

    def _label(self) -> str:
        return repr(self.spec.get("title") or self.spec.get("name") or "the choice card")

    # -- events from the front end ----------------------------------------------------
    def on_event(self, callback: Callable[[str], None]) -> None:
        """Call ``callback("submit")`` on Enter and ``callback("cancel")`` on Escape."""
        self._event_callbacks.append(callback)

    def release(self) -> None:
        """Forget the callbacks (the form that owns this card is answered); later events are dropped."""
        self._event_callbacks = []
        self.disabled = True

    def _route_event(self, _widget: Any, content: Any, _buffers: Any) -> None:
        event = content.get("event") if isinstance(content, dict) else None
        if event not in EVENTS or self.disabled:
            return  # a stale front end may still send after the card was answered
        for callback in list(self._event_callbacks):
            callback(event)
