"""Everything nbacp knows about ipykernel lives here, so version quirks have one home.

Facts this module encodes (see the project's field notes):

* On ipykernel >= 7.4 widget comm messages are dispatched while an async cell holds the
  shell, so a cell can ``await`` a widget. Older kernels (6.x, 7.0-7.3) queue them behind the
  running cell, which deadlocks a cell that awaits a person. :func:`wait_in_cell` lets comm
  messages through to the kernel's own dispatcher for the duration of one nbacp wait, as 7.4
  does, using the private internals each release has (see :func:`_shell_receiver`); where they
  are missing, :func:`can_await_widgets` is False and nbacp refuses to wait instead of hanging.
* ipykernel delivers the stop button as SIGINT on every path: ``interrupt_mode="signal"``
  makes the kernel manager signal the process, ``interrupt_mode="message"`` sends an
  ``interrupt_request`` on the control channel, which the kernel turns into SIGINT to its
  own process (group). During an async cell ipykernel installs a handler that cancels the
  whole cell coroutine, which surfaces as a bare ``CancelledError`` and skips any cleanup
  that should tell the agent. :func:`wait_interruptible` takes SIGINT over for the duration
  of one wait, runs the caller's cleanup, and raises ``KeyboardInterrupt`` so the cell ends
  with the same "KeyboardInterrupt" a synchronous cell shows, then restores ipykernel's
  handler.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import datetime
import inspect
import re
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from importlib import metadata
from typing import Any, NamedTuple, NoReturn, TypeVar

__all__ = [
    "MIN_AWAIT_VERSION",
    "can_await_widgets",
    "cell_wait_refusal",
    "edit_settle_delay",
    "edits_may_lag",
    "ensure_comm_status",
    "in_cell_task",
    "ipykernel_version",
    "older_kernel_message",
    "run_sync",
    "running_in_kernel",
    "track_front_end_edits",
    "wait_in_cell",
    "wait_interruptible",
]

T = TypeVar("T")

#: First ipykernel release that dispatches comm messages while an async cell awaits.
MIN_AWAIT_VERSION: tuple[int, ...] = (7, 4)

#: How long the interrupt callback may take before the cell is released anyway.
INTERRUPT_CALLBACK_TIMEOUT = 1.0

INTERRUPTED_MESSAGE = "Interrupted while waiting; pending questions were cancelled."


def running_in_kernel() -> bool:
    """True inside an IPython kernel (not a terminal IPython, not plain Python)."""
    if "IPython" not in sys.modules or "ipykernel" not in sys.modules:
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def ipykernel_version() -> tuple[int, ...] | None:
    """The installed ipykernel's numeric release, e.g. ``(7, 4, 0)``; None when absent."""
    try:
        raw = metadata.version("ipykernel")
    except metadata.PackageNotFoundError:
        return None
    match = re.match(r"\d+(?:\.\d+)*", raw)
    return tuple(int(p) for p in match.group(0).split(".")) if match else None


def can_await_widgets() -> bool:
    """Whether a cell may ``await`` something a widget resolves.

    Outside a kernel nothing blocks widget callbacks, so this is True. Inside one it needs
    ipykernel >= 7.4, or the internals nbacp uses to let comm messages through on older
    releases (feature-detected, not guessed from the version).
    """
    if not running_in_kernel():
        return True
    kernel = _kernel()
    if kernel is None:
        return False
    return _dispatches_comms_concurrently(kernel) or _shell_receiver(kernel) is not None


def _kernel() -> Any:
    from IPython import get_ipython

    return getattr(get_ipython(), "kernel", None)


def _dispatches_comms_concurrently(kernel: Any) -> bool:
    """ipykernel >= 7.4: comm messages reach their handlers while an async cell holds the shell."""
    dispatch = getattr(kernel, "dispatch_shell", None)
    if dispatch is None:
        return False
    try:
        return "concurrent" in inspect.signature(dispatch).parameters
    except (TypeError, ValueError):
        return False


def older_kernel_message() -> str:
    """Plain-text explanation for a kernel that cannot deliver clicks to an awaiting cell."""
    version = ipykernel_version()
    found = ".".join(map(str, version)) if version else "unknown"
    need = ".".join(map(str, MIN_AWAIT_VERSION))
    return (
        f"This kernel runs ipykernel {found}, and nbacp cannot let widget clicks through to a cell "
        "that waits for them here (the kernel internals it uses for that are missing), so the cell "
        "would wait forever. Use `turn = session.start(...)` instead: the cell returns at once, "
        "you answer in the widgets, and read `turn.done` / the turn's record when it ends. "
        f"Or upgrade: pip install 'ipykernel>={need}' and restart the kernel."
    )


_IN_CONCURRENT_DISPATCH: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "nbacp_in_concurrent_dispatch", default=False
)
_COMM_MESSAGES = ("comm_open", "comm_msg", "comm_close")


#: A parent message type that jupyter_server lists in ``untracked_message_types`` by default
#: (and JupyterLab >= 4 reads from the page config): statuses parented to it do not change
#: the kernel status shown in the status bar.
_UNTRACKED_PARENT_TYPE = "comm_info_request"
#: Messages whose busy/idle (ipykernel's own, e.g. from the subshell that ipywidgets' manager
#: creates for its comms) would otherwise flip the status bar to "Idle" under an awaiting cell.
_UNTRACKED_STATUS_OF = frozenset({
    "create_subshell_request", "delete_subshell_request", "list_subshell_request",
    "comm_msg", "comm_open", "comm_close",
})


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
    front end's status bar keeps showing the awaiting cell's "Busy" (issue 13).
    Idempotent; a no-op outside a kernel or where ipykernel's internals differ.
    """
    if not running_in_kernel():
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
        header = source.get("header", {}) if isinstance(source, dict) else {}
        if header.get("msg_type") in _UNTRACKED_STATUS_OF:
            parent = {**source, "header": {**header, "msg_type": _UNTRACKED_PARENT_TYPE}}
        return publish(status, channel, parent)

    for name in _COMM_MESSAGES:
        if name in handlers:
            handlers[name] = with_status(handlers[name])
    kernel._publish_status = publish_status
    kernel.dispatch_shell = dispatch_shell
    kernel._nbacp_comm_status = True
    return True


# -- edits the front end may still be holding back --------------------------------------------

#: How much longer an edit may have waited in the kernel than the click that followed it
#: before nbacp assumes the front end is still holding later edits (network jitter margin).
EDIT_LAG_TOLERANCE = 0.25

LATE_EDITS_MESSAGE = (
    "The kernel was busy when you answered, so your last changes may not have reached it yet "
    "(the widgets send a field's next change only after the kernel took the previous one). "
    "Nothing was sent: check the answer above and press Accept again."
)

#: After the kernel took a widget's edit, how long the front end may still be about to send the
#: edit it held meanwhile (one round trip for the idle status and the held edit). A click that
#: comes sooner is answered only after this much time, with whatever arrived by then.
EDIT_SETTLE_SECONDS = 0.3

# comm_id -> (the front end's send time of its last state edit, kernel monotonic time handled)
_LAST_EDITS: dict[str, tuple[datetime.datetime, float]] = {}


def _message_date(header: Any) -> datetime.datetime | None:
    value = header.get("date") if isinstance(header, dict) else None
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if not isinstance(value, datetime.datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=datetime.UTC)


def track_front_end_edits() -> bool:
    """Record when each widget state edit from the front end was sent and handled; idempotent.

    The widget front end sends a model's next edit only after the kernel reported idle for the
    previous one. When the kernel is busy (another cell runs), a first edit and a later click
    wait together, while the edits made in between are still in the browser: handling the
    click would answer with a partial draft. :func:`edits_may_lag` tells that case apart.
    """
    kernel = _kernel() if running_in_kernel() else None
    handlers = getattr(kernel, "shell_handlers", None)
    if kernel is None or not isinstance(handlers, dict) or "comm_msg" not in handlers:
        return False
    if getattr(kernel, "_nbacp_edit_tracking", False):
        return True
    original = handlers["comm_msg"]

    def comm_msg(stream: Any, idents: Any, msg: Any) -> Any:
        with contextlib.suppress(Exception):
            content = msg.get("content", {})
            data = content.get("data", {})
            sent = _message_date(msg.get("header"))
            if isinstance(data, dict) and data.get("method") == "update" and sent is not None:
                _LAST_EDITS[str(content.get("comm_id"))] = (sent, time.monotonic())
        return original(stream, idents, msg)

    handlers["comm_msg"] = comm_msg
    kernel._nbacp_edit_tracking = True
    return True


def edit_settle_delay(comm_ids: Iterable[str]) -> float:
    """Seconds to wait before answering a front-end click, so an edit held by the front end
    until the kernel's idle for the previous one can still arrive (0: answer now).

    Only for a click being handled now (Python-side answers: 0), and only when one of the
    widgets was edited less than :data:`EDIT_SETTLE_SECONDS` ago.
    """
    if _front_end_header() is None:
        return 0.0
    now = time.monotonic()
    last = max((_LAST_EDITS[c][1] for c in comm_ids if c in _LAST_EDITS), default=None)
    return 0.0 if last is None else max(0.0, last + EDIT_SETTLE_SECONDS - now)


def _front_end_header() -> dict[str, Any] | None:
    """The header of the comm message being handled right now, if any."""
    kernel = _kernel() if running_in_kernel() else None
    if kernel is None:
        return None
    try:
        header = kernel.get_parent("shell").get("header", {})
    except Exception:
        return None
    return header if isinstance(header, dict) and header.get("msg_type") == "comm_msg" else None


def edits_may_lag(comm_ids: Iterable[str]) -> bool:
    """Whether the front end may still hold edits of these widgets that the kernel has not seen.

    Called while handling a front-end action (a click). True when one of the widgets' last
    edits waited in the kernel noticeably longer than this action did, i.e. both were queued
    behind other work: the front end then held any later edit until after the action was sent.
    Python-side calls (headless policies, tests without a kernel) are never held back: False.
    """
    header = _front_end_header()
    if header is None:
        return False
    clicked = _message_date(header)
    if clicked is None:
        return False
    now = time.monotonic()
    for comm_id in comm_ids:
        edit = _LAST_EDITS.get(comm_id)
        if edit is None:
            continue
        sent_gap = (clicked - edit[0]).total_seconds()
        handled_gap = now - edit[1]
        if sent_gap - handled_gap > EDIT_LAG_TOLERANCE:
            return True
    return False


# -- letting comm messages through while a cell waits (ipykernel < 7.4) ---------------------


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
    if _dispatches_comms_concurrently(kernel):
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
        return isinstance(header, dict) and header.get("msg_type") in _COMM_MESSAGES

    def _forward(self, msg: Any) -> None:
        task = asyncio.ensure_future(self._dispatch(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _dispatch(self, msg: Any) -> None:
        assert self._order is not None
        kernel = self.kernel
        async with self._order:
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
def _comms_flow() -> Iterator[None]:
    """Let widget comm messages through for the duration of the block (no-op on 7.4+)."""
    kernel = _kernel() if running_in_kernel() else None
    if kernel is None or _dispatches_comms_concurrently(kernel):
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


def in_cell_task() -> bool:
    """True when the running task is a cell's (IPython's ``run_cell_async``), not a background task.

    ipykernel runs every async cell as its own task around ``run_cell_async``; only that task
    may be released with KeyboardInterrupt (from any other task it would escape the event loop).
    """
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return False
    coro = task.get_coro() if task is not None else None
    return getattr(getattr(coro, "cr_code", None), "co_name", None) == "run_cell_async"


def cell_wait_refusal() -> str | None:
    """Why a cell must not wait for a person here (None when it may), said before it hangs."""
    if running_in_kernel() and not can_await_widgets():
        return older_kernel_message()
    return None


async def wait_in_cell(
    awaitable: Awaitable[T],
    on_interrupt: Callable[[], None | Awaitable[None]],
    *,
    callback_timeout: float = INTERRUPT_CALLBACK_TIMEOUT,
) -> T:
    """Await something a person resolves through widgets, from a notebook cell.

    In the cell's own task: widget comm messages flow while it waits (ipykernel < 7.4 would
    hold them behind the cell) and the stop button runs ``on_interrupt`` and ends the cell with
    KeyboardInterrupt (:func:`wait_interruptible`). Anywhere else (a background task, plain
    Python, tests) it is a plain ``await``.
    """
    if not (running_in_kernel() and in_cell_task()):
        return await awaitable
    with _comms_flow():
        return await wait_interruptible(awaitable, on_interrupt, callback_timeout=callback_timeout)


def _sigint_available(loop: asyncio.AbstractEventLoop) -> bool:
    return (
        sys.platform != "win32"
        and threading.current_thread() is threading.main_thread()
        and hasattr(loop, "add_signal_handler")
    )


def _peek_wakeup_fd() -> int:
    """The current signal wakeup fd (asyncio resets it to -1 when it drops its handler).

    A stale fd left behind by a closed loop is dropped rather than restored.
    """
    fd = signal.set_wakeup_fd(-1)
    if fd == -1:
        return -1
    try:
        signal.set_wakeup_fd(fd)
    except (OSError, ValueError):
        return -1
    return fd


async def _run_callback(on_interrupt: Callable[[], None | Awaitable[None]], timeout: float) -> None:
    result = on_interrupt()
    if inspect.isawaitable(result):
        await asyncio.wait_for(_as_coroutine(result), timeout)


async def _as_coroutine(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


async def wait_interruptible(
    awaitable: Awaitable[T],
    on_interrupt: Callable[[], None | Awaitable[None]],
    *,
    callback_timeout: float = INTERRUPT_CALLBACK_TIMEOUT,
) -> T:
    """Await ``awaitable``; on SIGINT (the kernel's stop button) clean up and raise KeyboardInterrupt.

    On interrupt: ``on_interrupt`` runs first (awaited for at most ``callback_timeout``
    seconds; its own errors are chained onto the KeyboardInterrupt), then the awaitable is
    cancelled if still running, then ``KeyboardInterrupt`` is raised. KeyboardInterrupt
    rather than CancelledError because it is what the stop button shows for any cell, and a
    CancelledError escaping a cell reads like an nbacp bug. Off the main thread, without a
    signal-capable loop, or on Windows, this is a plain ``await``.

    Await it directly in the cell's coroutine chain (not inside a separate Task: a
    KeyboardInterrupt escaping a Task escapes the event loop). SIGINT is held from the call
    until return; one that arrives earlier is ipykernel's to handle.
    """
    loop = asyncio.get_running_loop()
    task: asyncio.Future[T] = asyncio.ensure_future(awaitable)
    if not _sigint_available(loop):
        return await task
    interrupted: asyncio.Future[None] = loop.create_future()

    def on_sigint() -> None:
        if not interrupted.done():
            interrupted.set_result(None)

    previous = signal.getsignal(signal.SIGINT)
    wakeup_fd = _peek_wakeup_fd()
    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):
        return await task
    failure: BaseException | None = None
    try:
        waiters: set[asyncio.Future[Any]] = {task, interrupted}
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        try:
            await _run_callback(on_interrupt, callback_timeout)
        except Exception as exc:  # reported, but the cell must still be released
            failure = exc
    finally:
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
        if wakeup_fd != -1:
            with contextlib.suppress(OSError, ValueError):
                signal.set_wakeup_fd(wakeup_fd)
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(_settle(task)), callback_timeout)
    raise KeyboardInterrupt(INTERRUPTED_MESSAGE) from failure


async def _settle(task: asyncio.Future[Any]) -> None:
    with contextlib.suppress(BaseException):
        await task


def run_sync(awaitable: Awaitable[Any]) -> NoReturn:
    """Refuse to block a cell synchronously: that would hold the shell and deadlock the widgets."""
    if inspect.iscoroutine(awaitable):
        awaitable.close()  # avoid a "never awaited" warning on top of the real message
    raise RuntimeError(
        "nbacp cannot block a synchronous cell until you answer: the kernel would not receive "
        "your clicks. Use `await ...` at the top level of the cell (IPython supports it), or "
        "`turn = session.start(...)` and `await turn` later."
    )
