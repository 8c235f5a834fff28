"""Showing an object in the running cell, only where there is a cell.

Sessions, turns, the inbox, the authentication card and a loaded session's history are all
displayed through ``show``: inside IPython it is ``IPython.display.display``; in plain Python
(tests, scripts) it shows nothing, so no stray reprs are printed and no display handle exists.
IPython is imported when called, so importing this module stays cheap for the pure layers.
"""

from __future__ import annotations

from typing import Any

from nbacp import marimo_runtime


def show(obj: Any, **kwargs: Any) -> Any:
    """``display(obj, **kwargs)`` inside IPython (a display handle with ``display_id=True``), else None.

    In a marimo cell (docs/marimo.md): anywidgets and rich objects are appended to the
    cell's output; ipywidgets containers (the turn's transcript, the toolbar), which marimo does
    not host, and raw bundles show nothing there.
    """
    if marimo_runtime.running_in_marimo():
        if kwargs.get("raw") or _plain_ipywidget(obj):
            return None
        return marimo_runtime.show(obj)
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency of ipykernel
        return None
    if get_ipython() is None:
        return None
    from IPython.display import display

    if kwargs.get("display_id") and not kwargs.get("raw"):
        obj, kwargs = _widget_bundle(obj, kwargs)
    return display(obj, **kwargs)  # type: ignore[no-untyped-call]


def _plain_ipywidget(obj: Any) -> bool:
    """An ipywidgets widget that is not an anywidget (marimo renders only anywidgets)."""
    kind = type(obj)
    names = {f"{c.__module__}.{c.__qualname__}" for c in kind.__mro__}
    return "ipywidgets.widgets.widget.Widget" in names and "anywidget.widget.AnyWidget" not in names


def _widget_bundle(obj: Any, kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """An ipywidgets 7 widget as the view bundle it would publish, so ``display_id`` sticks.

    ipywidgets 7 (Colab's 7.7.1) shows a widget from ``_ipython_display_``, which publishes the
    view without the display id that ``display(..., display_id=True)`` hands back: an update
    through that handle then matches no output, and the live view could never give way to its
    record (docs/kernels.md, 'Colab in a browser'). ipywidgets 8 has no ``_ipython_display_``.
    """
    model_id = getattr(obj, "model_id", None)
    if not callable(getattr(obj, "_ipython_display_", None)) or not isinstance(model_id, str):
        return obj, kwargs
    bundle = {
        "text/plain": f"{type(obj).__name__}(...)",  # not repr(): it would copy agent text into the output
        "application/vnd.jupyter.widget-view+json": {"version_major": 2, "version_minor": 0, "model_id": model_id},
    }
    return bundle, {**kwargs, "raw": True}


class Static:
    """A finished output: HTML beside plain text (no widget), what a live view becomes when it is over.

    A widget view left in a saved notebook shows "Error displaying widget: model not found" once
    the kernel that held its model is gone; outputs whose interaction ended are replaced through
    their display id by one of these (docs/record.md, 'Saved notebooks'). ``html`` must already
    be safe (escaped or sanitized by its maker); with no HTML and no text the output is blank.
    """

    def __init__(self, text: str = "", html: str | None = None) -> None:
        self.text = text
        self.html = html

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        if self.html:
            return {"text/html": self.html, "text/plain": self.text}
        return {"text/plain": self.text}

    def __repr__(self) -> str:
        return self.text
