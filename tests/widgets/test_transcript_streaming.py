"""Streaming that keeps up: chunks coalesce into frames, nothing is
lost or reordered, and no frame re-renders the whole message.

Front-end updates are counted as the comm messages Python publishes for the transcript's
widgets (tests/support/comm_support.py). Frame spacing is checked against the event loop's own clock
(a lower bound on the gap between frames, which a slow machine can only make larger).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import ipywidgets as widgets
import pytest
from acp import schema
from support.comm_support import RecordingComms, Sent, kids_sent, walk
from support.html_text import numbered_words

import nbacp.widgets.transcript.blocks as blocks
from nbacp.render.markdown import render_markdown
from nbacp.widgets.transcript import FRAME, Transcript, nodes


def chunk(text: str) -> schema.AgentMessageChunk:
    return schema.AgentMessageChunk(
        session_update="agent_message_chunk", content=schema.TextContentBlock(type="text", text=text)
    )


def pieces(n: int) -> list[str]:
    """``n`` chunks of markdown: numbered words, paragraph breaks, a fenced block now and then."""
    out = []
    for i in range(n):
        if i % 400 == 399:
            out.append(f"\n\n```\ncode w{i}\n```\n\n")
        elif i % 50 == 49:
            out.append(f"*w{i}*\n\n")
        else:
            out.append(f"w{i} ")
    return out


def shown_words(root: widgets.Widget) -> list[str]:
    """The numbered words a person would read in the transcript's HTML views, in order."""
    return numbered_words(w.value for w in walk(root) if isinstance(w, nodes.Html))


def updates_sent(comms: RecordingComms, since: int = 0) -> list[Sent]:
    return [s for s in comms.sent[since:] if s.msg_type == "comm_msg" and s.data.get("method") == "update"]


async def test_ten_thousand_chunks_arrive_complete_and_in_order() -> None:
    text = pieces(10_000)
    t = Transcript(prompt="count")
    for i, piece in enumerate(text):
        t.add(chunk(piece))
        if i % 250 == 0:
            await asyncio.sleep(0)
    await asyncio.sleep(FRAME * 1.5)  # let a streaming frame happen before the end
    streaming = shown_words(t)
    assert streaming == [f"w{i}" for i in range(len(streaming))] and streaming
    t.finish("end_turn")
    assert t.text == "".join(text)
    assert shown_words(t) == [f"w{i}" for i in range(10_000)]
    assert len(t.updates) == 10_000


async def test_a_burst_of_chunks_becomes_one_frame(comms: RecordingComms) -> None:
    counts = []
    for n in (100, 5_000):
        t = Transcript(prompt="burst")
        frames, mark = t.frames, len(comms.sent)
        for piece in pieces(n):
            t.add(chunk(piece))
        assert t.frames == frames  # nothing rendered while the chunks arrive
        await asyncio.sleep(FRAME * 2)
        assert t.frames == frames + 1
        counts.append(len(updates_sent(comms, mark)))
        t.finish("end_turn")
        assert t.text == "".join(pieces(n))
    assert counts[0] <= 4 and counts[1] <= 4, counts  # the same few syncs for 100 or 5,000 chunks


async def test_frames_are_spaced_by_the_frame_interval(comms: RecordingComms) -> None:
    """Frame starts, on the loop's own clock, are never closer than one frame (a lower bound only)."""
    loop = asyncio.get_running_loop()
    t = Transcript(prompt="paced")
    frame_starts: list[float] = []
    render = t.flush

    def stamped_flush() -> None:
        before, started = t.frames, loop.time()
        render()
        if t.frames > before:
            frame_starts.append(started)

    t.flush = stamped_flush  # type: ignore[method-assign]
    chunks = pieces(3_000)
    for i, piece in enumerate(chunks):
        t.add(chunk(piece))
        if i % 10 == 0:
            await asyncio.sleep(0.001)  # ~10,000 chunks a second
    gaps = [b - a for a, b in zip(frame_starts, frame_starts[1:], strict=False)]
    assert len(frame_starts) >= 2 and all(gap >= FRAME * 0.99 for gap in gaps), gaps
    assert len(updates_sent(comms)) < len(chunks) / 10
    t.finish("end_turn")
    assert shown_words(t) == re.findall(r"w\d+", "".join(chunks))


async def test_tool_call_progress_is_coalesced_too(comms: RecordingComms) -> None:
    t = Transcript(prompt="tools")
    mark = len(comms.sent)
    t.add(schema.ToolCallStart(session_update="tool_call", tool_call_id="c", title="Run", status="pending"))
    for i in range(500):
        t.add(schema.ToolCallProgress(session_update="tool_call_update", tool_call_id="c", title=f"Run {i}",
                                      status="in_progress"))  # fmt: skip
    await asyncio.sleep(FRAME * 2)
    header = next(w for w in walk(t) if isinstance(w, nodes.Text) and w.value.startswith("◐"))
    assert header.value == "◐ Run 499 · in progress"
    assert len(updates_sent(comms, mark)) <= 4


def test_without_a_running_loop_each_update_renders_at_once() -> None:
    t = Transcript(prompt="sync")
    t.add(chunk("first"))
    assert shown_words(t) == [] and "first" in "".join(w.value for w in walk(t) if isinstance(w, nodes.Html))
    t.add(chunk(" w1"))
    assert shown_words(t) == ["w1"]


async def test_no_frame_renders_the_whole_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear cost: while streaming, each frame renders only the live tail (bounded by
    ``seal_at`` plus the newest chunks); the whole message is rendered once, at its end."""
    sizes: list[int] = []
    real = render_markdown

    def counting(source: str) -> str:
        sizes.append(len(source))
        return real(source)

    monkeypatch.setattr(blocks, "render_markdown", counting)
    text = pieces(6_000)
    t = Transcript(prompt="long", seal_at=1024)
    for i, piece in enumerate(text):
        t.add(chunk(piece))
        if i % 40 == 0:
            t.flush()  # a frame every 40 chunks: far more frames than a real 50 ms clock allows
    t.finish("end_turn")
    whole = len("".join(text))
    assert whole > 30_000
    assert sizes.count(whole) == 1 and sizes[-1] == whole
    streaming = sizes[:-1]
    assert len(streaming) > 100 and max(streaming) < 1024 + 400
    assert sum(streaming) < 20 * whole  # O(frames x seal_at), not O(frames x message)


def test_a_seal_resends_a_bounded_number_of_ids(comms: RecordingComms) -> None:
    """Sealing sends the new piece and one group's ids, not the ids of every piece so far."""
    t = Transcript(prompt="p", seal_at=100)
    for i, piece in enumerate(pieces(20_000)):
        t.add(chunk(piece))
        if i % 5 == 0:
            t.flush()
    t.flush()
    sent = kids_sent(comms.sent)
    message = next(w for w in walk(t) if isinstance(w, nodes.Box) and "nbacp-agent" in w._dom_classes)
    groups = len(message.children) - 1
    assert groups > 10  # more than ten groups of sealed pieces
    assert max(sent) <= blocks.GROUP + 1 and max(sent) < groups * blocks.GROUP / 4


def test_messages_split_at_safe_points_stream_the_same_words(monkeypatch: Any) -> None:
    t = Transcript(prompt="p", seal_at=200)
    text = pieces(2_000)
    for i, piece in enumerate(text):
        t.add(chunk(piece))
        if i % 7 == 0:
            t.flush()
    message = next(w for w in walk(t) if isinstance(w, nodes.Box) and "nbacp-agent" in w._dom_classes)
    pieces_shown = [w for group in message.children[:-1] for w in group.children]
    assert len(pieces_shown) > 5  # sealed pieces (in groups) plus the tail
    assert shown_words(t) == re.findall(r"w\d+", "".join(text))
    t.finish("end_turn")
    assert len(message.children) == 1 and shown_words(t) == re.findall(r"w\d+", "".join(text))


def test_adding_a_card_resends_a_bounded_number_of_ids(comms: RecordingComms) -> None:
    """A turn of many questions: each card costs one page's ids, not the ids of every card so far.
    (Before pages, the n-th card re-sent n + 2 ids: quadratic over a turn.)"""
    from nbacp.widgets.transcript.frames import PAGE

    t = Transcript(prompt="p")
    before = len(comms.sent)
    cards = [widgets.Button(description=f"card {i}") for i in range(300)]
    for card in cards:
        t.add_card(card)
    sent = kids_sent(comms.sent[before:])
    assert max(sent) <= PAGE and sum(sent) < 300 * (PAGE / 2 + 2)
    assert list(t.shown)[1:] == cards  # the prompt comes first
