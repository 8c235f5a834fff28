"""The stop button during an nbacp wait: SIGINT taken over for one wait, cleanup run, and the
cell released with KeyboardInterrupt; plus the cell-task checks around it.

ipykernel delivers the stop button as SIGINT on every path: ``interrupt_mode="signal"`` makes
the kernel manager signal the process, ``interrupt_mode="message"`` sends an
``interrupt_request`` on the control channel, which the kernel turns into SIGINT to its own
process (group). During an async cell ipykernel installs a handler that cancels the whole cell
coroutine, which surfaces as a bare ``CancelledError`` and skips any cleanup that should tell
the agent. :func:`wait_interruptible` takes SIGINT over for the duration of one wait, runs the
caller's cleanup, and raises ``KeyboardInterrupt`` so the cell ends with the same
"KeyboardInterrupt" a synchronous cell shows, then restores ipykernel's handler.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn, TypeVar

from nbacp import marimo_runtime
from nbacp.kernel import forwarding, versions

T = TypeVar("T")

#: How long the interrupt callback may take before the cell is released anyway.
INTERRUPT_CALLBACK_TIMEOUT = 1.0

INTERRUPTED_MESSAGE = "Interrupted while waiting; pending questions were cancelled."


class Stopped(KeyboardInterrupt):
    """The stop button during an nbacp wait: a KeyboardInterrupt that IPython shows as one line.

    ``_render_traceback_`` is IPython's hook for an exception's own traceback text (IPython
    7.34 and 9.x both call it): the cell ends with ``KeyboardInterrupt: <what was done>`` and
    no frames, since the frames are nbacp's waiting machinery, not the person's code. The class
    reports itself as ``KeyboardInterrupt`` (the kernel's ``ename``), and ``except
    KeyboardInterrupt`` catches it. The frames on its way also set ``__tracebackhide__``, for
    tools that format it themselves (docs/kernels.md, 'The stop button').
    """

    def _render_traceback_(self) -> list[str]:
        return [f"KeyboardInterrupt: {self}"]


Stopped.__name__ = Stopped.__qualname__ = "KeyboardInterrupt"


def refuse_to_wait_in_cell() -> None:
    """Raise at once, instead of hanging, where a cell that waits could never be answered.

    Cards and turns both call this before a cell awaits them (``cell_wait_refusal`` says why
    this kernel cannot serve widget messages while a cell waits).
    """
    if marimo_runtime.running_in_marimo():
        marimo_runtime.refuse_to_wait_in_cell()
        return
    refusal = forwarding.cell_wait_refusal()
    if refusal is not None and in_cell_task():
        raise RuntimeError(refusal)


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


async def wait_in_cell(
    awaitable: Awaitable[T],
    on_interrupt: Callable[[], object],
    *,
    callback_timeout: float = INTERRUPT_CALLBACK_TIMEOUT,
) -> T:
    """Await something a person resolves through widgets, from a notebook cell.

    In the cell's own task: widget comm messages flow while it waits (ipykernel < 7.4 would
    hold them behind the cell) and the stop button runs ``on_interrupt`` and ends the cell with
    KeyboardInterrupt (:func:`wait_interruptible`). Anywhere else (a background task, plain
    Python, tests) it is a plain ``await``. ``on_interrupt`` may return (or resolve to) a sentence
    saying what it did, which becomes the KeyboardInterrupt's message.
    """
    __tracebackhide__ = True  # hidden from IPython tracebacks (docs/kernels.md, 'The stop button')
    if marimo_runtime.running_in_marimo():  # marimo's own loop and stop button (docs/marimo.md)
        return await marimo_runtime.wait_in_cell(awaitable, on_interrupt, timeout=callback_timeout)
    if not (versions.running_in_kernel() and in_cell_task()):
        return await awaitable
    with forwarding.comms_flow():
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


async def _run_callback(on_interrupt: Callable[[], object], timeout: float) -> object:
    result = on_interrupt()
    if inspect.isawaitable(result):
        return await asyncio.wait_for(_as_coroutine(result), timeout)
    return result


async def _as_coroutine(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


async def wait_interruptible(
    awaitable: Awaitable[T],
    on_interrupt: Callable[[], object],
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

    The KeyboardInterrupt is a ``Stopped``: one line in the cell, whose message is what
    ``on_interrupt`` returned when it returned a sentence, else ``INTERRUPTED_MESSAGE``.
    """
    __tracebackhide__ = True  # hidden from IPython tracebacks (docs/kernels.md, 'The stop button')
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
    message = INTERRUPTED_MESSAGE
    try:
        waiters: set[asyncio.Future[Any]] = {task, interrupted}
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        try:
            said = await _run_callback(on_interrupt, callback_timeout)
            if isinstance(said, str) and said:
                message = said
        except Exception as exc:  # reported, but the cell must still be released
            failure = exc
            message = f"{message} (the cleanup failed: {type(exc).__name__}: {exc})"
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
    raise Stopped(message) from failure


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
