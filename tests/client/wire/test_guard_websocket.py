"""Websocket size limits: large agent messages pass by default, too-large ones are named, and an
answer over the server's limit is refused at the card (which stays open), not sent.

Real acpremote server on 127.0.0.1 (its own default limit, 1 MiB, for what it receives).
"""

from __future__ import annotations

from typing import Any

import pytest
from acp import PromptResponse
from acp.schema import ElicitationFormSessionMode, ElicitationSchema
from support.agents import RawAgent
from support.builders import text_block, update_agent_message
from support.loopback import loopback_server

import nbacp
from nbacp.errors import ConnectionLostError
from nbacp.widgets import FormCard

MIB = 1024 * 1024


class BigMessageAgent(RawAgent):
    """Says one message of ``size`` characters."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        await self._say(session_id, "x" * self.size)
        return PromptResponse(stop_reason="end_turn")


class AskNameAgent(RawAgent):
    """Asks one free-text question and says how long the answer was."""

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        schema = ElicitationSchema.model_validate({"type": "object", "properties": {"text": {"type": "string"}}})
        mode = ElicitationFormSessionMode(mode="form", session_id=session_id, requested_schema=schema)
        reply = await self.conn.create_elicitation(message="Paste it", mode=mode)
        said = f"got {len(reply.content['text'])}" if reply.action == "accept" else reply.action
        await self.conn.session_update(session_id=session_id, update=update_agent_message(text_block(said)))
        return PromptResponse(stop_reason="end_turn")


async def test_a_two_mib_agent_message_passes_by_default() -> None:
    async with (
        loopback_server(BigMessageAgent(2 * MIB)) as remote,
        nbacp.connect(remote.url, token=remote.token) as conn,
    ):
        session = await conn.new_session()
        result = await session.prompt("big")
    assert len(result.text) == 2 * MIB


async def test_a_message_over_max_message_bytes_names_the_size_and_the_option() -> None:
    async with (
        loopback_server(BigMessageAgent(2 * MIB)) as remote,
        nbacp.connect(remote.url, token=remote.token, max_message_bytes=MIB) as conn,
    ):
        session = await conn.new_session()
        with pytest.raises(ConnectionLostError) as info:
            await session.prompt("big")
    message = str(info.value)
    assert "max_message_bytes=1,048,576" in message and "connect(url, max_message_bytes=...)" in message


async def test_an_answer_over_the_server_limit_is_refused_and_the_card_stays_open() -> None:
    cards: list[FormCard] = []
    outcomes: list[bool] = []

    def answer(card: Any) -> None:
        cards.append(card)
        card.fill("text", "y" * (2 * MIB))
        outcomes.append(card.accept())
        outcomes.append(card.done)
        card.fill("text", "short")
        outcomes.append(card.accept())

    async with (
        loopback_server(AskNameAgent()) as remote,
        nbacp.connect(remote.url, token=remote.token, answers=answer) as conn,
    ):
        session = await conn.new_session()
        result = await session.prompt("ask")
        assert conn.client.questions.max_answer_bytes == MIB  # the server's limit, from its metadata
    assert outcomes == [False, False, True]
    assert result.text == "got 5"
    assert "Not sent" not in cards[0].summary and cards[0].errors == {}


async def test_refusal_text_names_the_size_and_the_limit() -> None:
    seen: list[str] = []

    def answer(card: Any) -> None:
        card.fill("text", "y" * (2 * MIB))
        card.accept()
        seen.append(card.errors[""][0])  # said on the card; the card stays open
        card.decline()

    async with (
        loopback_server(AskNameAgent()) as remote,
        nbacp.connect(remote.url, token=remote.token, answers=answer) as conn,
    ):
        session = await conn.new_session()
        result = await session.prompt("ask")
    assert result.text == "decline"
    assert seen[0].startswith("Not sent: This answer is 2,097,") and "1,048,576-byte limit" in seen[0]


async def test_a_prompt_over_the_server_limit_is_refused_before_sending() -> None:
    async with (
        loopback_server(BigMessageAgent(10)) as remote,
        nbacp.connect(remote.url, token=remote.token) as conn,
    ):
        session = await conn.new_session()
        with pytest.raises(ValueError, match=r"This prompt is 2,097,\d+ bytes, over the 1,048,576-byte limit"):
            await session.prompt("p" * (2 * MIB))
        result = await session.prompt("small")  # the connection is intact
    assert result.text == "x" * 10


async def test_a_message_the_server_refuses_is_named_as_its_refusal() -> None:
    async with (
        loopback_server(BigMessageAgent(10)) as remote,
        nbacp.connect(remote.url, token=remote.token) as conn,
    ):
        session = await conn.new_session()
        conn.client.questions.max_answer_bytes = None  # as if the server's limit were unknown (no metadata)
        too_large = "the agent server refused a message from the notebook as too large"
        with pytest.raises(ConnectionLostError, match=too_large):
            await session.prompt("p" * (2 * MIB))
