"""ask_questions through a real in-process acp connection: typed round trips, fallbacks, bad replies."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import pytest
from acp.schema import ClientCapabilities
from support.agents import FORM_CAPABILITIES, NO_ELICITATION, Outcome, QuestionsAgent, ReplyingClient, in_memory_pair
from support.builders import text_block

from nbacp.questions import (
    AgentConnectionSession,
    Answer,
    ElicitationNotSupportedError,
    InvalidQuestionFallbackError,
    InvalidQuestionResponseError,
    Option,
    Question,
    QuestionsAccepted,
    QuestionsCancelled,
    QuestionsDeclined,
    QuestionsFallback,
)


class Lang(enum.Enum):
    PY = "py"
    RS = "rs"
    GO = "go"


@dataclass
class Target:  # eq without frozen: unhashable, and not JSON-serializable
    name: str
    handle: object


PROD = Target("prod", object())
DEV = Target("dev", object())


def langs(**kw: Any) -> Question[Lang]:
    return Question(
        "langs",
        "Which languages?",
        [Option(Lang.PY, "Python"), Option(Lang.RS, "Rust"), Option(Lang.GO, "Go")],
        multi_select=True,
        **kw,
    )


def target(**kw: Any) -> Question[Target]:
    return Question("target", "Deploy where?", [Option(PROD, "Production"), Option(DEV, "Dev")], **kw)


async def ask(
    questions: list[Question[Any]],
    replies: list[Any],
    *,
    capabilities: ClientCapabilities = FORM_CAPABILITIES,
    fallback: QuestionsFallback[Any] | None = None,
    message: str | None = None,
) -> tuple[Outcome, ReplyingClient]:
    agent = QuestionsAgent(questions, fallback=fallback, message=message)
    client = ReplyingClient(replies)
    async with in_memory_pair(agent, client, capabilities) as conn:
        session = await conn.new_session(cwd="/")
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    assert response.stop_reason == "end_turn"
    assert len(agent.outcomes) == 1
    return agent.outcomes[0], client


def accept(content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


async def test_pick_two_and_type_custom_gives_typed_values_and_trimmed_text() -> None:
    outcome, client = await ask(
        [langs(allow_custom=True)], [accept({"langs": ["langs_2", "langs_0"], "langs_custom": "  Zig \n"})]
    )
    assert outcome == QuestionsAccepted(answers={"langs": Answer(values=[Lang.GO, Lang.PY], custom="Zig")})
    ((message, mode),) = client.requests
    assert message == "Which languages?"
    assert mode.session_id and set(mode.requested_schema.properties or {}) == {"langs", "langs_custom"}
    assert client.texts() == ["accepted langs=[<Lang.GO: 'go'>, <Lang.PY: 'py'>] custom='Zig'"]


async def test_values_come_back_as_the_very_objects_offered() -> None:
    outcome, _ = await ask([target()], [accept({"target": "target_1"})])
    assert isinstance(outcome, QuestionsAccepted)
    (value,) = outcome.answers["target"].values
    assert value is DEV


async def test_single_select_with_custom_only() -> None:
    outcome, _ = await ask([target(allow_custom=True, required=True)], [accept({"target_custom": "staging"})])
    assert outcome == QuestionsAccepted(answers={"target": Answer(values=[], custom="staging")})


async def test_unanswered_optional_questions_are_present_and_empty() -> None:
    outcome, _ = await ask([langs(), target()], [{"action": "accept"}])
    assert isinstance(outcome, QuestionsAccepted)
    assert outcome.answers == {"langs": Answer(), "target": Answer()}
    assert not outcome.answers["langs"].answered


async def test_unknown_content_keys_are_ignored() -> None:
    outcome, _ = await ask([target()], [accept({"target": "target_0", "note": "hi", "_x": [1]})])
    assert outcome == QuestionsAccepted(answers={"target": Answer(values=[PROD])})


@pytest.mark.parametrize(
    ("reply", "expected"),
    [({"action": "decline"}, QuestionsDeclined()), ({"action": "cancel"}, QuestionsCancelled())],
)
async def test_decline_and_cancel_stay_distinct(
    reply: dict[str, Any], expected: QuestionsDeclined | QuestionsCancelled
) -> None:
    outcome, client = await ask([target(required=True)], [reply])
    assert outcome == expected
    assert client.texts() == [expected.status]


async def test_no_form_capability_raises_without_asking() -> None:
    outcome, client = await ask([target()], [], capabilities=NO_ELICITATION)
    assert isinstance(outcome, ElicitationNotSupportedError)
    assert client.requests == []


def test_connection_session_reads_capabilities() -> None:
    conn: Any = None
    form = AgentConnectionSession(conn, "s", FORM_CAPABILITIES)
    assert form.session_id == "s"
    assert form.supports_elicitation("form") and not form.supports_elicitation("url")
    wire = AgentConnectionSession(conn, "s", {"elicitation": {"url": {}}})
    assert wire.supports_elicitation("url") and not wire.supports_elicitation("form")
    assert not AgentConnectionSession(conn, "s", None).supports_elicitation("form")


async def test_fallback_runs_only_without_form_support() -> None:
    calls: list[int] = []

    def fallback() -> QuestionsDeclined:
        calls.append(1)
        return QuestionsDeclined()

    outcome, _ = await ask([target()], [{"action": "cancel"}], fallback=fallback)
    assert outcome == QuestionsCancelled() and calls == []
    outcome, client = await ask([target()], [], capabilities=NO_ELICITATION, fallback=fallback)
    assert outcome == QuestionsDeclined() and calls == [1] and client.requests == []


async def test_async_fallback_answer_is_canonicalized_to_the_offered_objects() -> None:
    async def fallback() -> QuestionsAccepted[Any]:
        # An equal copy, not the offered object: the offered one comes back.
        return QuestionsAccepted(
            answers={"target": Answer(values=[Target("prod", PROD.handle)]), "langs": Answer(custom="  Zig ")}
        )

    outcome, _ = await ask([target(), langs(allow_custom=True)], [], capabilities=NO_ELICITATION, fallback=fallback)
    assert isinstance(outcome, QuestionsAccepted)
    assert outcome.answers["target"].values[0] is PROD
    assert outcome.answers["langs"] == Answer(values=[], custom="Zig")


@pytest.mark.parametrize(
    ("answers", "question_id"),
    [
        ({"target": Answer(values=[Target("staging", None)])}, "target"),
        ({"other": Answer(values=[PROD])}, "other"),
        ({"target": Answer(values=[PROD, DEV])}, "target"),
        ({"target": Answer(values=[PROD], custom="x")}, "target"),
        ({"langs": Answer(values=[Lang.PY, Lang.PY])}, "langs"),
        ({"langs": Answer(custom="   ")}, "langs"),
        ({}, "langs"),
    ],
)
async def test_impossible_fallback_answers_are_rejected(answers: dict[str, Answer[Any]], question_id: str) -> None:
    questions: list[Question[Any]] = [target(allow_custom=True), langs(allow_custom=True, required=True)]
    outcome, _ = await ask(
        questions, [], capabilities=NO_ELICITATION, fallback=lambda: QuestionsAccepted(answers=answers)
    )
    assert isinstance(outcome, InvalidQuestionFallbackError)
    assert outcome.question_id == question_id


async def test_fallback_must_return_a_result_variant() -> None:
    outcome, _ = await ask([target()], [], capabilities=NO_ELICITATION, fallback=lambda: PROD)  # type: ignore[arg-type,return-value]
    assert isinstance(outcome, InvalidQuestionFallbackError) and outcome.question_id is None


async def test_fallback_custom_for_a_question_without_custom_is_impossible() -> None:
    outcome, _ = await ask(
        [target()],
        [],
        capabilities=NO_ELICITATION,
        fallback=lambda: QuestionsAccepted(answers={"target": Answer(custom="x")}),
    )
    assert isinstance(outcome, InvalidQuestionFallbackError) and outcome.question_id == "target"


def single(**kw: Any) -> Question[Target]:
    return target(**kw)


INVALID: list[tuple[str, Question[Any], Any, str | None]] = [
    ("unknown token", single(), accept({"target": "target_9"}), "target"),
    ("label instead of token", single(), accept({"target": "Production"}), "target"),
    ("empty token", single(), accept({"target": ""}), "target"),
    ("duplicate", langs(), accept({"langs": ["langs_0", "langs_0"]}), "langs"),
    ("two values for single", single(), accept({"target": ["target_0", "target_1"]}), "target"),
    ("array of one for single", single(), accept({"target": ["target_0"]}), "target"),
    (
        "value and custom on single",
        single(allow_custom=True),
        accept({"target": "target_0", "target_custom": "x"}),
        "target",
    ),
    ("whitespace custom", langs(allow_custom=True), accept({"langs": ["langs_0"], "langs_custom": " \t\n"}), "langs"),
    ("empty custom", single(allow_custom=True), accept({"target_custom": ""}), "target"),
    ("custom not allowed", single(), accept({"target": "target_0", "target_custom": "x"}), "target"),
    ("missing required single", single(required=True), accept({}), "target"),
    ("missing required multi", langs(required=True), accept({"langs": []}), "langs"),
    ("missing required custom question", single(required=True, allow_custom=True), {"action": "accept"}, "target"),
    ("string where array expected", langs(), accept({"langs": "langs_0"}), "langs"),
    ("numbers in array", langs(), accept({"langs": [0]}), "langs"),
    ("number for single", single(), accept({"target": 0}), "target"),
    ("boolean for single", single(), accept({"target": True}), "target"),
    ("null for single", single(), accept({"target": None}), "target"),
    ("custom as number", single(allow_custom=True), accept({"target_custom": 3}), "target"),
    ("custom as array", langs(allow_custom=True), accept({"langs_custom": ["x"]}), "langs"),
    ("content not an object", single(), accept(["target_0"]), None),
    ("unknown action", single(), {"action": "skip"}, None),
    ("extension action", single(), {"action": "_later"}, None),
    ("no action", single(), {"content": {"target": "target_0"}}, None),
]


@pytest.mark.parametrize(("case", "question", "reply", "question_id"), INVALID, ids=[c[0] for c in INVALID])
async def test_invalid_replies_raise_naming_the_question(
    case: str, question: Question[Any], reply: Any, question_id: str | None
) -> None:
    outcome, client = await ask([question], [reply])
    assert isinstance(outcome, InvalidQuestionResponseError), outcome
    assert outcome.question_id == question_id
    if question_id is not None:
        assert repr(question_id) in str(outcome)
    assert client.texts() == [f"error InvalidQuestionResponseError question={question_id}: {outcome}"]


async def test_only_the_broken_question_is_named_among_several() -> None:
    outcome, _ = await ask([single(), langs()], [accept({"target": "target_0", "langs": ["langs_0", "target_1"]})])
    assert isinstance(outcome, InvalidQuestionResponseError) and outcome.question_id == "langs"
