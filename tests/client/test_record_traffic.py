"""The traffic claude-agent-acp, codex-acp and gemini-cli really send, replayed over stdio.

``tests/support/replay_agent.py`` sends, byte for byte, every ``session/update`` each agent
sent in a recorded run (tool calls with output in ``rawOutput`` or ``_meta``, plans, usage,
session info, commands, config, subagent and compaction updates outside the SDK's schema,
updates after the turn). nbacp must show each as what it is (a block, one line, the header)
and keep the tool calls in the record, never a repr, a JSON dump or a validation error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import pytest
from support.comm_support import kids_of

import nbacp
from nbacp.widgets.transcript import nodes

SUPPORT = Path(__file__).resolve().parents[1] / "support"
RUNS = sorted(p.stem for p in (SUPPORT / "agent_traffic").glob("*.jsonl"))


def strings(root: Any) -> list[str]:
    out: list[str] = []
    stack = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, widgets.Widget | nodes.Node):
            value = getattr(item, "value", None)
            if isinstance(value, str) and isinstance(item, nodes.Text):
                out.append(value)
            stack.extend(kids_of(item))
    return out


def prompts(run: str) -> int:
    events = [json.loads(line) for line in (SUPPORT / "agent_traffic" / f"{run}.jsonl").read_text().splitlines()]
    return sum(1 for e in events if "prompt" in e)


@pytest.mark.parametrize("run", RUNS)
async def test_every_update_is_shown_readably_and_tool_calls_reach_the_record(run: str, tmp_path: Path) -> None:
    command = [sys.executable, str(SUPPORT / "replay_agent.py"), run]
    async with nbacp.connect(command) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        results = [await session.prompt("go") for _ in range(prompts(run))]
        log = list(conn.log or [])
        views = (session.turn, conn.client.surfaces.inbox)
        shown = [line for r in views for line in strings(getattr(r, "transcript", r))]
        records = [t.record.text for t in [session.turn] if t is not None and t.record is not None]
    assert not log, log  # nothing the agents sent was refused
    for line in shown:
        assert len(line) <= 300 and "sessionUpdate" not in line and "{'" not in line and '{"' not in line, line
        assert "Connection:" not in line and "ValidationError" not in line, line
    assert results[-1].stop_reason in ("end_turn", "cancelled")
    assert "Stop reason:" in records[-1]
    calls = sum(
        1
        for line in (SUPPORT / "agent_traffic" / f"{run}.jsonl").read_text().splitlines()
        if '"sessionUpdate": "tool_call"' in line and '"child": false' in line
    )
    if calls and prompts(run) == 1:
        assert "Tool calls:" in records[-1]
    # locations and diffs name files relative to the session's folder (titles are the agent's words)
    assert f"at {tmp_path}" not in "\n".join(records) and f"· {tmp_path}" not in "\n".join(records)


async def test_claudes_subagent_and_compaction_are_shown_as_they_mean_it(tmp_path: Path) -> None:
    """claude-agent-acp 0.101 with the capabilities: its child is a block of its own (its text, the
    task it was given), its compaction one block, and neither an "Unsupported update" line."""
    command = [sys.executable, str(SUPPORT / "replay_agent.py"), "claude_record"]
    async with nbacp.connect(command) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        first = await session.prompt("go")
        turn = session.turn
        second = await session.prompt("go")
    assert turn is not None and session.turn is not None and turn.record is not None
    shown = strings(turn.transcript) + strings(session.turn.transcript)
    assert not any(line.startswith("Unsupported update") for line in shown), shown
    assert "Task from the parent: SUBAGENT TASK: say done" in shown
    assert "Subagent: Look around · idle (end_turn)\n    general-purpose\n    SUBAGENT DONE" in turn.record.text
    assert "SUBAGENT DONE" not in first.text  # the child's message is not the parent's
    assert "Compacting the context: completed" in shown
    assert "Compacting the context: completed\n    MODEL SAW:" in session.turn.record.text  # type: ignore[union-attr]
    # kept in result.updates: as its raw dict on SDK 0.12, as a typed update where the SDK knows the type (1.x)
    kinds = [
        u.get("sessionUpdate") if isinstance(u, dict) else getattr(u, "session_update", None) for u in second.updates
    ]
    assert "compaction_update" in kinds
    assert "Plan:\n  ◐ Doing step one\n  ○ Step two" in turn.record.text
    assert first.stop_reason == "end_turn"


async def test_facts_between_turns_go_to_the_header_not_the_inbox(tmp_path: Path) -> None:
    """claude sends its commands before the first prompt and its title after it: both reach the header."""
    command = [sys.executable, str(SUPPORT / "replay_agent.py"), "claude_fs_auto"]
    async with nbacp.connect(command) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        await session.prompt("go")
        inbox = strings(conn.client.surfaces.inbox)
        header = dict(session.header.facts)
    assert not any(line.startswith(("Commands", "Session", "Config")) for line in inbox), inbox
    assert header["Commands"].endswith("(send /name as a prompt)")


async def test_codex_command_output_streams_into_the_live_view(tmp_path: Path) -> None:
    """codex sends a command's output only as ``_meta.terminal_output`` chunks: the live view shows them."""
    command = [sys.executable, str(SUPPORT / "replay_agent.py"), "codex_record"]
    async with nbacp.connect(command) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        turn = session.start("go")
        await turn
        shown = "\n".join(strings(turn.transcript)) + "".join(
            getattr(w, "value", "") for w in _walk(turn.transcript) if isinstance(w, nodes.Html)
        )
    assert "exit 3" in shown and "err-line" in shown and "tick 5" in shown


def _walk(root: Any) -> list[Any]:
    out, stack = [], [root]
    while stack:
        item = stack.pop()
        out.append(item)
        stack.extend(kids_of(item))
    return out
