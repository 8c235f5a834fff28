"""The kernel's stop button never reaches a command agent (docs/kernels.md, 'The stop button'), both interrupt modes.

ipykernel and jupyter_client interrupt the kernel's whole process group; the agent runs in
its own session, so an interrupt of an unrelated cell leaves it alive, and an interrupt of a
prompt reaches it only as nbacp's ``session/cancel``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from support import SUPPORT, TESTS
from support.kernel_support import KernelHarness, start_kernel

pytestmark = pytest.mark.kernel
AGENT = SUPPORT / "feature_agents.py"


@pytest.fixture
def traced_kernel(interrupt_mode: Literal["signal", "message"], tmp_path: Path) -> Iterator[tuple[KernelHarness, Path]]:
    """A kernel in each interrupt mode, and the file its FeatureAgents trace what they received to."""
    trace = tmp_path / "agent-trace.txt"
    with start_kernel(tmp_path, interrupt_mode=interrupt_mode, env={"FEATURE_TRACE": str(trace)}) as harness:
        yield harness, trace


def test_stop_button_leaves_the_agent_alive_and_cancels_through_acp(
    traced_kernel: tuple[KernelHarness, Path],
) -> None:
    kernel, trace = traced_kernel
    out = kernel.run(
        textwrap.dedent(f"""
        import asyncio, os, sys
        import nbacp
        conn = await nbacp.connect([sys.executable, {str(AGENT)!r}])
        session = await conn.new_session()
        pid = conn.process.pid
        print(os.getsid(pid) == pid, os.getpgid(pid) != os.getpgid(0))
    """),
        timeout=60,
    )
    assert out == "True True\n"

    # an unrelated cell is stopped: the agent must not be
    # short sleeps: a process-directed SIGINT may land on another thread of the kernel, which
    # does not wake one long sleep of the main thread (tests/form/test_form_patterns_kernel.py)
    sleeping = kernel.execute("import time\nprint('sleeping', flush=True)\nwhile True:\n    time.sleep(0.05)")
    kernel.wait_for(lambda: "sleeping" in kernel.stream_text(sleeping), 20, "the sleep")
    kernel.interrupt()
    kernel.wait_idle(sleeping, timeout=20)
    assert (kernel.error(sleeping) or {}).get("ename") == "KeyboardInterrupt"
    out = kernel.run("r = await session.prompt('after the stop'); print(r.text, conn.process.returncode)")
    assert out == "echo after the stop None\n"

    # a prompt is stopped: the agent hears session/cancel and stays up
    prompting = kernel.execute("r = await session.prompt('hang')")
    kernel.wait_for(lambda: trace.exists() and "prompt hang" in trace.read_text(), 30, "the agent to get the prompt")
    kernel.interrupt()
    kernel.wait_idle(prompting, timeout=20)
    assert (kernel.error(prompting) or {}).get("ename") == "KeyboardInterrupt"
    out = kernel.run(
        textwrap.dedent("""
        for _ in range(200):
            if "got session/cancel" in conn.stderr:
                break
            await asyncio.sleep(0.05)
        print("got session/cancel for " + session.id in conn.stderr, conn.process.returncode)
        r = await session.prompt('still here')
        print(r.text)
        await conn.close()
    """),
        timeout=60,
    )
    assert out == "True None\necho still here\n"


def auth_card(kernel: KernelHarness) -> dict[str, Any]:
    """The authentication card's model once shown: one model whose spec lists the methods
    (docs/consent-cards.md, 'Authentication card')."""

    def find() -> dict[str, Any] | None:
        shown = [c for c in kernel.comm_opens() if (c["state"].get("spec") or {}).get("kind") == "auth"]
        names = [m["name"] for c in shown[-1:] for m in c["state"]["spec"]["methods"]]
        return shown[-1] if "Sign in with ChatGPT" in names else None

    return kernel.wait_for(find, 30, "the authentication card")


def test_auth_card_and_toolbar_answered_by_the_front_end_in_a_kernel(kernel: KernelHarness) -> None:
    """session/new waits in the cell for the auth card; the click and a dropdown change come as comm messages."""
    cell = kernel.execute(
        textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(TESTS)!r})
        import nbacp
        from support.feature_agents import FeatureAgent
        agent = FeatureAgent(require_auth="new")
        conn = await nbacp.connect(agent)
        session = await conn.new_session()
        print("session", agent.authenticated)
    """)
    )
    card = auth_card(kernel)
    kernel.send_custom(card["comm_id"], {"event": "authenticate", "method_id": "chat-gpt", "seq": 1})  # the click
    kernel.wait_idle(cell, timeout=30)
    assert kernel.error(cell) is None
    assert kernel.stream_text(cell) == "session ['chat-gpt']\n"
    mode = kernel.wait_widget("DropdownModel", description="Mode")
    assert mode["state"]["index"] == 2  # "auto"
    kernel.send_update(mode["comm_id"], index=0)  # the person picks "Default"
    out = kernel.run(
        textwrap.dedent("""
        await session.toolbar.settled()
        print(session.mode, agent.calls)
    """)
    )
    assert out == "default [('mode', 'default')]\n"


def test_stop_button_ends_a_wait_for_the_auth_card(kernel: KernelHarness) -> None:
    cell = kernel.execute(
        textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(TESTS)!r})
        import nbacp
        from support.feature_agents import FeatureAgent
        agent = FeatureAgent(require_auth="new")
        conn = await nbacp.connect(agent)
        print("connected", flush=True)
        session = await conn.new_session()
    """)
    )
    auth_card(kernel)
    kernel.interrupt()
    kernel.wait_idle(cell, timeout=20)
    assert (kernel.error(cell) or {}).get("ename") == "KeyboardInterrupt"
    out = kernel.run("print([c.summary for c in conn.client.open_cards()], agent.authenticated, agent.sessions)")
    assert out == "[] [] {}\n"
