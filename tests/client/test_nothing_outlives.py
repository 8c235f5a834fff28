"""Nothing a turn made outlives what shows it: after the cards are answered, the turn ends and
the connection closes, no widget nbacp created is left in ipywidgets' registry (each would keep
a live comm and its state for the life of the kernel; docs/notebooks.md, 'What a card costs').

Counted by the registry itself (``ipywidgets.widgets.widget._instances``), before and after, with
a real in-process agent that asks 20 questions in one turn.
"""

from __future__ import annotations

import gc

from acp.schema import ElicitationFormSessionMode, ElicitationSchema, PromptResponse
from ipywidgets.widgets.widget import _instances
from support.agents import SchemaAgent

import nbacp
from nbacp.widgets import shared

QUESTIONS = 20
SCHEMA = {
    "type": "object",
    "properties": {"env": {"type": "string", "title": "Where", "enum": ["dev", "prod"]}},
    "required": ["env"],
}


class ManyQuestionsAgent(SchemaAgent):
    """Asks the same question ``QUESTIONS`` times in one turn, then says something."""

    async def prompt(self, prompt: list, session_id: str, **kwargs: object) -> PromptResponse:  # type: ignore[type-arg]
        mode = ElicitationFormSessionMode(session_id=session_id, requested_schema=self.schema)
        for _ in range(QUESTIONS):
            self.replies.append(await self.conn.create_elicitation(message=self.message, mode=mode))
        await self._say(session_id, "done")
        return PromptResponse(stop_reason="end_turn")


def answer(card: nbacp.FormCard) -> None:
    card.pick("env", "prod")
    assert card.accept(), card.errors


def registered() -> set[str]:
    gc.collect()
    return {key for key, widget in list(_instances.items()) if not shared.is_shared(widget)}


async def run_turn_and_close() -> list[str]:
    """One connection, one turn of answered questions, close; the widget classes left registered."""
    before = registered()
    agent = ManyQuestionsAgent("Deploy where?", ElicitationSchema.model_validate(SCHEMA).model_dump(by_alias=True))
    conn = await nbacp.connect(agent, answers=answer)
    session = await conn.new_session()
    result = await session.prompt("go")
    assert len(result.answers) == QUESTIONS and len(agent.replies) == QUESTIONS
    assert registered() - before  # the connection still shows its inbox until it closes
    await conn.close()
    assert "prod" in result.record  # what the notebook keeps is the record, not widgets
    del conn, session, result
    return sorted(type(_instances[key]).__name__ for key in registered() - before if key in _instances)


async def test_no_widget_is_left_after_the_turn_and_close() -> None:
    await run_turn_and_close()  # the first connection of a kernel makes its per-kernel models (the stylesheet's)
    assert await run_turn_and_close() == []
