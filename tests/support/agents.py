"""Real ACP peers for tests: agents that ask questions, a client that answers from a script.

Reusable by client tests: ``pydantic_question_agent`` (ACP Kit + FunctionModel, asks through
``RunContext[AcpSessionContext]``), ``QuestionsAgent`` (raw acp agent using
AgentConnectionSession), ``SchemaAgent`` (sends any given schema, e.g. claude-agent-acp's
AskUserQuestion encoding from ``claude_question_schema``, and reports the reply it got as an
agent_message_chunk), ``ReplyingClient`` and ``in_memory_pair``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from acp import PROTOCOL_VERSION, connect_to_agent
from acp._transport import memory_transport_pair
from acp.agent.connection import AgentSideConnection
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ElicitationFormSessionMode,
    ElicitationMode,
    ElicitationSchema,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    RequestPermissionResponse,
)
from support.sdk_line import HAS_ACP_KIT, require_acp_kit

if HAS_ACP_KIT:  # not on SDK 1.x (support/sdk_line.py): the ACP Kit helpers below skip there
    from pydantic_acp import AcpSessionContext, create_acp_agent
    from pydantic_ai import Agent, RunContext
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
from support.builders import text_block, update_agent_message

from nbacp.questions import (
    AgentConnectionSession,
    ElicitationNotSupportedError,
    InvalidQuestionFallbackError,
    InvalidQuestionResponseError,
    Question,
    QuestionsAccepted,
    QuestionsFallback,
    QuestionsResult,
    ask_questions,
)

FORM_CAPABILITIES = ClientCapabilities(elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()))
NO_ELICITATION = ClientCapabilities()

Outcome = QuestionsResult[Any] | Exception
_ASK_ERRORS = (InvalidQuestionResponseError, InvalidQuestionFallbackError, ElicitationNotSupportedError)


def describe(outcome: Outcome) -> str:
    """Deterministic one-line text of an ask's outcome, for agents to send back as a message."""
    if isinstance(outcome, Exception):
        qid = getattr(outcome, "question_id", None)
        return f"error {type(outcome).__name__} question={qid}: {outcome}"
    if isinstance(outcome, QuestionsAccepted):
        parts = [f"{qid}=[{', '.join(map(repr, a.values))}] custom={a.custom!r}" for qid, a in outcome.answers.items()]
        return "accepted " + "; ".join(parts)
    return outcome.status


# ---------------------------------------------------------------- client side


Reply = dict[str, Any] | Any
Responder = Callable[[str, ElicitationMode], Reply | Awaitable[Reply]]


class ReplyingClient:
    """An acp.Client that answers each elicitation from ``replies`` (raw wire dicts pass unchanged).

    ``replies`` is a list consumed in order or a callable(message, mode). Everything the agent
    sends is recorded, so tests can assert on the wire the agent produced.
    """

    def __init__(self, replies: Sequence[Reply] | Responder) -> None:
        self._replies = replies if callable(replies) else list(replies)
        self.requests: list[tuple[str, ElicitationMode]] = []
        self.updates: list[Any] = []

    async def create_elicitation(self, message: str, mode: ElicitationMode, **kwargs: Any) -> Reply:
        self.requests.append((message, mode))
        if callable(self._replies):
            reply = self._replies(message, mode)
            return await reply if isinstance(reply, Awaitable) else reply
        if not self._replies:
            raise AssertionError("the agent asked more often than the test expected")
        return self._replies.pop(0)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    def texts(self) -> list[str]:
        """The agent's message chunks, in order."""
        return [u.content.text for u in self.updates if getattr(u, "session_update", "") == "agent_message_chunk"]

    async def request_permission(self, options: Any, session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        return RequestPermissionResponse.model_validate({"outcome": {"outcome": "cancelled"}})

    async def read_text_file(self, path: str, session_id: str, **kwargs: Any) -> Any:
        raise NotImplementedError("test client has no file system")

    async def write_text_file(self, content: str, path: str, session_id: str, **kwargs: Any) -> Any:
        raise NotImplementedError("test client has no file system")


@asynccontextmanager
async def in_memory_pair(
    agent: Any, client: Any, capabilities: ClientCapabilities = FORM_CAPABILITIES
) -> AsyncIterator[ClientSideConnection]:
    """Connect ``client`` to ``agent`` in process and initialize; yields the client connection.

    The client side registers the unstable routes, which ``elicitation/create`` needs.
    """
    agent_end, client_end = memory_transport_pair()
    agent_conn = AgentSideConnection(agent, agent_end)
    client_conn = connect_to_agent(client, client_end, use_unstable_protocol=True)
    try:
        await client_conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities)
        yield client_conn
    finally:
        await client_conn.close()
        await agent_conn._conn.close()


# ---------------------------------------------------------------- raw acp agents


class RawAgent:
    """The parts of acp.Agent every raw test agent shares."""

    def __init__(self) -> None:
        self.conn: Any = None
        self.client_capabilities: ClientCapabilities | None = None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: ClientCapabilities | None = None, **kwargs: Any
    ) -> InitializeResponse:
        self.client_capabilities = client_capabilities
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=AgentCapabilities())

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id=f"sess-{uuid.uuid4().hex[:8]}")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None

    async def _say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(session_id=session_id, update=update_agent_message(text_block(text)))


class ChunkingAgent(RawAgent):
    """Each prompt streams ``chunks`` as agent message chunks, then ends the turn."""

    def __init__(self, chunks: Sequence[str]) -> None:
        super().__init__()
        self.chunks = list(chunks)

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        for text in self.chunks:
            await self._say(session_id, text)
        return PromptResponse(stop_reason="end_turn")


class QuestionsAgent(RawAgent):
    """Each prompt asks ``questions`` via AgentConnectionSession, keeps the outcome, says describe()."""

    def __init__(
        self,
        questions: Sequence[Question[Any]],
        *,
        message: str | None = None,
        fallback: QuestionsFallback[Any] | None = None,
    ) -> None:
        super().__init__()
        self.questions = list(questions)
        self.message = message
        self.fallback = fallback
        self.outcomes: list[Outcome] = []

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        session = AgentConnectionSession(self.conn, session_id, self.client_capabilities)
        outcome: Outcome
        try:
            outcome = await ask_questions(session, self.questions, message=self.message, fallback=self.fallback)
        except _ASK_ERRORS as exc:
            outcome = exc
        self.outcomes.append(outcome)
        await self._say(session_id, describe(outcome))
        return PromptResponse(stop_reason="end_turn")


class SchemaAgent(RawAgent):
    """Each prompt sends ``message`` + ``schema`` as a form elicitation and says the reply as JSON."""

    def __init__(self, message: str, schema: dict[str, Any]) -> None:
        super().__init__()
        self.message = message
        self.schema = ElicitationSchema.model_validate(schema)
        self.replies: list[Any] = []

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        mode = ElicitationFormSessionMode(session_id=session_id, requested_schema=self.schema)
        reply = await self.conn.create_elicitation(message=self.message, mode=mode)
        self.replies.append(reply)
        wire = reply.model_dump(mode="json", by_alias=True, exclude_none=True)
        await self._say(session_id, json.dumps(wire, sort_keys=True))
        return PromptResponse(stop_reason="end_turn")


def claude_question_schema(questions: Sequence[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """claude-agent-acp's AskUserQuestion encoding: ``question_<n>`` (const = label) + ``question_<n>_custom``.

    Each question is ``{"question", "header", "options": [{"label", "description", "preview"?}],
    "multiSelect"}``. Returns (message, schema); nothing is required, as upstream does.
    """
    properties: dict[str, Any] = {}
    for n, q in enumerate(questions):
        options = []
        for opt in q["options"]:
            option: dict[str, Any] = {"const": opt["label"], "title": opt["label"]}
            if opt.get("description"):
                option["description"] = opt["description"]
            if opt.get("preview"):
                option["_meta"] = {"_claude/askUserQuestionOption": {"preview": opt["preview"]}}
            options.append(option)
        choice: dict[str, Any] = {"title": q.get("header") or q["question"]}
        if len(questions) > 1:
            choice["description"] = q["question"]
        if q.get("multiSelect"):
            choice |= {"type": "array", "items": {"anyOf": options}}
        else:
            choice |= {"type": "string", "oneOf": options}
        properties[f"question_{n}"] = choice
        marker = {"questionId": f"question_{n}", "isCustomAnswer": True}
        properties[f"question_{n}_custom"] = {
            "type": "string",
            "title": "Other",
            "_meta": {"jetbrains": {"air": {"customAnswer": marker}}, "_askUserQuestionCustomAnswer": marker},
        }
    message = questions[0]["question"] if len(questions) == 1 else "Please answer the questions"
    return message, {"type": "object", "properties": properties}


# ---------------------------------------------------------------- ACP Kit (pydantic-acp) agent


def pydantic_question_agent(
    questions: Sequence[Question[Any]],
    *,
    message: str | None = None,
    fallback: QuestionsFallback[Any] | None = None,
    outcomes: list[Outcome] | None = None,
) -> Any:
    """An ACP Kit agent whose FunctionModel calls one tool that asks ``questions`` through ctx.deps.

    The tool appends the typed outcome to ``outcomes`` and the model's final text is describe(outcome).
    """
    require_acp_kit()
    sink = outcomes if outcomes is not None else []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returned = [
            part.content
            for part in getattr(messages[-1], "parts", [])
            if isinstance(part, ToolReturnPart) and part.tool_name == "ask_user"
        ]
        if returned:
            return ModelResponse(parts=[TextPart(content=str(returned[0]))])
        return ModelResponse(parts=[ToolCallPart(tool_name="ask_user", args={})])

    agent: Agent[AcpSessionContext, str] = Agent(FunctionModel(model), deps_type=AcpSessionContext, name="asker")

    @agent.tool
    async def ask_user(ctx: RunContext[AcpSessionContext]) -> str:
        """Ask the person the configured questions."""
        outcome: Outcome
        try:
            outcome = await ask_questions(ctx.deps, questions, message=message, fallback=fallback)
        except _ASK_ERRORS as exc:
            outcome = exc
        sink.append(outcome)
        return describe(outcome)

    return acp_kit_agent(agent)


def acp_kit_agent(agent: Agent[AcpSessionContext, str]) -> Any:
    """Serve a pydantic-ai agent through ACP Kit, with the ACP session itself as its deps."""
    require_acp_kit()

    class _Source:
        async def get_agent(self, session: AcpSessionContext) -> Agent[AcpSessionContext, str]:
            return agent

        async def get_deps(self, session: AcpSessionContext, agent: Any) -> AcpSessionContext:
            return session

    return create_acp_agent(agent_source=_Source())
