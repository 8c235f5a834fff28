"""Letting widget comm messages through while a cell waits, on ipykernel < 7.4.

Those releases queue comm messages behind the running cell, which deadlocks a cell that
awaits a person. For the duration of one nbacp wait, comm messages are handed to the kernel's
own dispatcher, as 7.4 does, using the private internals each release has (see
:func:`_shell_receiver`); where they are missing, :func:`can_await_widgets` is False and nbacp
refuses to wait instead of hanging.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, NamedTuple

from nbacp.kernel import status, versions

#: True in the task that dispatches a forwarded comm message (see :func:`_reparent_status`).
_FORWARDING: contextvars.ContextVar[bool] = contextvars.ContextVar("nbacp_forwarding", default=False)


def can_await_widgets() -> bool:
    """Whether a cell may ``await`` something a widget resolves.

    Outside a kernel nothing blocks widget callbacks, so this is True. Inside one it needs
    ipykernel >= 7.4, or the internals nbacp uses to let comm messages through on older
    releases (feature-detected, not guessed from the version).
    """
    if not versions.running_in_kernel():
        return True
    kernel = versions.current_kernel()
    if kernel is None:
        return False
    return versions.dispatches_comms_concurrently(kernel) or _shell_receiver(kernel) is not None


def cell_wait_refusal() -> str | None:
    """Why a cell must not wait for a person here (None when it may), said before it hangs."""
    if versions.running_in_kernel() and not can_await_widgets():
        return versions.older_kernel_message()
    return None


class _Receiver(NamedTuple):
    """Where shell messages enter the main thread's loop, and how to dispatch one of them."""

    stream: Any  # a ZMQStream; its receive callback is swapped for the duration of a wait
    dispatch: Callable[[Any], Awaitable[Any]]


def _shell_receiver(kernel: Any) -> _Receiver | None:
    """The entry point of shell messages on releases that hold comms behind a running cell.

    * 7.0-7.3 with a shell channel thread (their default): that thread forwards every message
      over an inproc socket pair, whose ZMQStream in the main thread calls ``shell_main``,
      which waits for ``_main_asyncio_lock``, held by the running cell.
    * 6.x, and 7.x started without that thread: ``kernel.shell_stream`` calls
      ``schedule_dispatch`` (a queue drained one message at a time by ``dispatch_queue``) or
      ``shell_main``.

    Either way ``dispatch_shell(raw_message)`` handles one message completely (busy status,
    handler, idle status), which is what 7.4 calls for comms while a cell runs. None on 7.4+
    (nothing to do) and when any piece is missing.
    """
    if versions.dispatches_comms_concurrently(kernel):
        return None
    dispatch = getattr(kernel, "dispatch_shell", None)
    if dispatch is None or getattr(kernel, "session", None) is None:
        return None
    if not (callable(getattr(kernel, "set_parent", None)) and callable(getattr(kernel, "get_parent", None))):
        return None
    thread = getattr(kernel, "shell_channel_thread", None)
    if thread:
        pair = getattr(getattr(thread, "manager", None), "_shell_channel_to_main", None)
        stream = getattr(pair, "to_stream", None)

        def dispatch_one(msg: Any) -> Awaitable[Any]:
            return dispatch(msg, subshell_id=None)  # type: ignore[no-any-return]
    else:
        stream = getattr(kernel, "shell_stream", None)
        dispatch_one = dispatch
    if stream is None or not callable(getattr(stream, "_recv_callback", None)):
        return None
    if not callable(getattr(stream, "on_recv", None)):
        return None
    return _Receiver(stream, dispatch_one)


def _shell_parent(kernel: Any) -> tuple[Any, Any]:
    """The current shell parent (ident, header), to put back after a comm was dispatched."""
    parent = kernel.get_parent("shell")
    ident_var = getattr(kernel, "_shell_parent_ident", None)
    if isinstance(ident_var, contextvars.ContextVar):  # 7.x
        getter = getattr(kernel, "_get_shell_context_var", None)
        ident = getter(ident_var) if callable(getter) else ident_var.get(None)
    else:  # 6.x keeps a dict per channel
        ident = (getattr(kernel, "_parent_ident", None) or {}).get("shell")
    return ident, parent


class _CommForwarder:
    """Hands comm messages to ``dispatch_shell`` at once while at least one nbacp wait runs.

    Other shell messages (the next cells, completions...) take the kernel's own path and wait
    for the running cell, as always. Comms are dispatched one at a time, in arrival order.
    """

    def __init__(self, kernel: Any, receiver: _Receiver) -> None:
        _reparent_status(kernel)
        self.kernel = kernel
        self.receiver = receiver
        self.depth = 0
        self.original: Callable[..., Any] | None = None
        self._order: asyncio.Lock | None = None
        self._tasks: set[asyncio.Future[None]] = set()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > 1:
            return
        stream = self.receiver.stream
        self.original = stream._recv_callback
        self._order = asyncio.Lock()
        stream.on_recv(self.on_recv, copy=False)
        self._take_queued()

    def exit(self) -> None:
        self.depth -= 1
        if self.depth > 0:
            return
        stream = self.receiver.stream
        if stream._recv_callback == self.on_recv and self.original is not None:
            stream.on_recv(self.original, copy=False)

    def on_recv(self, msg: Any, *args: Any) -> Any:
        if self._is_comm(msg):
            self._forward(msg)
            return None
        assert self.original is not None
        return self.original(msg, *args)

    def _take_queued(self) -> None:
        """Comms already queued behind the cell (6.x, 7.0 without the shell thread) go first."""
        queue = getattr(getattr(self.kernel, "msg_queue", None), "_queue", None)
        if not isinstance(queue, collections.deque):
            return
        for item in list(queue):
            try:
                _index, dispatch, args = item
            except (TypeError, ValueError):
                continue
            if dispatch == self.kernel.dispatch_shell and len(args) == 1 and self._is_comm(args[0]):
                queue.remove(item)
                self._forward(args[0])

    def _is_comm(self, msg: Any) -> bool:
        # Only the header frame is read (no signature check, which would mark the message as
        # seen and make the real dispatch reject it as a duplicate).
        try:
            _idents, frames = self.kernel.session.feed_identities(msg, copy=False)
            raw = frames[1]
            header = self.kernel.session.unpack(getattr(raw, "bytes", raw))
        except Exception:
            return False
        return isinstance(header, dict) and header.get("msg_type") in versions.COMM_MESSAGES

    def _forward(self, msg: Any) -> None:
        task = asyncio.ensure_future(self._dispatch(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _dispatch(self, msg: Any) -> None:
        assert self._order is not None
        kernel = self.kernel
        async with self._order:
            _FORWARDING.set(True)  # this task's own context: only this dispatch's statuses
            ident, parent = _shell_parent(kernel)
            saved_sigint = getattr(kernel, "saved_sigint_handler", None)
            try:
                await self.receiver.dispatch(msg)
            except Exception:  # dispatch_shell logs handler errors itself; never break the wait
                log = getattr(kernel, "log", None)
                if log is not None:
                    log.error("nbacp: dispatching a comm message failed", exc_info=True)
            finally:
                # dispatch_shell's pre/post handler hooks overwrite the cell's saved SIGINT handler
                with contextlib.suppress(Exception):
                    kernel.saved_sigint_handler = saved_sigint
                if parent is not None:
                    kernel.set_parent(ident, parent, channel="shell")


@contextlib.contextmanager
def comms_flow() -> Iterator[None]:
    """Let widget comm messages through for the duration of the block (no-op on 7.4+)."""
    kernel = versions.current_kernel() if versions.running_in_kernel() else None
    if kernel is None or versions.dispatches_comms_concurrently(kernel):
        yield
        return
    forwarder = getattr(kernel, "_nbacp_forwarder", None)
    if not isinstance(forwarder, _CommForwarder):
        receiver = _shell_receiver(kernel)
        if receiver is None:
            yield
            return
        forwarder = _CommForwarder(kernel, receiver)
        kernel._nbacp_forwarder = forwarder
    forwarder.enter()
    try:
        yield
    finally:
        forwarder.exit()


def _reparent_status(kernel: Any) -> None:
    """Parent the busy/idle of forwarded comm messages as an untracked type; idempotent.

    ``dispatch_shell`` publishes busy/idle parented to the comm message it handles, which the
    widget front end needs (it sends a model's next edit after that idle), but JupyterLab's
    status bar would show the "idle" as the kernel's, under a cell that is still running. As
    :func:`nbacp.kernel.status.ensure_comm_status` does on 7.4, the parent keeps its msg_id and
    reads ``comm_info_request``. Only inside a forwarded dispatch; the kernel's own dispatch of
    comm messages (no cell waiting) is untouched.
    """
    publish = getattr(kernel, "_publish_status", None)
    if getattr(kernel, "_nbacp_forwarded_status", False) or not callable(publish):
        return

    def publish_status(state: str, channel: str, parent: Any = None) -> Any:
        if _FORWARDING.get():
            parent = status.untracked_parent(parent if parent is not None else kernel.get_parent(channel))
        return publish(state, channel, parent)

    kernel._publish_status = publish_status
    kernel._nbacp_forwarded_status = True
