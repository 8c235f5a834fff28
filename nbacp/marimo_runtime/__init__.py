"""Everything nbacp knows about marimo's runtime lives in this package (spike: docs/marimo.md).

Modules: :mod:`.detect` (whether code runs in a marimo cell, without importing marimo where it
is not loaded), :mod:`.forwarding` (widget messages of nbacp's models let through while a cell
awaits: marimo's control loop handles one command at a time), :mod:`.output` (showing an
object in the running cell's output, with a handle that replaces it later) and :mod:`.wait`
(a person's answer awaited in a cell: forwarding on, marimo's stop button as cancellation).
"""

from __future__ import annotations

from nbacp.marimo_runtime.detect import running_in_marimo
from nbacp.marimo_runtime.forwarding import forward_model
from nbacp.marimo_runtime.output import show
from nbacp.marimo_runtime.wait import wait_in_cell

__all__ = ["forward_model", "running_in_marimo", "show", "wait_in_cell"]
