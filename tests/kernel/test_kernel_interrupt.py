"""The stop button during an nbacp wait, in a real kernel, for both interrupt modes."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable

import pytest
from support.kernel_support import KernelHarness

from nbacp.kernel import INTERRUPTED_MESSAGE

pytestmark = pytest.mark.kernel

WAITING_CELL = textwrap.dedent("""
    import asyncio, signal
    from nbacp.kernel import wait_interruptible
    calls = []
    async def on_interrupt():
        await asyncio.sleep(0)
        calls.append("cancelled cards")
    before = signal.getsignal(signal.SIGINT)
    fut = asyncio.get_running_loop().create_future()
    async def pending():
        print("waiting", flush=True)  # runs only once wait_interruptible holds SIGINT
        await fut
    try:
        await wait_interruptible(pending(), on_interrupt)
    finally:
        restored = signal.getsignal(signal.SIGINT) is before
""")


def test_interrupt_runs_callback_and_ends_the_cell(
    any_mode_kernel: KernelHarness, record_property: Callable[[str, object], None]
) -> None:
    kernel = any_mode_kernel
    cell = kernel.execute(WAITING_CELL)
    kernel.wait_for(lambda: "waiting" in kernel.stream_text(cell), 20, "the cell to start waiting")
    started = time.perf_counter()
    kernel.interrupt()
    kernel.wait_idle(cell, timeout=10)
    elapsed_ms = (time.perf_counter() - started) * 1000
    record_property("interrupt_to_idle_ms", round(elapsed_ms, 1))
    print(f"\ninterrupt-to-idle: {elapsed_ms:.1f} ms")
    err = kernel.error(cell)
    assert err is not None
    assert (err["ename"], err["evalue"]) == ("KeyboardInterrupt", INTERRUPTED_MESSAGE)
    assert err["traceback"] == [f"KeyboardInterrupt: {INTERRUPTED_MESSAGE}"]  # one line, no frames
    assert kernel.reply(cell)["content"]["status"] == "error"
    assert kernel.run("print(calls, fut.cancelled(), restored)") == "['cancelled cards'] True True\n"


def test_kernel_interrupts_normally_afterwards(kernel: KernelHarness) -> None:
    first = kernel.execute(WAITING_CELL)
    kernel.wait_for(lambda: "waiting" in kernel.stream_text(first), 20, "the first wait")
    kernel.interrupt()
    kernel.wait_idle(first, timeout=10)
    assert (kernel.error(first) or {}).get("ename") == "KeyboardInterrupt"
    # a plain blocking cell is still interruptible by ipykernel's own handling
    # short sleeps: a process-directed SIGINT may land on another thread of the kernel, which
    # does not wake one long sleep of the main thread (tests/form/test_form_patterns_kernel.py)
    second = kernel.execute("import time\nprint('sleeping', flush=True)\nwhile True:\n    time.sleep(0.05)")
    kernel.wait_for(lambda: "sleeping" in kernel.stream_text(second), 20, "the sleep")
    kernel.interrupt()
    kernel.wait_idle(second, timeout=10)
    err = kernel.error(second)
    assert err is not None and err["ename"] == "KeyboardInterrupt"
    assert kernel.run("print(calls)") == "['cancelled cards']\n"


def test_completed_wait_returns_value_and_leaves_handler(kernel: KernelHarness) -> None:
    out = kernel.run(
        textwrap.dedent("""
        import asyncio, signal
        from nbacp.kernel import wait_interruptible, can_await_widgets, running_in_kernel
        before = signal.getsignal(signal.SIGINT)
        value = await wait_interruptible(asyncio.sleep(0.01, result=42), lambda: None)
        print(value, signal.getsignal(signal.SIGINT) is before, running_in_kernel(), can_await_widgets())
    """)
    )
    assert out == "42 True True True\n"
