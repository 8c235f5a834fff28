"""Widget models shared by every card, and closing a card's controls once it is answered.

Every ipywidgets ``DOMWidget`` gets its own ``Layout`` model (and a Label, Button or HTML its
own style model) unless one is passed in. A card whose parts keep the default look can
share one of each: that is what makes a pending card a handful of models instead of dozens
(docs/notebooks.md, 'What a card costs'). Shared models must never be mutated: a widget that
needs its own look (a width, ``display: none``) gets its own ``Layout``.

ipywidgets keeps every widget in a module-level registry until ``close()``, so a card that
is answered and merely disabled lives (with its form, callbacks and controls) as long as
the kernel. ``close_tree`` closes the controls of an answered card, their own layout and
style models included, but never a shared one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

import ipywidgets as widgets

try:  # ipywidgets >= 8
    from ipywidgets.widgets.widget_string import LabelStyle
except ImportError:  # ipywidgets 7 (Colab's 7.7.1): one DescriptionStyle for every text widget
    from ipywidgets.widgets.widget_description import DescriptionStyle as LabelStyle

W = TypeVar("W", bound=widgets.Widget)

_SHARED: dict[str, widgets.Widget] = {}


def shared_model(key: str, factory: Callable[[], W]) -> W:
    """The one live ``key`` model of this kernel; made again if it was closed (``Widget.close_all``)."""
    found = _SHARED.get(key)
    if found is None or found.comm is None:
        found = _SHARED[key] = factory()
    return cast(W, found)


def layout() -> widgets.Layout:
    """The default layout, shared: for any widget that needs no layout of its own."""
    return shared_model("layout", widgets.Layout)


def label_style() -> LabelStyle:
    """The default Label style, shared."""
    return shared_model("label", LabelStyle)


def is_shared(widget: Any) -> bool:
    """Whether ``widget`` is one of the shared models (``close_tree`` never closes those)."""
    return any(widget is shared for shared in _SHARED.values())


def close_tree(roots: Iterable[widgets.Widget], keep: Iterable[widgets.Widget] = ()) -> int:
    """Close ``roots``, everything inside them and their own layout/style models; returns how many.

    Shared models and the widgets in ``keep`` stay open.
    """
    kept = {id(w) for w in keep}
    stack = list(roots)
    closed = 0
    while stack:
        widget = stack.pop()
        if id(widget) in kept or is_shared(widget):
            continue
        kept.add(id(widget))  # visited
        stack.extend(getattr(widget, "children", ()) or ())
        for name in ("layout", "style"):
            part = widget._trait_values.get(name) if hasattr(widget, "_trait_values") else None
            if isinstance(part, widgets.Widget):
                stack.append(part)
        if widget.comm is not None:
            widget.close()
            closed += 1
    return closed
