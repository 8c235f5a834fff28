"""A secret answer goes to the agent and nowhere else; a question with a deadline says so
(docs/agents.md, 'Secret questions and deadlines'). Real peers: FeatureAgent in process and over stdio."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any

import ipywidgets as widgets
import pytest
from ipywidgets.widgets.widget import _instances
from support import SUPPORT
from support.feature_agents import FeatureAgent

import nbacp
from nbacp.widgets.form_card import FormCard

SECRET = "hunter2-SECRET-0451"
HANG_GUARD = 60  # seconds: only so that a regression fails instead of hanging the run


def answer_secret(cards: list[FormCard]) -> Any:
    def policy(card: Any) -> None:
        assert isinstance(card, FormCard)
        cards.append(card)
        assert isinstance(card.widget_for("token"), widgets.Password)  # masked
        assert not isinstance(card.widget_for("region"), widgets.Password)
        card.fill("token", SECRET)
        card.fill("region", "eu")
        assert card.accept()

    return policy


@pytest.mark.parametrize("over", ["in-process", "stdio"])
async def test_a_secret_reaches_the_agent_and_nothing_else(over: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    agent = FeatureAgent()
    target: Any = agent if over == "in-process" else [sys.executable, str(SUPPORT / "feature_agents.py")]
    cards: list[FormCard] = []
    async with nbacp.connect(target, answers=answer_secret(cards)) as conn:
        session = await conn.new_session()
        result = await asyncio.wait_for(session.prompt("secret"), HANG_GUARD)
        log_lines = list(conn.log or [])
    assert result.text == f"secret: accept, {len(SECRET)} characters"  # the agent got all of it
    if over == "in-process":
        assert agent.secret_replies == [{"action": "accept", "content": {"token": SECRET, "region": "eu"}}]
    [card] = cards
    shown = f"(secret, {len(SECRET)} characters)"
    assert result.answers == [("question", "Deploy token", f"Accepted: {shown}"),
                              ("question", "Region", "Accepted: eu")]
    assert [a.value for a in result.answers] == [shown, "eu"]
    assert card.response is not None and card.response.content == {"token": shown, "region": "eu"}
    everything = [result.record, repr(result), repr(card), card.summary.value, repr(card.response),
                  repr(card.form), *map(str, result.answers), *map(repr, result.answers), *log_lines,
                  *(r.getMessage() for r in caplog.records),
                  *(repr(u) for u in result.updates)]
    assert not [text for text in everything if SECRET in text]


async def test_an_answered_secret_card_keeps_no_draft_in_widget_state() -> None:
    cards: list[FormCard] = []
    async with nbacp.connect(FeatureAgent(), answers=answer_secret(cards)) as conn:
        session = await conn.new_session()
        boxes: list[Any] = []
        conn.client.answers = lambda card: (boxes.append(card.widget_for("token")), answer_secret(cards)(card))
        await asyncio.wait_for(session.prompt("secret"), HANG_GUARD)
    [box] = boxes
    assert box.value == ""  # cleared in the model (and so in the front end's state) before it closed
    assert box.comm is None  # and closed
    assert not [w for w in _instances.values() if getattr(w, "value", None) == SECRET]


async def test_a_question_with_a_deadline_counts_down_and_records_the_withdrawal() -> None:
    seen: list[FormCard] = []
    countdown: list[str] = []

    def watch(card: Any) -> None:  # called as the card is shown: what the person sees then
        seen.append(card)
        countdown.extend(w.value for w in card.children if "nbacp-deadline" in getattr(w, "_dom_classes", ()))

    async with nbacp.connect(FeatureAgent(), answers=watch) as conn:
        result = await asyncio.wait_for((await conn.new_session()).prompt("withdraw"), HANG_GUARD)
    [card] = seen
    assert card.form.deadline_ms == 30000
    assert countdown == ["The agent withdraws this question in 30 s if it is not answered."]
    assert card.withdrawn_after is not None
    assert card.summary.value == f"Withdrawn by the agent after {round(card.withdrawn_after)} s."
    assert result.answers[0][2] == card.summary.value
    assert "Withdrawn by the agent after" in result.record  # the record keeps it (markdown-escaped)
