"""A callback run when marimo disposes the running cell: its re-run, its deletion.

marimo re-runs a cell by first invalidating its state: it deletes the names the cell defined
and calls ``dispose`` on every lifecycle item registered for that cell
(``marimo/_runtime/runtime.py: Kernel._invalidate_cell_state``,
``marimo/_runtime/cell_lifecycle_registry.py: CellLifecycleRegistry.dispose``); ``mo.Thread``
uses the same hook (``marimo/_runtime/threads.py``). Deleting a connection's name does not end
it (its reader task and agent process keep it alive), so a connection made in a cell closes
itself here instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def on_cell_cleanup(callback: Callable[[], None]) -> bool:
    """Run ``callback`` (no arguments, quick, on the kernel's thread) when marimo disposes the
    running cell; False (nothing registered) outside a marimo cell or where the hook moved."""
    try:
        from marimo._runtime.cell_lifecycle_item import CellLifecycleItem
        from marimo._runtime.context.types import safe_get_context
    except ImportError:
        return False
    context = safe_get_context()
    if context is None or getattr(context, "cell_id", None) is None:
        return False

    class Cleanup(CellLifecycleItem):
        def create(self, context: Any) -> None:
            del context

        def dispose(self, context: Any, deletion: bool) -> bool:
            del context, deletion
            callback()
            return True

    context.cell_lifecycle_registry.add(Cleanup())
    return True
