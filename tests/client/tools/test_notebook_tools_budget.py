"""Open proposals are bounded per session: 500 concurrent ``notebook_edit`` calls through the real
MCP tool server open at most ``MAX_WAITING`` review cards; every other call is answered at once,
before any widget is built, and the stop button still ends the turn with nothing applied, even
for a proposal that was still being checked when it was pressed."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from support.mcp_acp_agent import McpAcpAgent
from support.memory_notebook import MemoryNotebook
from support.notebook_tools import PATH, edit, failed, notebook, read, text_of

import nbacp
from nbacp.client.tools.notebook import MAX_WAITING, STOPPED
from nbacp.client.tools.notebook_texts import waiting_text
from nbacp.kernel.notebook_edits import NotebookView
from nbacp.widgets.review_card import ReviewCard

pytest.importorskip("mcp")

CALLS = 500


async def test_500_concurrent_proposals_open_at_most_the_bound_and_stop_applies_nothing() -> None:
    assert MAX_WAITING <= 64
    book = notebook()
    cards: list[Any] = []
    built: list[ReviewCard] = []
    real_init = ReviewCard.__init__

    def counting_init(self: ReviewCard, *args: Any, **kwargs: Any) -> None:  # every review card built, shown or not
        built.append(self)
        real_init(self, *args, **kwargs)

    calls = [edit(cell_id="load", new_source=f"step({i})", edit_mode="insert") for i in range(CALLS)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ReviewCard, "__init__", counting_init)
        async with asyncio.timeout(120), nbacp.connect(McpAcpAgent(), answers=cards.append) as conn:
            session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}, notebook=book))
            tools = session.tools.notebook
            turn = asyncio.ensure_future(session.prompt("calls " + json.dumps([read(), calls])))
            while tools.refused_over_bound < CALLS - MAX_WAITING or len(cards) < MAX_WAITING:
                await asyncio.sleep(0.01)  # waits for a state, asserts nothing on time
            assert len(built) == len(cards) == MAX_WAITING and tools.waiting == MAX_WAITING
            stopped = await session.cancel()  # the stop button
            result = await turn
    assert f"{MAX_WAITING} open questions cancelled" in stopped
    _, answers = json.loads(result.text)["results"]
    texts = [text_of(a) for a in answers]
    assert all(failed(a) for a in answers)
    refusal = waiting_text(MAX_WAITING)
    assert refusal.startswith(f"{MAX_WAITING} proposals are already waiting for the person;")
    assert texts.count(refusal) == CALLS - MAX_WAITING
    closed = "Not applied: the review card closed without an answer (the turn ended); nothing was changed."
    assert texts.count(closed) == MAX_WAITING
    assert book.applied == [] and len(book.cells) == 3
    assert len(built) == MAX_WAITING and all(card.settled for card in cards)
    assert tools.waiting == 0


async def test_a_slot_freed_by_an_answer_takes_the_next_proposal() -> None:
    """The bound counts proposals waiting now, not proposals ever made: once the person answered
    one, the agent's next proposal gets a card."""
    book = notebook()
    cards: list[Any] = []
    args = edit(cell_id="load", new_source="x", edit_mode="insert")["arguments"]
    async with asyncio.timeout(60), nbacp.connect(McpAcpAgent(), answers=cards.append) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}, notebook=book))
        tools = session.tools.notebook
        waiting = [asyncio.ensure_future(tools.edit(dict(args))) for _ in range(MAX_WAITING)]
        while len(cards) < MAX_WAITING:
            await asyncio.sleep(0.01)
        with pytest.raises(ValueError, match=f"^{MAX_WAITING} proposals are already waiting"):
            await tools.edit(dict(args))
        cards[0].reject()
        assert await waiting[0] == ("Rejected by the person; nothing was changed.", False)
        again = asyncio.ensure_future(tools.edit(dict(args)))
        while len(cards) < MAX_WAITING + 1:
            await asyncio.sleep(0.01)
        session.connection.client.cancel_cards("done", session.id)
        outcomes = await asyncio.gather(again, *waiting[1:])
    assert [applied for _, applied in outcomes] == [False] * MAX_WAITING and book.applied == []


class SlowRead(MemoryNotebook):
    """A page that answers the read only when the test says (the real one takes a round trip)."""

    def __init__(self) -> None:
        super().__init__(PATH, notebook().cells, "ask")
        self.reading = asyncio.Event()
        self.answer = asyncio.Event()

    async def read(self) -> NotebookView:
        self.reading.set()
        await self.answer.wait()
        return await super().read()


async def test_a_proposal_still_being_checked_at_the_stop_gets_no_card() -> None:
    """Stopped while the proposal's read of the notebook was on its way: no card after the stop,
    nothing applied, and the agent is told (it may not have stopped; McpAcpAgent ignores the cancel)."""
    book = SlowRead()
    cards: list[Any] = []
    async with asyncio.timeout(60), nbacp.connect(McpAcpAgent(), answers=cards.append) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}, notebook=book))
        steps = [edit(cell_id="load", new_source="x", edit_mode="insert")]
        turn = asyncio.ensure_future(session.prompt("calls " + json.dumps(steps)))
        await book.reading.wait()
        await session.cancel()
        book.answer.set()
        result = await turn
    (refused,) = json.loads(result.text)["results"]
    assert failed(refused) and text_of(refused) == STOPPED
    assert cards == [] and book.applied == []
