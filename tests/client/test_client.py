"""NotebookClient + connect() against real in-process ACP peers."""

from __future__ import annotations

import asyncio
import gc
import random
import weakref
from typing import Any

import pytest
from acp import RequestError
from acp.schema import ElicitationFormSessionMode, ElicitationSchema
from pydantic_acp import (
    ChoiceElicitationAccepted,
    ChoiceElicitationCancelled,
    ChoiceElicitationDeclined,
    ElicitationChoice,
)
from support.agents import SchemaAgent, claude_question_schema
from support.comm_support import answered_lines
from support.peers import FanOutAgent, HoldingAgent, PermissionAgent, Region, Target, choice_agent

import nbacp
from nbacp.answers import Script, decline
from nbacp.widgets import FormCard, PermissionCard


async def wait_for(predicate: Any, what: str, timeout: float = 10.0) -> Any:
    """Poll a condition that another task makes true; fail with ``what`` rather than hang."""
    async with asyncio.timeout(timeout):
        while not (value := predicate()):
            await asyncio.sleep(0.005)
    return value


def test_capabilities_advertise_elicitation_files_and_terminals() -> None:
    caps = nbacp.NotebookClient().capabilities().model_dump(by_alias=True, exclude_none=True)
    assert caps["elicitation"] == {"form": {}, "url": {}}
    assert caps["fs"] == {"readTextFile": True, "writeTextFile": True}
    assert caps["terminal"] is True


async def test_ask_choice_enum_value_comes_back_typed() -> None:
    outcomes: list[Any] = []
    choices = [
        ElicitationChoice(value=Target.PREVIEW, label="Preview"),
        ElicitationChoice(value=Target.PRODUCTION, label="Production", description="Deploy for real.", default=True),
    ]
    script = Script([{"pick": {"choice": "Preview"}, "press": "accept"}])
    async with nbacp.connect(choice_agent(choices, outcomes), answers=script) as conn:
        session = await conn.new_session(".")
        result = await session.prompt("deploy")
    assert result.stop_reason == "end_turn"
    assert outcomes == [ChoiceElicitationAccepted(value=Target.PREVIEW)]
    assert "Target.PREVIEW" in result.text
    assert result.answers and result.answers[0][0] == "question"


async def test_ask_choice_default_is_preselected_and_dataclass_values_map_back() -> None:
    outcomes: list[Any] = []
    eu, us = Region("eu-west", 20), Region("us-east", 80)
    choices = [ElicitationChoice(value=eu, label="Europe"), ElicitationChoice(value=us, label="US", default=True)]
    # no pick: the sanitized default ("US") is what the person accepts
    async with nbacp.connect(choice_agent(choices, outcomes), answers=Script([{"press": "accept"}])) as conn:
        await (await conn.new_session(".")).prompt("where")
    assert outcomes == [ChoiceElicitationAccepted(value=us)]


@pytest.mark.parametrize(
    ("press", "expected"), [("decline", ChoiceElicitationDeclined), ("cancel", ChoiceElicitationCancelled)]
)
async def test_ask_choice_decline_and_cancel_stay_distinct(press: str, expected: type) -> None:
    outcomes: list[Any] = []
    choices = [ElicitationChoice(value=1, label="One"), ElicitationChoice(value=2, label="Two")]
    async with nbacp.connect(choice_agent(choices, outcomes), answers=Script([{"press": press}])) as conn:
        result = await (await conn.new_session(".")).prompt("x")
    assert [type(o) for o in outcomes] == [expected]
    assert press in result.text


def claude_form(multi: bool) -> tuple[str, dict[str, Any]]:
    return claude_question_schema(
        [
            {
                "question": "Which formats?",
                "header": "Formats",
                "multiSelect": multi,
                "options": [
                    {"label": "CSV", "description": "comma separated"},
                    {"label": "Parquet"},
                    {"label": "JSON"},
                ],
            }
        ]
    )


async def test_claude_multi_select_sends_picks_and_custom_text() -> None:
    message, schema = claude_form(multi=True)
    agent = SchemaAgent(message, schema)
    script = Script([{"pick": {"question_0": ["CSV", "JSON"]}, "fill": {"question_0_custom": "  Avro "}}])
    async with nbacp.connect(agent, answers=script) as conn:
        await (await conn.new_session(".")).prompt("go")
    (reply,) = agent.replies
    assert reply.action == "accept"
    assert reply.content == {"question_0": ["CSV", "JSON"], "question_0_custom": "Avro"}


async def test_claude_single_select_custom_text_overrides_the_pick() -> None:
    message, schema = claude_form(multi=False)
    agent = SchemaAgent(message, schema)
    script = Script([{"pick": {"question_0": "CSV"}, "fill": {"question_0_custom": "Feather"}}])
    async with nbacp.connect(agent, answers=script) as conn:
        await (await conn.new_session(".")).prompt("go")
    assert agent.replies[0].content == {"question_0_custom": "Feather"}


async def test_structurally_broken_schema_is_a_json_rpc_invalid_params() -> None:
    agent = HoldingAgent()
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session(".")
        bad = ElicitationSchema(properties={"dup": {"type": "string", "enum": ["a", "a"]}})
        mode = ElicitationFormSessionMode(session_id=session.id, requested_schema=bad)
        with pytest.raises(RequestError) as info:
            await agent.conn.create_elicitation(message="?", mode=mode)
        assert info.value.code == -32602
        assert "dup" in str(info.value.data)
        assert conn.client.open_cards() == []


async def test_form_without_policy_waits_for_a_person() -> None:
    agent = SchemaAgent(*claude_form(multi=True))
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session(".")
        turn = session.start("go")
        (card,) = await wait_for(lambda: conn.client.open_cards(session.id), "the form")
        await asyncio.sleep(0.05)
        assert not turn.done and not card.done  # nothing answers on the person's behalf
        card.pick("question_0", "Parquet")
        card.accept()
        await turn
    assert agent.replies[0].content == {"question_0": ["Parquet"]}
    assert card in turn.transcript.shown or card.done


async def test_permission_reject_is_the_agents_reject_option_not_cancelled() -> None:
    async with nbacp.connect(PermissionAgent(), answers=decline) as conn:
        result = await (await conn.new_session(".")).prompt("write")
    assert result.text == "deny"
    assert result.answers[0][0] == "permission"


async def test_permission_scripted_choice() -> None:
    async with nbacp.connect(PermissionAgent(), answers=Script([{"choose": "allow"}])) as conn:
        result = await (await conn.new_session(".")).prompt("write")
    assert result.text == "allow"


async def test_url_elicitation_consent_then_completion() -> None:
    agent = HoldingAgent(url="https://login.example.com/device?code=1")
    async with nbacp.connect(agent, answers=Script([{"press": "open"}])) as conn:
        session = await conn.new_session(".")
        turn = session.start("login")
        await wait_for(lambda: agent.replies, "the consent reply")
        assert agent.replies[0].action == "accept"
        (card,) = conn.client.questions.url_cards.values()
        assert not card.completed
        await agent.conn.complete_elicitation(elicitation_id="e-1")
        await agent.conn.complete_elicitation(elicitation_id="e-1")  # repeated: ignored
        await agent.conn.complete_elicitation(elicitation_id="unknown")  # unknown: ignored
        await wait_for(lambda: card.completed, "completion")
        agent.release.set()
        assert (await turn).stop_reason == "end_turn"


async def test_fifty_concurrent_elicitations_across_five_sessions_answered_out_of_order() -> None:
    agent = FanOutAgent(count=10)
    async with nbacp.connect(agent) as conn:
        sessions = [await conn.new_session(".") for _ in range(5)]
        turns = [s.start("fan out") for s in sessions]
        await wait_for(lambda: len(conn.client.open_cards()) == 50, "50 open forms")
        cards: list[FormCard] = conn.client.open_cards()
        random.Random(7).shuffle(cards)
        for card in cards:
            index = card.message.rsplit("#", 1)[1]
            card.pick("pick", f"t{index}")
            card.accept()
        results = [await t for t in turns]
    for session, result in zip(sessions, results, strict=True):
        assert result.text == " ".join(f"{i}=t{i}" for i in range(10)), session.id
    assert conn.client.open_cards() == []


async def test_updates_between_turns_are_kept() -> None:
    agent = SchemaAgent(*claude_form(multi=True))
    async with nbacp.connect(agent, answers=Script([{"press": "decline"}])) as conn:
        session = await conn.new_session(".")
        await agent._say(session.id, "hello before any turn")
        await wait_for(lambda: session.updates, "the update")
        result = await session.prompt("go")
    assert len(session.updates) == 2
    assert "decline" in result.text


async def test_permission_card_type_is_shown_to_policy() -> None:
    seen: list[str] = []

    def policy(card: Any) -> None:
        seen.append(type(card).__name__)
        if isinstance(card, PermissionCard):
            card.choose("Reject")

    async with nbacp.connect(PermissionAgent(), answers=policy) as conn:
        result = await (await conn.new_session(".")).prompt("write")
    assert seen == ["PermissionCard"] and result.text == "deny"


async def test_failing_policy_leaves_the_card_for_a_person() -> None:
    def broken(card: Any) -> None:
        raise RuntimeError("policy bug")

    agent = SchemaAgent(*claude_form(multi=True))
    async with nbacp.connect(agent, answers=broken) as conn:
        session = await conn.new_session(".")
        turn = session.start("go")
        (card,) = await wait_for(lambda: conn.client.open_cards(session.id), "the form")
        assert not card.done
        assert any("policy bug" in m for m in card.errors[""])  # said on the card, for the person
        card.decline()
        await turn
    assert agent.replies[0].action == "decline"


async def test_unknown_elicitation_mode_is_invalid_params_and_the_connection_lives_on() -> None:
    agent = HoldingAgent()
    async with nbacp.connect(agent, answers=Script([{"press": "decline"}])) as conn:
        session = await conn.new_session(".")
        with pytest.raises(RequestError) as info:
            await agent.conn._conn.send_request(
                "elicitation/create", {"sessionId": session.id, "mode": "_telepathy", "message": "think of a number"}
            )
        assert info.value.code == -32602
        assert "_telepathy" in str(info.value.data)
        agent.release.set()
        result = await session.prompt("still alive?")  # the same connection keeps working
    assert result.stop_reason == "end_turn"
    assert agent.replies[0].action == "decline"


async def test_an_answered_card_in_a_turn_leaves_one_line_and_nothing_keeps_the_card() -> None:
    """In the transcript the answered card's place holds its summary line (a node of the turn's
    view, drawn as the card drew it) and the card's model is closed; the answer lives on in the
    record and ``result.answers`` (docs/turn-view.md, 'Answered cards')."""
    outcomes: list[Any] = []
    choices = [
        ElicitationChoice(value=Target.PREVIEW, label="Preview"),
        ElicitationChoice(value=Target.PRODUCTION, label="Production"),
    ]
    cards: list[weakref.ref[FormCard]] = []

    def policy(card: FormCard) -> None:
        cards.append(weakref.ref(card))
        assert not [w for w in _tree(card) if w is not card]  # no child widgets: one model
        card.pick("choice", "Production")
        assert card.accept()

    async with nbacp.connect(choice_agent(choices, outcomes), answers=policy) as conn:
        session = await conn.new_session(".")
        turn = session.start("deploy")
        result = await turn
        lines = answered_lines(turn.transcript)
        gc.collect()
        assert len(cards) == 1 and [ref() for ref in cards] == [None]  # nothing in nbacp keeps the answered card
    assert outcomes == [ChoiceElicitationAccepted(value=Target.PRODUCTION)]
    assert lines == [
        (("nbacp-card", "nbacp-kind-form", "nbacp-form", "nbacp-answered"), "Accepted: Choice = Production")
    ]
    (answer,) = result.answers  # the record's: the question is the card's message, not ACP Kit's "Choice"
    assert (answer.question, str(answer)) == ("Choose one", "Accepted: Production")
    assert "**Question:** Choose one  \n**Answer:** Production" in result.record


def _tree(root: Any) -> list[Any]:
    found, stack = [], [root]
    while stack:
        widget = stack.pop()
        found.append(widget)
        stack.extend(getattr(widget, "children", ()))
    return found
