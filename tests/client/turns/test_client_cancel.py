"""The cancellation matrix: every way a turn can end leaves no open card and nothing pending."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from acp.schema import CancelElicitationResponse, PromptResponse
from support import SUPPORT
from support.loopback import loopback_server
from support.peers import HoldingAgent

import nbacp
from nbacp.errors import ConnectionLostError

PEERS = SUPPORT / "peers.py"


async def open_card(conn: nbacp.Connection, session_id: str | None = None) -> Any:
    async with asyncio.timeout(15):
        while not conn.client.open_cards(session_id):
            await asyncio.sleep(0.005)
    (card,) = conn.client.open_cards(session_id)
    return card


def assert_closed_as_cancelled(card: Any, reason_word: str) -> None:
    assert card.done
    assert isinstance(card.response, CancelElicitationResponse)
    assert reason_word in card.summary
    assert card.phase == "answered"  # the page shows the summary only: nothing left to click


def no_stray_tasks() -> None:
    current = asyncio.current_task()
    stray = [t for t in asyncio.all_tasks() if t is not current and not t.done() and "nbacp" in repr(t.get_coro())]
    assert stray == []


async def test_session_cancel_closes_the_card_and_the_agent_sees_cancel() -> None:
    agent = HoldingAgent()
    conn = await nbacp.connect(agent)
    session = await conn.new_session(".")
    turn = session.start("hold")
    card = await open_card(conn)
    await session.cancel()
    result = await turn
    assert result.stop_reason == "cancelled"
    assert_closed_as_cancelled(card, "cancelled")
    assert agent.cancelled.is_set()
    assert agent.replies == [CancelElicitationResponse(action="cancel")]
    await conn.close()
    no_stray_tasks()


async def test_agent_ending_the_turn_closes_its_pending_card() -> None:
    agent = HoldingAgent(end_early=True)
    async with nbacp.connect(agent) as conn:
        result = await (await conn.new_session(".")).prompt("hold")
        assert result.stop_reason == "end_turn"
        assert conn.client.open_cards() == []
        await asyncio.wait_for(agent._background, 5)
    assert agent.replies == [CancelElicitationResponse(action="cancel")]
    (answer,) = result.answers
    assert "ended the turn" in answer[2]
    no_stray_tasks()


async def test_conn_close_cancels_pending_cards_and_ends_the_turn() -> None:
    agent = HoldingAgent()
    conn = await nbacp.connect(agent)
    session = await conn.new_session(".")
    turn = session.start("hold")
    card = await open_card(conn)
    await conn.close()
    assert_closed_as_cancelled(card, "closed")
    with pytest.raises(ConnectionLostError):
        await turn
    no_stray_tasks()


async def test_agent_process_exit_cancels_cards() -> None:
    conn = await nbacp.connect([sys.executable, str(PEERS), "exit"])
    session = await conn.new_session(".")
    turn = session.start("hold")
    card = await open_card(conn)
    with pytest.raises(ConnectionLostError):
        await asyncio.wait_for(asyncio.shield(asyncio.ensure_future(_await(turn))), 15)
    assert_closed_as_cancelled(card, "lost")
    await conn.close()
    no_stray_tasks()


async def _await(turn: Any) -> Any:
    return await turn


async def test_websocket_drop_cancels_cards() -> None:
    agent = HoldingAgent()
    async with loopback_server(agent) as remote:
        conn = await nbacp.connect(remote.url, token=remote.token)
        session = await conn.new_session(".")
        turn = session.start("hold")
        card = await open_card(conn)
        remote.server.close()  # drops the websocket under the running turn
        with pytest.raises(ConnectionLostError):
            await asyncio.wait_for(_await(turn), 15)
        assert_closed_as_cancelled(card, "lost")
        await conn.close()
    no_stray_tasks()


async def test_cancelled_url_card_tells_the_agent_cancel() -> None:
    agent = HoldingAgent(url="https://example.org/auth")
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session(".")
        turn = session.start("login")
        card = await open_card(conn)
        await session.cancel()
        await turn
        assert_closed_as_cancelled(card, "cancelled")


async def test_an_unexpected_failure_still_closes_cards_and_surfaces_the_error() -> None:
    agent = HoldingAgent()
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session(".")
        real_prompt = conn.agent.prompt

        async def broken_prompt(**kwargs: Any) -> Any:
            await real_prompt(**kwargs)
            raise ValueError("unparsable reply")

        conn.agent.prompt = broken_prompt  # type: ignore[method-assign]
        turn = session.start("hold")
        card = await open_card(conn)
        agent.release.set()
        with pytest.raises(ValueError, match="unparsable reply"):
            await asyncio.wait_for(_await(turn), 15)
        assert_closed_as_cancelled(card, "failed")
        assert turn.transcript.stop_reason == "error"


class SlowToStop(HoldingAgent):
    """Ends a stopped turn only once ``may_end`` is set (an agent still tidying up after
    session/cancel); any later prompt ends at once."""

    def __init__(self) -> None:
        super().__init__()
        self.may_end = asyncio.Event()
        self.prompts: list[Any] = []

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        self.prompts.append(prompt)
        if len(self.prompts) > 1:
            return PromptResponse(stop_reason="end_turn")
        await self.cancelled.wait()
        await self.may_end.wait()
        return PromptResponse(stop_reason="cancelled")


async def test_a_prompt_right_after_a_stop_waits_for_the_stopped_turn_to_end() -> None:
    """A person stops a turn and runs the next prompt at once: it starts once the agent ended
    the stopped turn, instead of failing with "already has a turn running"."""
    agent = SlowToStop()
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session(".")
        first = session.start("hold")
        async with asyncio.timeout(15):
            while not agent.prompts:
                await asyncio.sleep(0.005)
        await session.cancel()
        second = asyncio.ensure_future(session.prompt("next"))
        await asyncio.sleep(0.2)
        assert not second.done() and not first.done  # waiting for the stopped turn, not refused
        agent.may_end.set()
        assert (await second).stop_reason == "end_turn"
        assert (await first).stop_reason == "cancelled"
        assert len(agent.prompts) == 2


async def test_a_second_prompt_while_a_turn_runs_unstopped_is_still_refused() -> None:
    agent = SlowToStop()
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session(".")
        first = session.start("hold")
        with pytest.raises(RuntimeError, match="already has a turn running"):
            await session.prompt("next")
        await session.cancel()
        agent.may_end.set()
        assert (await first).stop_reason == "cancelled"
