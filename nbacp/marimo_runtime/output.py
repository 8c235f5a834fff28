"""Showing an object in the running marimo cell, with a handle that replaces it later."""

from __future__ import annotations

from typing import Any


class Handle:
    """``update(obj)`` replaces what :func:`show` appended (IPython's display handle, in marimo)."""

    def __init__(self, cell_id: str, index: int) -> None:
        self.cell_id = cell_id
        self.index = index

    def update(self, obj: Any, **kwargs: Any) -> None:
        import marimo as mo
        from marimo._runtime.context import get_context

        context = get_context().execution_context
        if context is None or context.cell_id != self.cell_id:
            return  # the cell is over (or another one runs): marimo shows its final output
        mo.output.replace_at_index(obj, self.index)


def show(obj: Any) -> Handle | None:
    """Append ``obj`` to the running cell's output (marimo formats it: an anywidget becomes a
    live view); None outside a running cell."""
    import marimo as mo
    from marimo._runtime.context import get_context

    context = get_context().execution_context
    if context is None:
        return None
    mo.output.append(obj)
    return Handle(context.cell_id, len(context.output) - 1)
