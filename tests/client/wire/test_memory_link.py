"""The in-process transport is bounded like a pipe: a writer waits on a full link, order is kept,
close gives end of stream after what was sent and releases a waiting writer, and a fast agent in
the kernel cannot run ahead of the notebook by more than what the links hold."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from acp import PromptResponse
from support.agents import RawAgent

import nbacp
from nbacp.client.wire.transports.memory_link import CAPACITY, MemoryLink, memory_pair


def _msg(i: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"n": i}}


async def test_a_full_link_makes_the_writer_wait_until_a_message_is_read() -> None:
    link = MemoryLink(capacity=3)
    for i in range(3):
        await link.put(_msg(i))  # room: no wait
    writer = asyncio.create_task(link.put(_msg(3)))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not writer.done() and len(link) == 3
    assert await link.get() == _msg(0)
    await asyncio.wait_for(writer, 5)
    assert len(link) == 3


async def test_order_is_kept_with_a_writer_faster_than_the_reader() -> None:
    link = MemoryLink(capacity=4)
    most = 0

    async def write() -> None:
        nonlocal most
        for i in range(500):
            await link.put(_msg(i))
            most = max(most, len(link))
        link.close()

    writer = asyncio.create_task(write())
    got = []
    while (message := await link.get()) is not None:
        got.append(message["params"]["n"])
        if len(got) % 7 == 0:
            await asyncio.sleep(0)
    await writer
    assert got == list(range(500))
    assert most == 4


async def test_close_gives_what_was_sent_then_end_of_stream_and_refuses_writes() -> None:
    link = MemoryLink()
    await link.put(_msg(1))
    await link.put(_msg(2))
    link.close()
    link.close()  # twice is harmless
    assert [await link.get(), await link.get()] == [_msg(1), _msg(2)]
    assert await link.get() is None
    assert await link.get() is None  # end of stream stays end of stream
    with pytest.raises(ConnectionError):
        await link.put(_msg(3))


async def test_a_reader_waiting_on_an_empty_link_gets_end_of_stream_on_close() -> None:
    link = MemoryLink()
    reader = asyncio.create_task(link.get())
    await asyncio.sleep(0)
    link.close()
    assert await asyncio.wait_for(reader, 5) is None


async def test_a_writer_blocked_on_a_full_link_is_released_by_close() -> None:
    link = MemoryLink(capacity=1)
    await link.put(_msg(0))
    writers = [asyncio.create_task(link.put(_msg(i))) for i in (1, 2)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in writers)
    link.close()
    for writer in writers:
        with pytest.raises(ConnectionError):
            await asyncio.wait_for(writer, 5)
    assert await link.get() == _msg(0)  # what was in the link before the close is still read
    assert await link.get() is None


async def test_closing_an_end_closes_both_directions_like_a_pipe() -> None:
    client_end, agent_end = memory_pair(capacity=2)
    await agent_end.send(_msg(1))
    await client_end.send(_msg(2))
    await client_end.send(_msg(3))
    await agent_end.send(_msg(4))  # fits: agent -> client held one
    stuck = asyncio.create_task(agent_end.send(_msg(5)))  # agent -> client is full now
    await asyncio.sleep(0)
    assert not stuck.done()
    await client_end.close()
    with pytest.raises(ConnectionError):
        await asyncio.wait_for(stuck, 5)  # the reader went away: the write fails, as on a closed pipe
    assert [await agent_end.receive(), await agent_end.receive()] == [_msg(2), _msg(3)]
    assert await agent_end.receive() is None


async def test_a_cancelled_writer_passes_its_turn_on() -> None:
    link = MemoryLink(capacity=1)
    await link.put(_msg(0))
    first = asyncio.create_task(link.put(_msg(1)))
    second = asyncio.create_task(link.put(_msg(2)))
    await asyncio.sleep(0)
    assert await link.get() == _msg(0)  # wakes the first writer...
    first.cancel()  # ...which is cancelled before it runs: the second one must get the room
    await asyncio.wait_for(second, 5)
    assert await link.get() == _msg(2)


async def test_a_large_message_goes_through_whole_and_unchanged() -> None:
    client_end, agent_end = memory_pair()
    text = "x" * (20 * 1024 * 1024) + "\U0001f600"
    sent = {"jsonrpc": "2.0", "method": "session/update", "params": {"text": text}}
    await agent_end.send(sent)
    got = await client_end.receive()
    assert got == sent and got is not sent  # the envelope is the receiver's own copy
    assert got is not None and got["params"]["text"] is text


def test_a_link_holds_at_least_one_message() -> None:
    with pytest.raises(ValueError):
        MemoryLink(capacity=0)


class _FloodingAgent(RawAgent):
    """Streams ``n`` chunks without ever yielding, then notes how many the notebook had handled."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n
        self.seen: Callable[[], int] = lambda: -1
        self.handled_when_done = -1

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        for i in range(self.n):
            await self._say(session_id, f"w{i} ")
        self.handled_when_done = self.seen()
        return PromptResponse(stop_reason="end_turn")


async def test_a_fast_in_process_agent_cannot_run_ahead_of_the_notebook() -> None:
    """With an unbounded link all 2,000 sends return before the notebook handles one update; here the
    agent waits whenever the link is full, so when it is done the notebook is at most about two
    links' worth behind."""
    n = 2_000
    agent = _FloodingAgent(n)
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session()
        agent.seen = lambda: len(session.updates)
        result = await session.prompt("go")
    assert result.text == "".join(f"w{i} " for i in range(n))
    assert agent.handled_when_done >= n - 3 * CAPACITY, agent.handled_when_done
