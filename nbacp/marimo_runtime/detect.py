"""Whether the running code is a marimo cell's, decided without importing marimo."""

from __future__ import annotations

import sys


def running_in_marimo() -> bool:
    """True inside a marimo kernel (``marimo edit`` / ``marimo run``), False elsewhere.

    marimo is looked up in ``sys.modules``: a marimo kernel has imported it before any cell
    runs, and importing it here would cost every plain Jupyter kernel a large import.
    ``marimo.running_in_notebook()`` is marimo's public test (a ``KernelRuntimeContext`` is
    installed); a script (``python nb.py``, ``marimo export``'s script mode) answers False.
    """
    marimo = sys.modules.get("marimo")
    if marimo is None:
        return False
    running = getattr(marimo, "running_in_notebook", None)
    return bool(callable(running) and running())
