"""A secret answer goes to the agent and nowhere else; a question with a deadline says so
(docs/agents.md, 'Secret questions and deadlines'). Real peers: FeatureAgent in process and over stdio."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from typing import Any

import pytest
from ipywidgets.widgets.widget import _instances
from support import SUPPORT
from support.feature_agents import FeatureAgent

import nbacp
from nbacp.widgets.form_card import FormCard

SECRET = "hunter2-SECRET-0451"
HANG_GUARD = 60  # seconds: only so that a regression fails instead of hanging the run


def kinds(card: FormCard) -> dict[str, str]:
    """Each field's input kind as the page draws it ("secret": a masked password box)."""
    return {field["name"]: field["kind"] for field in card.spec["fields"]}


def synced(widget: Any) -> str:
    """Everything a widget model syncs to the front end (and a saved notebook), as text."""
    return json.dumps(widget.get_state(), default=repr, ensure_ascii=False)


def answer_secret(cards: list[FormCard], states: list[str] | None = None) -> Any:
    def policy(card: Any) -> None:
        assert isinstance(card, FormCard)
        cards.append(card)
        assert kinds(card)["token"] == "secret" and card.spec["secret"] == ["token"]  # masked
        assert kinds(card)["region"] != "secret"
        card.fill("token", SECRET)
        card.fill("region", "eu")
        if states is not None:
            states.append(synced(card))  # filled, not yet sent
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
    assert result.answers == [
        ("question", "Deploy token", f"Accepted: {shown}"),
        ("question", "Region", "Accepted: eu"),
    ]
    assert [a.value for a in result.answers] == [shown, "eu"]
    assert card.response is not None and card.response.content == {"token": shown, "region": "eu"}
    everything = [
        result.record,
        repr(result),
        repr(card),
        card.summary,
        repr(card.response),
        repr(card.form),
        *map(str, result.answers),
        *map(repr, result.answers),
        *log_lines,
        *(r.getMessage() for r in caplog.records),
        *(repr(u) for u in result.updates),
    ]
    assert not [text for text in everything if SECRET in text]


async def test_an_answered_secret_card_keeps_no_draft_in_widget_state() -> None:
    cards: list[FormCard] = []
    async with nbacp.connect(FeatureAgent(), answers=answer_secret(cards)) as conn:
        session = await conn.new_session()
        states: list[str] = []
        conn.client.questions.answers = answer_secret(cards, states)
        await asyncio.wait_for(session.prompt("secret"), HANG_GUARD)
    [card] = cards
    [filled] = states
    assert "eu" in filled and SECRET not in filled  # the open card's synced draft never held it
    assert card.settled and card.draft == {} and SECRET not in synced(card)  # nor the answered card's
    assert not [w for w in _instances.values() if SECRET in synced(w)]  # nor any widget model


async def test_a_question_with_a_deadline_counts_down_and_records_the_withdrawal() -> None:
    seen: list[FormCard] = []
    countdown: list[str] = []

    def watch(card: Any) -> None:  # called as the card is shown: what the person sees then
        seen.append(card)
        assert isinstance(card.spec.get("deadline_at"), int)  # the page counts down to it
        countdown.extend(note for note in card.spec["notes"] if "withdraws" in note)

    async with nbacp.connect(FeatureAgent(), answers=watch) as conn:
        result = await asyncio.wait_for((await conn.new_session()).prompt("withdraw"), HANG_GUARD)
    [card] = seen
    assert card.form.deadline_ms == 30000
    assert countdown == ["The agent withdraws this question in 30 s if it is not answered."]
    assert card.withdrawn_after is not None
    assert card.summary == f"Withdrawn by the agent after {round(card.withdrawn_after)} s."
    assert result.answers[0][2] == card.summary
    assert "Withdrawn by the agent after" in result.record  # the record keeps it (markdown-escaped)
