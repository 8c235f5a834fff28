"""ask_questions answered through nbacp's own client, form model and widgets (headless scripts)."""

from __future__ import annotations

from typing import Any

from support.agents import Outcome, QuestionsAgent, pydantic_question_agent
from test_questions_peers import QUESTIONS, Lang

import nbacp
from nbacp.answers import Script
from nbacp.questions import Answer, Option, Question, QuestionsAccepted, QuestionsDeclined, compile_questions


async def run(agent: Any, *entries: dict[str, Any]) -> str:
    async with await nbacp.connect(agent, answers=Script(list(entries))) as conn:
        session = await conn.new_session(cwd=".")
        result = await session.prompt("ask me")
    assert result.stop_reason == "end_turn"
    return result.text


async def test_pick_two_and_type_custom_through_the_widgets() -> None:
    outcomes: list[Outcome] = []
    text = await run(
        pydantic_question_agent(QUESTIONS, outcomes=outcomes),
        {"pick": {"langs": ["Python", "Rust"]}, "fill": {"langs_custom": "  Zig "}, "press": "accept"},
    )
    assert outcomes == [
        QuestionsAccepted(
            answers={
                "langs": Answer(values=[Lang.PY, Lang.RS], custom="Zig"),
                "target": Answer(),
            }
        )
    ]
    assert "custom='Zig'" in text


async def test_single_select_pick_then_custom_sends_custom_only() -> None:
    question = Question(
        "target", "Deploy where?", [Option(("prod", 1), "Production"), Option(("dev", 2), "Dev")], allow_custom=True
    )
    agent = QuestionsAgent([question])
    await run(agent, {"pick": {"target": ["Production"]}, "fill": {"target_custom": "staging"}, "press": "accept"})
    assert agent.outcomes == [QuestionsAccepted(answers={"target": Answer(values=[], custom="staging")})]


async def test_single_select_pick_gives_the_typed_value_and_decline_stays_decline() -> None:
    agent = QuestionsAgent([QUESTIONS[1]])
    await run(agent, {"pick": {"target": ["Dev"]}, "press": "accept"})
    await run(agent, {"press": "decline"})
    assert agent.outcomes == [QuestionsAccepted(answers={"target": Answer(values=[("dev", 2)])}), QuestionsDeclined()]


def test_nbacp_form_folds_each_question_with_its_hints() -> None:
    form = nbacp.Form.from_schema(compile_questions(QUESTIONS, None).schema)
    assert [(q.name, q.multi, q.custom.name if q.custom else None) for q in form.questions] == [
        ("langs", True, "langs_custom"),
        ("target", False, "target_custom"),
    ]
    assert [(o.label, o.recommended) for o in form.questions[0].choice.options] == [("Python", False), ("Rust", True)]
