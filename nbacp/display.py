"""Showing an object in the running cell, only where there is a cell.

Sessions, turns, the inbox, the authentication card and a loaded session's history are all
displayed through ``show``: inside IPython it is ``IPython.display.display``; in plain Python
(tests, scripts) it shows nothing, so no stray reprs are printed and no display handle exists.
IPython is imported when called, so importing this module stays cheap for the pure layers.
"""

from __future__ import annotations

from typing import Any


def show(obj: Any, **kwargs: Any) -> Any:
    """``display(obj, **kwargs)`` inside IPython (a display handle with ``display_id=True``), else None."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency of ipykernel
        return None
    if get_ipython() is None:
        return None
    from IPython.display import display

    return display(obj, **kwargs)  # type: ignore[no-untyped-call]


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
