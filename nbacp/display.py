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
