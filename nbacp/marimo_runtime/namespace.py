"""The marimo notebook's globals: the names its cells defined, for the kernel tools.

A marimo kernel keeps the notebook's names in its own module's ``__dict__``
(``marimo/_runtime/patches.py: create_main_module``), reachable as the running kernel's
``globals`` through its runtime context (``marimo/_runtime/context/types.py: safe_get_context``,
``marimo/_runtime/context/kernel_context.py: KernelRuntimeContext.globals``). The context is
thread-local and installed on the thread that runs the cells, which is the thread whose event
loop serves the kernel tools; ``sys.modules["__main__"]`` is not used because in ``marimo run``
several kernels (threads) share ``sys.modules``.
"""

from __future__ import annotations

import sys
from typing import Any


def notebook_globals() -> dict[str, Any] | None:
    """The running marimo kernel's globals, or None outside one (marimo is never imported here)."""
    if "marimo" not in sys.modules:
        return None
    try:
        from marimo._runtime.context.types import safe_get_context
    except ImportError:  # a marimo release that moved it: the caller falls back
        return None
    context = safe_get_context()
    if context is None:
        return None
    found = context.globals
    return found if isinstance(found, dict) else None
