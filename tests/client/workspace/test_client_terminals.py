"""``terminal/*`` from a scripted agent, in-process and over stdio: output, limits, kill, cleanup.

"No process left" is checked on the process group: no process of the group (a backgrounded
grandchild included) is alive (tests/support/processes.py).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from support import SUPPORT
from support.client_methods_agent import ClientMethodsAgent
from support.processes import live_in_group

import nbacp
from nbacp.widgets.transcript.terminals import SHOWN_CHARS

AGENT = SUPPORT / "client_methods_agent.py"


async def run(session: Any, *steps: dict[str, Any]) -> list[dict[str, Any]]:
    result = await session.prompt(json.dumps(list(steps)))
    outcomes: list[dict[str, Any]] = json.loads(result.text)
    return outcomes


def group_alive(pgid: int) -> bool:
    return bool(live_in_group(pgid))


async def wait_for(predicate: Any, what: str, timeout: float = 20.0) -> Any:
    async with asyncio.timeout(timeout):
        while not (value := predicate()):
            await asyncio.sleep(0.01)
    return value


async def test_a_command_runs_in_the_cwd_with_env_and_reports_its_exit(conn: Any, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    session = await conn.new_session(tmp_path)
    shell, direct, failing = await run(
        session,
        {"op": "run", "command": "echo $GREETING; pwd", "env": {"GREETING": "hello"}, "cwd": str(tmp_path / "sub")},
        {"op": "run", "command": sys.executable, "args": ["-c", "import os; print(os.getcwd())"]},
        {"op": "run", "command": "echo out; echo err >&2; exit 3"},
    )
    assert shell["ok"]["output"] == f"hello\n{tmp_path / 'sub'}\n" and shell["ok"]["exitCode"] == 0
    assert direct["ok"]["output"] == f"{tmp_path}\n"  # no cwd: the session's
    assert failing["ok"]["output"] == "out\nerr\n"
    assert failing["ok"]["exitCode"] == 3 and failing["ok"]["outputExit"] == {"exitCode": 3, "signal": None}


async def test_output_byte_limit_truncates_from_the_start_at_a_character_boundary(conn: Any, tmp_path: Path) -> None:
    session = await conn.new_session(tmp_path)
    [limited] = await run(session, {"op": "run", "command": "printf 'é%.0s' $(seq 1 1000); echo END", "limit": 101})
    output = limited["ok"]["output"]
    assert limited["ok"]["truncated"] is True
    assert output.endswith("END\n") and set(output[:-4]) == {"é"}
    assert len(output.encode()) <= 101 and "\ufffd" not in output


async def test_refusals_cwd_outside_unknown_terminal_and_too_many(tmp_path: Path) -> None:
    agent = ClientMethodsAgent()
    async with nbacp.connect(agent) as conn:
        conn.client.terminals.max_live = 2
        session = await conn.new_session(tmp_path / ".." / tmp_path.name)
        outcomes = await run(
            session,
            {"op": "run", "command": "true", "cwd": "/"},
            {"op": "raw", "method": "terminal/output", "params": {"sessionId": session.id, "terminalId": "nope"}},
            {"op": "run", "command": "no-such-command-here", "args": ["x"]},
            {"op": "run", "command": "true", "env": {"A=B": "1"}},
            {"op": "raw", "method": "terminal/create", "params": {"sessionId": session.id, "command": 7}},
            {"op": "create", "command": "sleep 60"},
            {"op": "create", "command": "sleep 60"},
            {"op": "create", "command": "sleep 60"},
        )
        outside, unknown, missing, bad_env, malformed, first, second, third = outcomes
        assert "Could not start 'no-such-command-here'" in missing["error"]["message"]
        assert bad_env["error"]["data"]["reason"] == "start_failed"
        assert malformed["error"]["code"] == -32602  # the SDK's "Invalid params"
        assert "2 terminals are already open" in third["error"]["message"]
        assert outside["error"]["data"]["reason"] == "outside_roots"
        assert unknown["error"]["data"]["reason"] == "unknown_terminal"
        pids = [conn.client.terminals.get(session.id, o["ok"]).pid for o in (first, second)]
        assert all(group_alive(pid) for pid in pids)
    assert not any(group_alive(pid) for pid in pids)  # the connection's close killed them


async def test_release_and_session_close_kill_the_whole_group(tmp_path: Path) -> None:
    agent = ClientMethodsAgent()
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session(tmp_path)
        [created] = await run(session, {"op": "create", "command": "sleep 60 & sleep 60; wait"})
        pgid = conn.client.terminals.get(session.id, created["ok"]).pid
        await wait_for(lambda: len(live_in_group(pgid)) >= 3, "the backgrounded sleep")
        await run(
            session,
            {
                "op": "raw",
                "method": "terminal/release",
                "params": {"sessionId": session.id, "terminalId": created["ok"]},
            },
        )
        # SIGKILL went to the whole group before release returned; the kernel ends each member
        # asynchronously, so a loaded machine can still list one in /proc for a moment
        await wait_for(lambda: not group_alive(pgid), "the released group to be gone", timeout=5.0)
        assert len(conn.client.terminals) == 0
        [kept] = await run(session, {"op": "create", "command": "sleep 60 & sleep 60; wait"})
        other = await conn.new_session(tmp_path)
        [elsewhere] = await run(other, {"op": "create", "command": "sleep 60"})
        kept_pgid = conn.client.terminals.get(session.id, kept["ok"]).pid
        other_pgid = conn.client.terminals.get(other.id, elsewhere["ok"]).pid
        await conn.close_session(session.id)
        # SIGKILL went to the whole group; a member the kernel has not finished ending yet may still
        # show in /proc for a moment (the shell may not have forked its background sleep before)
        await wait_for(lambda: not group_alive(kept_pgid), "the killed group to be gone", timeout=5.0)
        assert group_alive(other_pgid)  # another session's terminal lives on
        assert [t.pid for t in conn.client.terminals.live()] == [other_pgid]


async def test_the_stop_button_cancels_the_turn_and_the_agents_kill_reaches_the_process(
    conn: Any, tmp_path: Path
) -> None:
    session = await conn.new_session(tmp_path)
    turn = session.start(json.dumps([{"op": "hold", "command": "echo started; exec sleep 600"}]))
    [terminal] = await wait_for(conn.client.terminals.live, "the terminal")
    await wait_for(lambda: "started" in turn.transcript.terminal_shown(terminal.id), "output")
    assert "exit" not in turn.transcript.terminal_shown(terminal.id)  # still running: no exit line yet
    pids = [terminal.pid]
    await session.cancel()  # what the stop button does
    result = await turn
    assert result.stop_reason == "cancelled"
    [held] = json.loads(result.text)
    assert held["ok"]["signal"] == "SIGTERM" and held["ok"]["exitCode"] is None
    assert held["ok"]["output"] == "started\n"
    assert pids and not any(group_alive(pid) for pid in pids)


async def test_output_streams_into_the_tool_call_live_and_bounded(tmp_path: Path) -> None:
    agent = ClientMethodsAgent()
    go = tmp_path / "go"
    command = (
        f"echo tick1; while [ ! -f {go} ]; do sleep 0.02; done; head -c 200000 /dev/zero | tr '\\0' x; echo; echo tick2"
    )
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session(tmp_path)
        turn = session.start(json.dumps([{"op": "run", "command": command}]))
        await agent.created.wait()
        terminal_id = agent.terminal_ids[0]
        await wait_for(lambda: "tick1" in turn.transcript.terminal_shown(terminal_id), "tick1 while running")
        assert "exit code" not in turn.transcript.terminal_shown(terminal_id)
        go.touch()
        result = await turn
        shown = turn.transcript.terminal_shown(terminal_id)
    assert shown.endswith("tick2\n[exit code 0]") and shown.startswith("… (earlier output not shown")
    assert len(shown) < SHOWN_CHARS + 200
    [ran] = json.loads(result.text)
    assert len(ran["ok"]["output"]) == len("tick1\n") + 200000 + len("\ntick2\n")


async def test_a_flood_is_capped_and_never_blocks(tmp_path: Path) -> None:
    agent = ClientMethodsAgent()
    async with nbacp.connect(agent) as conn:
        conn.client.terminals.max_output = 10_000
        session = await conn.new_session(tmp_path)
        [flood] = await run(session, {"op": "run", "command": "head -c 20000000 /dev/zero | tr '\\0' y; echo"})
    assert flood["ok"]["exitCode"] == 0 and flood["ok"]["truncated"] is True
    assert len(flood["ok"]["output"]) == 10_000


@pytest.mark.parametrize("transport", ["in-process", "stdio"])
async def test_terminal_off_is_not_advertised_and_answers_method_not_found(transport: str, tmp_path: Path) -> None:
    agent = ClientMethodsAgent()
    target: Any = agent if transport == "in-process" else [sys.executable, str(AGENT)]
    async with nbacp.connect(target, terminal=False) as conn:
        session = await conn.new_session(tmp_path)
        [created] = await run(session, {"op": "create", "command": "true"})
    assert created["error"]["code"] == -32601
    if transport == "in-process":
        assert agent.client_capabilities is not None and agent.client_capabilities.terminal is False
