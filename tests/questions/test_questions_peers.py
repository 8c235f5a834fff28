"""ask_questions from a real ACP Kit agent tool, in process and over acpremote on 127.0.0.1."""

from __future__ import annotations

import enum
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

import pytest
from acp import PROTOCOL_VERSION
from acp.client.connection import ClientSideConnection
from support.agents import (
    FORM_CAPABILITIES,
    NO_ELICITATION,
    Outcome,
    ReplyingClient,
    SchemaAgent,
    claude_question_schema,
    in_memory_pair,
    pydantic_question_agent,
)
from support.builders import text_block
from support.loopback import loopback_server

from nbacp.questions import (
    Answer,
    ElicitationNotSupportedError,
    InvalidQuestionResponseError,
    Option,
    Question,
    QuestionsAccepted,
    QuestionsDeclined,
)


class Lang(enum.Enum):
    PY = "py"
    RS = "rs"


QUESTIONS: list[Question[Any]] = [
    Question(
        "langs",
        "Which languages?",
        [Option(Lang.PY, "Python"), Option(Lang.RS, "Rust", recommended=True)],
        multi_select=True,
        allow_custom=True,
        required=True,
    ),
    Question(
        "target",
        "Deploy where?",
        [Option(("prod", 1), "Production"), Option(("dev", 2), "Dev")],
        allow_custom=True,
        header="Target",
    ),
]
PICK_TWO_AND_CUSTOM = {
    "action": "accept",
    "content": {"langs": ["langs_0", "langs_1"], "langs_custom": " Zig ", "target_custom": "staging"},
}
EXPECTED = QuestionsAccepted(
    answers={
        "langs": Answer(values=[Lang.PY, Lang.RS], custom="Zig"),
        "target": Answer(values=[], custom="staging"),
    }
)


async def prompt_once(conn: ClientSideConnection) -> str:
    session = await conn.new_session(cwd="/")
    response = await conn.prompt(session_id=session.session_id, prompt=[text_block("ask me")])
    return response.stop_reason


@asynccontextmanager
async def over_acpremote(agent: Any, client: ReplyingClient) -> AsyncIterator[ClientSideConnection]:
    async with loopback_server(agent) as server:  # skips where acpremote cannot be installed (SDK 1.x)
        from acpremote import TransportOptions, connect_remote_agent

        remote = await connect_remote_agent(
            cast(Any, client),
            server.url,
            bearer_token=server.token,
            options=TransportOptions(use_unstable_protocol=True),
        )
        try:
            await remote.connection.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=FORM_CAPABILITIES)
            yield remote.connection
        finally:
            await remote.close()


@pytest.mark.parametrize("transport", ["memory", "acpremote"])
async def test_pydantic_acp_tool_gets_typed_answers(transport: str) -> None:
    outcomes: list[Outcome] = []
    client = ReplyingClient([PICK_TWO_AND_CUSTOM])
    agent = pydantic_question_agent(QUESTIONS, outcomes=outcomes)
    pair = in_memory_pair(agent, client) if transport == "memory" else over_acpremote(agent, client)
    async with pair as conn:
        assert await prompt_once(conn) == "end_turn"
    assert outcomes == [EXPECTED]
    assert "accepted langs=[<Lang.PY: 'py'>, <Lang.RS: 'rs'>] custom='Zig'; target=[] custom='staging'" in "".join(
        client.texts()
    )
    ((message, mode),) = client.requests
    assert message == "Please answer 2 questions"
    schema = mode.requested_schema
    assert list(schema.properties or {}) == ["langs", "langs_custom", "target", "target_custom"]
    assert (schema.properties or {})["target_custom"].field_meta == {
        "nbacp/customFor": "target",
        "jetbrains": {"air": {"customAnswer": {"questionId": "target", "isCustomAnswer": True}}},
    }


async def test_pydantic_acp_tool_sees_decline_and_invalid_replies() -> None:
    outcomes: list[Outcome] = []
    client = ReplyingClient([{"action": "decline"}, {"action": "accept", "content": {"target": "target_0"}}])
    async with in_memory_pair(pydantic_question_agent(QUESTIONS, outcomes=outcomes), client) as conn:
        await prompt_once(conn)
        await prompt_once(conn)
    declined, invalid = outcomes
    assert declined == QuestionsDeclined()
    assert isinstance(invalid, InvalidQuestionResponseError) and invalid.question_id == "langs"  # required, unanswered


async def test_pydantic_acp_checks_capabilities_first() -> None:
    outcomes: list[Outcome] = []
    client = ReplyingClient([])
    async with in_memory_pair(pydantic_question_agent(QUESTIONS, outcomes=outcomes), client, NO_ELICITATION) as conn:
        await prompt_once(conn)
    (outcome,) = outcomes
    assert isinstance(outcome, ElicitationNotSupportedError)
    assert client.requests == []


async def test_schema_agent_sends_claude_encoding_and_reports_the_reply() -> None:
    message, schema = claude_question_schema(
        [
            {
                "question": "Which?",
                "header": "Pick",
                "multiSelect": True,
                "options": [{"label": "Alpha", "description": "first", "preview": "a.txt"}, {"label": "Beta"}],
            },
        ]
    )
    reply = {"action": "accept", "content": {"question_0": ["Alpha"], "question_0_custom": "gamma"}}
    client = ReplyingClient([reply])
    async with in_memory_pair(SchemaAgent(message, schema), client) as conn:
        await prompt_once(conn)
    ((sent_message, mode),) = client.requests
    assert sent_message == "Which?"
    sent = mode.requested_schema.model_dump(mode="json", by_alias=True, exclude_none=True)["properties"]
    assert sent["question_0"]["items"]["anyOf"][0] == {
        "const": "Alpha",
        "title": "Alpha",
        "description": "first",
        "_meta": {"_claude/askUserQuestionOption": {"preview": "a.txt"}},
    }
    assert sent["question_0_custom"]["_meta"]["jetbrains"]["air"]["customAnswer"]["questionId"] == "question_0"
    assert json.loads(client.texts()[0]) == reply
