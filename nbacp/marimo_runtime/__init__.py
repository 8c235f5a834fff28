"""Everything nbacp knows about marimo's runtime lives in this package (docs/marimo.md).

marimo runs a cell as one command of a serial control loop, draws only anywidgets, and stops a
cell by cancelling its task: each differs from ipykernel, and keeping the differences here keeps
the rest of nbacp free of marimo (which is never imported unless a marimo kernel loaded it).

Modules: :mod:`.cleanup` (a callback when marimo re-runs or deletes the running cell),
:mod:`.detect` (whether code runs in a marimo cell, without importing marimo where it
is not loaded), :mod:`.forwarding` (widget messages of nbacp's models let through while a cell
awaits: marimo's control loop handles one command at a time), :mod:`.output` (showing an
object in the running cell's output, with a handle that replaces it later), :mod:`.namespace`
(the notebook's globals, for the kernel tools) and :mod:`.wait`
(a person's answer awaited in a cell: forwarding on, marimo's stop button as cancellation).
"""

from __future__ import annotations

from nbacp.marimo_runtime.cleanup import on_cell_cleanup
from nbacp.marimo_runtime.detect import running_in_marimo
from nbacp.marimo_runtime.forwarding import forget_model, forward_model, forwarded_models
from nbacp.marimo_runtime.namespace import notebook_globals
from nbacp.marimo_runtime.output import show
from nbacp.marimo_runtime.wait import refuse_to_wait_in_cell, wait_in_cell

__all__ = [
    "forget_model",
    "forward_model",
    "forwarded_models",
    "notebook_globals",
    "on_cell_cleanup",
    "refuse_to_wait_in_cell",
    "running_in_marimo",
    "show",
    "wait_in_cell",
]
