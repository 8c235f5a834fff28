"""Terminals in a real kernel: the stop button reaches the command, and a kernel shutdown leaves no process.

The cell runs the scripted agent of tests/support/client_methods_agent.py in-process; each
command writes its process group id (``$$`` of ``sh -c``, which leads the group) to a file, so
the test can look at the group from outside (tests/support/processes.py).
"""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import pytest
from support import TESTS
from support.kernel_support import KernelHarness
from support.processes import live_in_group

pytestmark = pytest.mark.kernel

SETUP = textwrap.dedent(f"""
    import sys, json, asyncio
    sys.path.insert(0, {str(TESTS)!r})
    import nbacp
    from support.client_methods_agent import ClientMethodsAgent
    agent = ClientMethodsAgent()
    conn = await nbacp.connect(agent)
    session = await conn.new_session('.')
""")


def pgid_from(kernel: KernelHarness, path: Path) -> int:
    text = kernel.wait_for(lambda: path.exists() and path.read_text().strip(), 30, f"{path.name}")
    return int(text)


def prompt_cell(steps: list[dict[str, str]]) -> str:
    return f"result = await session.prompt({json.dumps(json.dumps(steps))})"


def test_stop_button_cancels_the_turn_and_the_agents_kill_ends_the_command(
    kernel: KernelHarness, tmp_path: Path
) -> None:
    kernel.run(SETUP, timeout=60)
    cell = kernel.execute(prompt_cell([{"op": "hold", "command": "echo $$ > held.pid; exec sleep 600"}]))
    pgid = pgid_from(kernel, tmp_path / "held.pid")
    assert live_in_group(pgid) and not kernel.is_idle(cell)
    kernel.interrupt()
    kernel.wait_idle(cell, timeout=15)
    error = kernel.error(cell)
    assert error is not None and error["ename"] == "KeyboardInterrupt"
    out = kernel.run(
        "result = await asyncio.wait_for(session.turn.task, 10)\n"
        "held = json.loads(result.text)[0]['ok']\n"
        "print(result.stop_reason, held['signal'], len(conn.client.terminals))"
    )
    assert out == "cancelled SIGTERM 0\n"
    assert live_in_group(pgid) == []


def test_kernel_shutdown_leaves_no_process(kernel: KernelHarness, tmp_path: Path) -> None:
    kernel.run(SETUP, timeout=60)
    out = kernel.run(
        prompt_cell([{"op": "create", "command": "echo $$ > left.pid; sleep 600 & exec sleep 600"}])
        + "\nprint(result.stop_reason)"
    )
    assert out == "end_turn\n"
    pgid = pgid_from(kernel, tmp_path / "left.pid")
    kernel.wait_for(lambda: len(live_in_group(pgid)) >= 2, 10, "both sleeps")
    kernel.km.request_shutdown()  # what JupyterLab's "Shut Down Kernel" sends first
    kernel.wait_for(lambda: not kernel.km.is_alive(), 30, "the kernel to exit")
    deadline = time.monotonic() + 10
    while live_in_group(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_in_group(pgid) == []
