"""nbacp.kernel outside a kernel: version logic, refusals, and SIGINT handling in this process."""

from __future__ import annotations

import asyncio
import inspect
import os
import signal
import sys
import threading

import pytest

from nbacp import kernel


def test_not_in_a_kernel_here() -> None:
    assert kernel.running_in_kernel() is False
    assert kernel.can_await_widgets() is True  # nothing holds widget callbacks outside a kernel
    assert kernel.ensure_stream_replies() is False  # nothing to fix outside a kernel


def test_version_is_numeric_and_recent() -> None:
    version = kernel.ipykernel_version()
    assert version is not None and version >= kernel.MIN_AWAIT_VERSION


def test_older_kernel_message_points_to_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel.versions, "ipykernel_version", lambda: (7, 3, 0))
    text = kernel.older_kernel_message()
    assert "7.3.0" in text and "session.start(" in text and "ipykernel>=7.4" in text


class _Stream:
    """Stands in for the ZMQStream that hands shell messages to the main thread."""

    def __init__(self) -> None:
        self._recv_callback = lambda msg: None

    def on_recv(self, callback: object, copy: bool = False) -> None:
        self._recv_callback = callback  # type: ignore[assignment]


class _OldKernel:
    """The ipykernel 6.x internals nbacp's comm forwarding uses, nothing else."""

    session = object()

    def __init__(self) -> None:
        self.shell_stream = _Stream()

    async def dispatch_shell(self, msg: object) -> None: ...
    def set_parent(self, ident: object, parent: object, channel: str = "shell") -> None: ...
    def get_parent(self, channel: str = "shell") -> dict[str, object]:
        return {}


class _NewKernel:
    async def dispatch_shell(
        self, msg: object, /, subshell_id: str | None = None, *, concurrent: bool = False
    ) -> None: ...


def test_awaiting_is_feature_detected_not_guessed_from_the_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel.versions, "running_in_kernel", lambda: True)
    monkeypatch.setattr(kernel.versions, "ipykernel_version", lambda: (6, 17, 1))
    old = _OldKernel()
    monkeypatch.setattr(kernel.versions, "current_kernel", lambda: old)
    assert kernel.can_await_widgets() is True and kernel.cell_wait_refusal() is None  # forwarding is possible
    del old.shell_stream._recv_callback  # an ipykernel whose internals differ: refuse, never hang
    assert kernel.can_await_widgets() is False
    assert kernel.cell_wait_refusal() == kernel.older_kernel_message()
    monkeypatch.setattr(kernel.versions, "current_kernel", lambda: _NewKernel())  # 7.4+: comms flow natively
    assert kernel.can_await_widgets() is True
    monkeypatch.setattr(kernel.versions, "current_kernel", lambda: None)
    assert kernel.can_await_widgets() is False


async def test_outside_a_cell_task_a_wait_is_a_plain_await() -> None:
    assert kernel.in_cell_task() is False
    assert await kernel.wait_in_cell(asyncio.sleep(0, result="plain"), lambda: None) == "plain"


def test_run_sync_refuses_and_closes_the_coroutine() -> None:
    async def never() -> None:
        raise AssertionError("must not run")

    coro = never()
    with pytest.raises(RuntimeError, match="await"):
        kernel.run_sync(coro)
    assert inspect.getcoroutinestate(coro) == inspect.CORO_CLOSED  # closed, so no "never awaited" warning


async def test_result_passes_through_and_handler_is_restored() -> None:
    before = signal.getsignal(signal.SIGINT)
    assert await kernel.wait_interruptible(asyncio.sleep(0, result="ok"), lambda: None) == "ok"
    assert signal.getsignal(signal.SIGINT) is before


async def test_errors_of_the_awaitable_propagate() -> None:
    async def boom() -> None:
        raise ValueError("agent went away")

    with pytest.raises(ValueError, match="went away"):
        await kernel.wait_interruptible(boom(), lambda: None)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT handling is Unix-only by design")
async def test_sigint_runs_callback_cancels_and_raises() -> None:
    before = signal.getsignal(signal.SIGINT)
    fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    calls: list[str] = []
    asyncio.get_running_loop().call_later(0.05, os.kill, os.getpid(), signal.SIGINT)
    with pytest.raises(KeyboardInterrupt, match="Interrupted") as info:
        await kernel.wait_interruptible(fut, lambda: calls.append("x"))
    assert calls == ["x"] and fut.cancelled()
    assert info.value.__cause__ is None
    assert signal.getsignal(signal.SIGINT) is before


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT handling is Unix-only by design")
async def test_slow_or_failing_callback_still_releases() -> None:
    async def hangs() -> None:
        await asyncio.sleep(60)

    def fails() -> None:
        raise OSError("pipe closed")

    for callback in (hangs, fails):
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(0.05, os.kill, os.getpid(), signal.SIGINT)
        with pytest.raises(KeyboardInterrupt) as info:
            await kernel.wait_interruptible(fut, callback, callback_timeout=0.2)
        assert fut.cancelled()
        assert isinstance(info.value.__cause__, (TimeoutError, OSError))


async def test_outer_cancel_cancels_the_wait() -> None:
    fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    waiter = asyncio.ensure_future(kernel.wait_interruptible(fut, lambda: None))
    await asyncio.sleep(0.01)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert fut.cancelled()


def test_off_main_thread_is_a_plain_await() -> None:
    results: list[object] = []

    def worker() -> None:
        results.append(asyncio.run(kernel.wait_interruptible(asyncio.sleep(0, result=7), lambda: None)))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(10)
    assert results == [7]
