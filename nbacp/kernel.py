"""Everything nbacp knows about ipykernel lives here, so version quirks have one home.

Facts this module encodes (see the project's field notes):

* On ipykernel >= 7.4 widget comm messages are dispatched while an async cell holds the
  shell, so a cell can ``await`` a widget. Older kernels deadlock; there the only way that
  works is a background turn (``session.start(...)``).
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
import contextlib
import contextvars
import inspect
import re
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from importlib import metadata
from typing import Any, NoReturn, TypeVar

__all__ = [
    "MIN_AWAIT_VERSION",
    "can_await_widgets",
    "ensure_comm_status",
    "ipykernel_version",
    "older_kernel_message",
    "run_sync",
    "running_in_kernel",
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

    Outside a kernel nothing blocks widget callbacks, so this is True; inside one it needs
    ipykernel >= 7.4.
    """
    if not running_in_kernel():
        return True
    version = ipykernel_version()
    return version is not None and version[: len(MIN_AWAIT_VERSION)] >= MIN_AWAIT_VERSION


def older_kernel_message() -> str:
    """Plain-text explanation for a kernel that cannot deliver clicks to an awaiting cell."""
    version = ipykernel_version()
    found = ".".join(map(str, version)) if version else "unknown"
    need = ".".join(map(str, MIN_AWAIT_VERSION))
    return (
        f"This kernel runs ipykernel {found}; answering a question while a cell awaits needs "
        f"ipykernel >= {need} (older kernels hold widget clicks until the cell ends, so the cell "
        "would wait forever). Use `turn = session.start(...)` instead: the cell returns at once, "
        "you answer in the widgets, and `await turn` in a later cell gives the result. "
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
