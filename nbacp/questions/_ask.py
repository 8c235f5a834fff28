"""Send the compiled form through whatever session the agent has and read the reply."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, Protocol, TypeAlias, TypeVar

from acp.schema import (
    ClientCapabilities,
    CreateElicitationResponse,
    ElicitationFormRequestMode,
    ElicitationFormSessionMode,
    ElicitationMode,
    ElicitationUrlRequestMode,
    ElicitationUrlSessionMode,
)
from pydantic import ValidationError

from nbacp.client.wire import sdk_connection
from nbacp.errors import ElicitationNotSupportedError, InvalidQuestionResponseError
from nbacp.questions._reply import check_fallback, parse_response
from nbacp.questions._types import Question, QuestionsResult
from nbacp.questions._wire import compile_questions

T = TypeVar("T")

QuestionsFallback: TypeAlias = Callable[[], "QuestionsResult[T] | Awaitable[QuestionsResult[T]]"]


class ElicitationSession(Protocol):
    """What ask_questions needs; ACP Kit's AcpSessionContext has exactly this shape."""

    @property
    def session_id(self) -> str: ...

    def supports_elicitation(self, mode: ElicitationMode) -> bool: ...

    async def create_elicitation(self, message: str, mode: ElicitationMode) -> CreateElicitationResponse: ...


class ElicitingConnection(Protocol):
    """The agent side of a raw acp connection (``acp.AgentSideConnection``, given to ``on_connect``)."""

    async def create_elicitation(self, message: str, mode: ElicitationMode, **kwargs: Any) -> Any: ...


class AgentConnectionSession:
    """Adapts a raw acp agent-side connection to the session shape ask_questions takes.

    ``client_capabilities`` is what the client sent in ``initialize`` (a model or its wire dict);
    keep it from there, because the connection itself does not remember it.
    """

    def __init__(
        self,
        conn: ElicitingConnection,
        session_id: str,
        client_capabilities: ClientCapabilities | Mapping[str, Any] | None,
    ) -> None:
        self._conn = conn
        self._session_id = session_id
        if isinstance(client_capabilities, Mapping):
            client_capabilities = ClientCapabilities.model_validate(dict(client_capabilities))
        self.client_capabilities = client_capabilities

    @property
    def session_id(self) -> str:
        return self._session_id

    def supports_elicitation(self, mode: ElicitationMode | Literal["form", "url"]) -> bool:
        elicitation = self.client_capabilities.elicitation if self.client_capabilities else None
        if elicitation is None:
            return False
        if mode == "form" or isinstance(mode, ElicitationFormSessionMode | ElicitationFormRequestMode):
            return elicitation.form is not None
        if mode == "url" or isinstance(mode, ElicitationUrlSessionMode | ElicitationUrlRequestMode):
            return elicitation.url is not None
        return False

    async def create_elicitation(self, message: str, mode: ElicitationMode) -> CreateElicitationResponse:
        if not self.supports_elicitation(mode):
            raise ElicitationNotSupportedError("the connected ACP client does not support this elicitation mode")
        if sdk_connection.has_json_rpc(self._conn):
            # raw, so that nbacp checks the reply itself on both SDK lines: SDK 1.0's typed reply
            # refuses some replies (and accepts one without "action") before nbacp can name the
            # question (docs/protocol.md, 'Two SDK lines')
            kind = "form" if isinstance(mode, ElicitationFormSessionMode | ElicitationFormRequestMode) else "url"
            wire = mode.model_dump(mode="json", by_alias=True, exclude_none=True)
            params = {"mode": kind, "message": message, **wire}
            raw: Any = await sdk_connection.send_request(self._conn, "elicitation/create", params)
            return raw  # type: ignore[no-any-return]
        response: CreateElicitationResponse = await self._conn.create_elicitation(message=message, mode=mode)
        return response


async def ask_questions(
    session: ElicitationSession,
    questions: Sequence[Question[T]],
    *,
    message: str | None = None,
    fallback: QuestionsFallback[T] | None = None,
) -> QuestionsResult[T]:
    """Ask one form of typed questions; return accepted typed answers, declined, or cancelled.

    Raises ElicitationNotSupportedError when the client lacks form elicitation and there is no
    ``fallback``; InvalidQuestionResponseError when the reply breaks the questions' rules;
    InvalidQuestionFallbackError when the fallback reports an answer that was not possible.
    """
    questions = tuple(questions)
    compiled = compile_questions(questions, message)
    mode = ElicitationFormSessionMode(session_id=session.session_id, requested_schema=compiled.schema)
    if not session.supports_elicitation(mode):
        if fallback is None:
            raise ElicitationNotSupportedError("the connected ACP client does not support form elicitation")
        outcome: object = fallback()
        if inspect.isawaitable(outcome):
            outcome = await outcome
        return check_fallback(outcome, questions)
    try:
        response = await session.create_elicitation(compiled.message, mode)
    except ValidationError as exc:
        # acp validates the reply envelope before we see it; a malformed one is the client's fault.
        raise InvalidQuestionResponseError(f"the client's reply is not an elicitation response: {exc}") from exc
    return parse_response(response, questions, compiled)
