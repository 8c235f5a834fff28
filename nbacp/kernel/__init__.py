"""Everything nbacp knows about ipykernel lives in this package, so version quirks have one home.

Modules: :mod:`.versions` (which kernel, what it can do), :mod:`.forwarding` (comm messages
let through while a cell waits, ipykernel < 7.4), :mod:`.status` (busy/idle that keeps the
status bar "Busy" under an awaiting cell), :mod:`.interrupt` (the stop button during a wait),
:mod:`.replies` (7.0-7.3's stranded shell requests), :mod:`.identity` (this kernel's id, as its
Jupyter server knows it), :mod:`.server_sessions` (that server's open notebooks), and the way to
the open notebook (docs/notebook-edits.md): :mod:`.notebook_edits` (the contract),
:mod:`.notebook_link` (the right notebook's page, over the comm to nbacp's front-end piece
:mod:`.page_comm`, its messages in :mod:`.notebook_wire`) and :mod:`.next_input` (the
``set_next_input`` fallback), and :mod:`.turn_pages` (the running turns, for a page reloaded
without saving; docs/reload.md). Edits the front end holds back no
longer matter for an answer: a card's action carries its draft (docs/slow-links.md).

Facts this package encodes (docs/kernels.md): on ipykernel >= 7.4 widget comm
messages are dispatched while an async cell holds the shell, so a cell can ``await`` a widget;
older kernels (6.x, 7.0-7.3) queue them behind the running cell, which :mod:`.forwarding`
works around for the duration of one nbacp wait. The stop button arrives as SIGINT on every
path, which :mod:`.interrupt` takes over during a wait so the agent is told and the cell ends
with KeyboardInterrupt. Import the names below from ``nbacp.kernel``; the submodules are the
implementation.
"""

from __future__ import annotations

from nbacp.kernel.forwarding import can_await_widgets, cell_wait_refusal
from nbacp.kernel.identity import kernel_id
from nbacp.kernel.interrupt import (
    INTERRUPT_CALLBACK_TIMEOUT,
    INTERRUPTED_MESSAGE,
    in_cell_task,
    refuse_to_wait_in_cell,
    run_sync,
    wait_in_cell,
    wait_interruptible,
)
from nbacp.kernel.replies import ensure_stream_replies
from nbacp.kernel.status import ensure_comm_status
from nbacp.kernel.versions import MIN_AWAIT_VERSION, ipykernel_version, older_kernel_message, running_in_kernel

__all__ = [
    "INTERRUPTED_MESSAGE",
    "INTERRUPT_CALLBACK_TIMEOUT",
    "MIN_AWAIT_VERSION",
    "can_await_widgets",
    "cell_wait_refusal",
    "ensure_comm_status",
    "ensure_stream_replies",
    "in_cell_task",
    "refuse_to_wait_in_cell",
    "ipykernel_version",
    "kernel_id",
    "older_kernel_message",
    "run_sync",
    "running_in_kernel",
    "wait_in_cell",
    "wait_interruptible",
]
