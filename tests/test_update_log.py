"""nbacp.updates.UpdateLog: every update once, plain text chunks as their text, read back equal."""

from __future__ import annotations

from typing import Any

from acp import schema
from support.agents import ChunkingAgent

import nbacp
from nbacp.updates import UpdateLog
from nbacp.widgets.transcript import Transcript


def chunk(text: str, cls: Any = schema.AgentMessageChunk, kind: str = "agent_message_chunk", **more: Any) -> Any:
    return cls(session_update=kind, content=schema.TextContentBlock(type="text", text=text), **more)


def mixed() -> list[Any]:
    annotated = schema.AgentMessageChunk(
        session_update="agent_message_chunk",
        content=schema.TextContentBlock(type="text", text="kept whole", annotations=schema.Annotations(priority=1)),
    )
    return [
        chunk("a"),
        chunk("b"),
        chunk("c", message_id="m1"),
        chunk("d", message_id="m1"),
        chunk("think", schema.AgentThoughtChunk, "agent_thought_chunk"),
        schema.ToolCallStart(session_update="tool_call", tool_call_id="t1", title="Read"),
        annotated,
        chunk("e", field_meta={"x": 1}),
        chunk("f"),
        chunk("you", schema.UserMessageChunk, "user_message_chunk"),
    ]


def test_every_update_reads_back_equal_and_in_order() -> None:
    updates = mixed()
    log = UpdateLog()
    for update in updates:
        log.append(update)
    assert len(log) == len(updates) and list(log) == updates and log == updates
    assert [log[i] for i in range(len(log))] == updates and log[-1] == updates[-1]
    assert log[2:5] == updates[2:5]
    for i, update in enumerate(updates):
        assert log[i].model_dump(by_alias=True) == update.model_dump(by_alias=True)
        assert log[i].model_fields_set == update.model_fields_set
    assert log[5] is updates[5] and log[6] is updates[6]  # anything but a plain chunk is kept as received


def test_plain_chunks_are_stored_as_runs_of_text() -> None:
    log = UpdateLog()
    for i in range(1000):
        log.append(chunk(f"w{i} "))
    assert len(log._entries) == 1 and log._entries[0].texts[:2] == ["w0 ", "w1 "]  # noqa: SLF001
    assert log[999].content.text == "w999 "


def test_a_view_is_a_window_that_can_be_frozen() -> None:
    log = UpdateLog()
    log.append(chunk("before"))
    view = log.view(len(log))
    log.append(chunk("x"))
    log.append(chunk("y"))
    frozen = view.freeze()
    log.append(chunk("after"))
    assert [u.content.text for u in frozen] == ["x", "y"] and len(view) == 3
    assert frozen[-1].content.text == "y" and frozen[0:1] == [chunk("x")]


async def test_a_turn_keeps_each_update_once() -> None:
    """The session's log holds the turn's updates; the transcript and the result are windows on it."""
    async with nbacp.connect(ChunkingAgent(["one ", "two ", "three"])) as conn:
        session = await conn.new_session(".")
        result = await session.prompt("go")
        log = conn.client.session_updates.logs[session.id]
        transcript = session.turn.transcript if session.turn else None
    assert isinstance(transcript, Transcript) and transcript._log is log  # noqa: SLF001
    texts = [u.content.text for u in result.updates if isinstance(u, schema.AgentMessageChunk)]
    assert texts == ["one ", "two ", "three"] and result.text == "one two three"
    assert list(result.updates) == list(log)
