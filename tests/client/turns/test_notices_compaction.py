"""Notices and context compaction over a real stdio transport, on both SDK lines (0.12.1 drops both
update kinds from its union, 1.0.0rc3 types them): a notice is one line with its severity, never
part of the agent's message; a compaction is one block per id, upserted; both in the record; both
bounded. The peer is raw JSON-RPC (``support.subagent_agent``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from support.comm_support import kids_of
from support.subagent_agent import command

import nbacp
from nbacp.render import turn_events
from nbacp.widgets.transcript import nodes


def labels(root: Any, css: str = "") -> list[str]:
    out: list[str] = []
    stack = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, nodes.Text) and (not css or css in item._dom_classes):
            out.append(item.value)
        stack.extend(reversed(kids_of(item)))
    return out


def update(payload: dict[str, Any]) -> list[Any]:
    return ["update", None, payload]


def chunk(text: str) -> list[Any]:
    content = {"type": "text", "text": text}
    return update({"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": content})


def notice(severity: str, title: str, description: str | None = None) -> list[Any]:
    payload = {"sessionUpdate": "notice", "severity": severity, "title": title}
    if description is not None:
        payload["description"] = description
    return update(payload)


def compaction(compaction_id: str, status: str, **more: Any) -> list[Any]:
    return update({"sessionUpdate": "compaction_update", "compactionId": compaction_id, "status": status, **more})


async def run(turn: list[Any], tmp_path: Path) -> tuple[Any, Any]:
    async with asyncio.timeout(60), nbacp.connect(command({"turns": [turn]}, tmp_path)) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        result = await session.prompt("go")
        return session.turn, result


async def test_a_notice_is_one_line_with_its_severity_never_in_the_agents_message(tmp_path: Path) -> None:
    turn = [
        chunk("Hello "),
        notice("warning", "Rate limited", "retrying in 5 s"),
        notice("error", "Tool server down"),
        notice("info", "<img src=x onerror=alert(1)> **bold**"),
        chunk("world."),
    ]
    t, result = await run(turn, tmp_path)
    assert result.text.startswith("Hello world.")  # the message stays whole
    assert "Rate limited" not in result.text
    transcript = t.transcript
    assert labels(transcript, "nbacp-notice-warning") == ["Notice (warning): Rate limited — retrying in 5 s"]
    assert labels(transcript, "nbacp-notice-error") == ["Notice (error): Tool server down"]
    assert labels(transcript, "nbacp-notice-info") == ["Notice (info): <img src=x onerror=alert(1)> **bold**"]
    record = t.record
    assert "Notice (warning): Rate limited — retrying in 5 s\nNotice (error): Tool server down" in record.text
    assert "<img" not in record.html and "&lt;img src=x" in record.html  # escaped text in the saved HTML
    assert "nbacp-notice-error" in record.html


async def test_a_compaction_is_one_block_per_id_upserted_with_its_summary(tmp_path: Path) -> None:
    summary_chunk = {
        "sessionUpdate": "compaction_summary_chunk",
        "compactionId": "c1",
        "content": {"type": "text", "text": "The person wants "},
    }
    turn = [
        compaction("c1", "in_progress"),
        update(summary_chunk),
        update({**summary_chunk, "content": {"type": "text", "text": "a plot of sales."}}),
        compaction("c1", "completed"),
        compaction("c2", "in_progress"),
        compaction("c2", "failed", error="context too large"),
        compaction("c3", "completed", summary=[{"type": "text", "text": "Replaced summary <script>"}]),
    ]
    t, result = await run(turn, tmp_path)
    blocks = [w for w in t.transcript.shown if isinstance(w, nodes.Box) and "nbacp-compaction" in w._dom_classes]
    assert [b.children[0].value for b in blocks] == [
        "Compacting the context: completed",
        "Compacting the context: failed: context too large",
        "Compacting the context: completed",
    ]
    assert "The person wants a plot of sales." in blocks[0].children[1].value
    assert "&lt;script&gt;" in blocks[2].children[1].value and "<script>" not in blocks[2].children[1].value
    assert "The person wants" not in result.text
    record = t.record.text
    assert "Compacting the context: completed\n    The person wants a plot of sales." in record
    assert "Compacting the context: failed: context too large" in record
    assert record.count("Compacting the context") == 3


async def test_notices_and_compactions_are_bounded(tmp_path: Path) -> None:
    notices = turn_events.MAX_NOTICES + 7
    compactions = turn_events.MAX_COMPACTIONS + 3
    turn = [notice("info", f"n{i}") for i in range(notices)]
    turn += [
        compaction(f"c{i}", "completed", summary=[{"type": "text", "text": "s" * 30_000}]) for i in range(compactions)
    ]
    t, _ = await run(turn, tmp_path)
    assert len(labels(t.transcript, "nbacp-notice-info")) == turn_events.MAX_NOTICES
    blocks = [w for w in t.transcript.shown if isinstance(w, nodes.Box) and "nbacp-compaction" in w._dom_classes]
    assert len(blocks) == turn_events.MAX_COMPACTIONS
    record = t.record.text
    assert "… 7 more notices (over 100)" in record and "… 3 more compactions (over 16)" in record
    assert "… 7 more notices (over 100); … 3 more compactions (over 16)" in labels(t.transcript)
    assert len(record) < turn_events.MAX_COMPACTIONS * turn_events.RECORD_SUMMARY_CHARS + 50_000
    assert len(t.record.html) < turn_events.MAX_COMPACTIONS * turn_events.RECORD_SUMMARY_CHARS + 50_000
