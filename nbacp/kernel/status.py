"""Busy/idle statuses for comm messages dispatched while a cell awaits (ipykernel >= 7.4),
parented so that the front end's status bar keeps showing the awaiting cell's "Busy".
"""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Callable
from typing import Any

from nbacp.kernel import versions

_IN_CONCURRENT_DISPATCH: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "nbacp_in_concurrent_dispatch", default=False
)


#: A parent message type that jupyter_server lists in ``untracked_message_types`` by default
#: (and JupyterLab >= 4 reads from the page config): statuses parented to it do not change
#: the kernel status shown in the status bar.
_UNTRACKED_PARENT_TYPE = "comm_info_request"
#: Messages whose busy/idle (ipykernel's own, e.g. from the subshell that ipywidgets' manager
#: creates for its comms) would otherwise flip the status bar to "Idle" under an awaiting cell.
_UNTRACKED_STATUS_OF = frozenset(
    {
        "create_subshell_request",
        "delete_subshell_request",
        "list_subshell_request",
        "comm_msg",
        "comm_open",
        "comm_close",
    }
)


def untracked_parent(parent: Any) -> Any:
    """``parent`` with its header's msg_type read as :data:`_UNTRACKED_PARENT_TYPE` when it is a
    comm or subshell message (the msg_id, which the widget front end matches, is kept), so a
    status parented to it leaves the status bar alone; any other parent unchanged."""
    header = parent.get("header") if isinstance(parent, dict) else None
    if not isinstance(header, dict) or header.get("msg_type") not in _UNTRACKED_STATUS_OF:
        return parent
    return {**parent, "header": {**header, "msg_type": _UNTRACKED_PARENT_TYPE}}


def ensure_comm_status() -> bool:
    """Make widget edits keep flowing while a cell awaits; True once installed in this kernel.

    ipykernel 7.4 dispatches comm messages that arrive while an async cell holds the shell
    (``dispatch_shell(..., concurrent=True)``), but publishes no busy/idle status for them.
    The front end's widget models allow one unconfirmed update each and hold later ones until
    the "idle" for the previous one arrives, so without it only the FIRST edit of each widget
    reaches the kernel during ``await session.prompt(...)`` (a second click, the typed Other
    text, are stuck in the browser). This publishes busy/idle, parented to the comm message,
    for exactly those concurrently dispatched messages; normal dispatch is untouched. The
    parent header's msg_type reads ``comm_info_request`` (an untracked type) so that the
    front end's status bar keeps showing the awaiting cell's "Busy" (docs/kernels.md, 'Status').
    Idempotent; a no-op outside a kernel or where ipykernel's internals differ.
    """
    if not versions.running_in_kernel():
        return False
    from IPython import get_ipython

    kernel = getattr(get_ipython(), "kernel", None)
    if kernel is None:
        return False
    if getattr(kernel, "_nbacp_comm_status", False):
        return True
    handlers = getattr(kernel, "shell_handlers", None)
    dispatch = getattr(kernel, "dispatch_shell", None)
    publish = getattr(kernel, "_publish_status", None)
    if not isinstance(handlers, dict) or dispatch is None or publish is None:
        return False
    try:
        if "concurrent" not in inspect.signature(dispatch).parameters:
            return False  # this ipykernel does not dispatch comms concurrently
    except (TypeError, ValueError):
        return False

    async def dispatch_shell(msg: Any, /, subshell_id: str | None = None, *, concurrent: bool = False) -> Any:
        token = _IN_CONCURRENT_DISPATCH.set(concurrent)
        try:
            return await dispatch(msg, subshell_id=subshell_id, concurrent=concurrent)
        finally:
            _IN_CONCURRENT_DISPATCH.reset(token)

    def with_status(original: Callable[..., Any]) -> Callable[..., Any]:
        def handler(stream: Any, idents: Any, msg: Any) -> Any:
            if not _IN_CONCURRENT_DISPATCH.get():
                return original(stream, idents, msg)
            # The widget's front end matches the status by the parent's msg_id; JupyterLab's
            # kernel status (and jupyter_server's) skips statuses whose parent msg_type is
            # "untracked", so parented this way the status bar stays "Busy" while the cell awaits.
            parent = {**msg, "header": {**msg["header"], "msg_type": _UNTRACKED_PARENT_TYPE}}
            publish("busy", "shell", parent=parent)
            try:
                result = original(stream, idents, msg)
            except BaseException:
                publish("idle", "shell", parent=parent)
                raise
            if not inspect.isawaitable(result):
                publish("idle", "shell", parent=parent)
                return result

            async def finish() -> Any:
                try:
                    return await result
                finally:
                    publish("idle", "shell", parent=parent)

            return finish()

        return handler

    def publish_status(status: str, channel: str, parent: Any = None) -> Any:
        # ipywidgets' manager (jupyterlab-manager >= 5) asks for a subshell for its comms, and
        # ipykernel publishes busy/idle for that request and for each comm message the subshell
        # handles: parented as they are, they would flip the status bar to "Idle" under an
        # awaiting cell. Parent them as untracked too (the widget's future matches the msg_id).
        source = parent if parent is not None else kernel.get_parent(channel)
        return publish(status, channel, untracked_parent(source))

    for name in versions.COMM_MESSAGES:
        if name in handlers:
            handlers[name] = with_status(handlers[name])
    kernel._publish_status = publish_status
    kernel.dispatch_shell = dispatch_shell
    kernel._nbacp_comm_status = True
    return True
