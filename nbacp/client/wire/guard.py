"""Every message from the agent checked before nbacp acts on it; every request answered.

The SDK's JSON-RPC ``Connection`` (acp 0.12) has four holes a broken or hostile agent can use
(docs/protocol.md, 'SDK 0.12 pitfalls'); the guard closes them on each connection
instance, without touching the SDK's files:

- Invalid params: the SDK answers a pydantic ``ValidationError`` with an error object that
  carries pydantic's error list, which is not JSON serialisable: over stdio and websocket
  the reply is never sent and the agent waits forever. The guard's dispatch turns every
  failure into a ``RequestError`` whose data is plain JSON (-32602 naming the problem).
- ``_meta`` shadowing: the SDK spreads the request's ``_meta`` keys into the handler's
  keyword arguments, so ``"_meta": {"message": 5}`` replaces the validated message. The
  guard removes ``_meta`` before routing; handlers read it with ``request_meta()``.
- Malformed frames: a frame that is not a JSON-RPC object (``[1,2,3]``, ``"hello"``) makes the
  SDK's receive loop raise, which ends the connection. The guard drops it with a note.
- Tracebacks in the cell: the SDK logs failures with ``logging.exception`` on the root
  logger; in a kernel that prints a traceback into whichever cell runs. Records from the SDK
  made inside a connection's tasks go to that connection's ``ConnectionLog`` as one line.

- Schema extensions: the SDK's models drop ``_``-prefixed keys from a requested schema (codex
  marks secret fields with a property-level ``_meta``), and SDK 1.0 refuses unknown string
  formats. The guard keeps the raw schema for the handler (``request_schema()``) and hands
  the SDK a copy without those formats (``sdk_compat.clean_elicitation``).

It also applies the budgets (``nbacp.client.wire.budget``) and makes agent text safe for the
comm before any handler sees it, in requests, notifications and replies alike, remembering
the raw strings so that answers carry the agent's own values (``nbacp.client.wire.ledger``).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from acp import RequestError
from acp.schema import AgentMessageChunk, AgentThoughtChunk, TextContentBlock
from pydantic import ValidationError

from nbacp.client.wire import frames, sdk_compat, sdk_connection
from nbacp.client.wire.budget import PERMISSION, Budget, clean_and_measure, duplicate_option_problem
from nbacp.client.wire.connection_log import ConnectionLog
from nbacp.client.wire.ledger import TextLedger
from nbacp.client.wire.old_names import OLD_NAMES, current_params, old_reply
from nbacp.client.wire.sdk_connection import Router
from nbacp.render.safe_text import SurrogateJoiner, comm_safe

if TYPE_CHECKING:
    from acp.client.connection import ClientSideConnection

    from nbacp.client.wire.transports.links import RemoteLimits

log = logging.getLogger(__name__)

_REQUEST_META: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("nbacp_meta", default=None)
_REQUEST_SCHEMA: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("nbacp_schema", default=None)
ELICITATION = "elicitation/create"
_CHUNKS = {"agent_message_chunk": AgentMessageChunk, "agent_thought_chunk": AgentThoughtChunk}
MAX_ERRORS_SHOWN = 5


class UpdateSink(Protocol):
    """Where the guard hands text it held back (half an emoji) at turn end: the ACP client."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None: ...


def request_meta() -> dict[str, Any] | None:
    """The ``_meta`` object of the request being handled (never spread into parameters)."""
    return _REQUEST_META.get()


def request_schema() -> dict[str, Any] | None:
    """The raw ``requestedSchema`` of the ``elicitation/create`` being handled, ``_meta`` keys included."""
    return _REQUEST_SCHEMA.get()


def validation_problem(exc: ValidationError) -> dict[str, Any]:
    """Plain-JSON data for -32602: a sentence naming the problem, and the first few errors."""
    errors = exc.errors(include_url=False, include_context=False, include_input=False)
    shown = []
    for err in errors[:MAX_ERRORS_SHOWN]:
        where = ".".join(comm_safe(str(part)) for part in err.get("loc", ())) or "params"
        shown.append({"loc": where, "msg": str(err.get("msg", "")), "type": str(err.get("type", ""))})
    first = f"{shown[0]['loc']}: {shown[0]['msg']}" if shown else "invalid parameters"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return {"details": f"Invalid params: {first}{more}", "errors": shown}


def _json_safe(data: Any) -> Any:
    """Error data reduced to what ``json.dumps`` accepts (anything else becomes its str)."""
    try:
        json.dumps(data)
        return data
    except (TypeError, ValueError):
        return json.loads(json.dumps(data, default=str, skipkeys=True))


class Guard:
    """Installed on one ``ClientSideConnection``: checks, cleans and answers every incoming message."""

    def __init__(
        self,
        client: UpdateSink,
        conn_log: ConnectionLog,
        budget: Budget | None = None,
        *,
        routes: Mapping[str, Router] | None = None,
    ) -> None:
        self.client = client
        # Methods the SDK defines but does not route (the kernel tools' ``mcp/*`` over ACP): the
        # session layer passes their handlers in, so this wire layer never imports it.
        self.routes: dict[str, Router] = dict(routes or {})
        self.log = conn_log
        self.budget = budget or Budget()
        self.ledger = TextLedger(note=conn_log.note)
        self._joiner = SurrogateJoiner()
        self.limits: RemoteLimits | None = None  # websocket size limits, for disconnect reasons

    # -- installing ---------------------------------------------------------------------
    def install(self, agent: ClientSideConnection) -> None:
        """Wrap the connection's dispatch, frame processing and transport (once per connection)."""
        if not sdk_connection.claim(agent, "_nbacp_guard", self):
            return
        sdk_connection.wrap_dispatch(agent, self._dispatcher)
        sdk_connection.wrap_receive(agent, lambda process: self._frame_checker(agent, process))
        frames.install(agent, self.log)
        frames.install_paced(agent, self.ledger)

    # -- frames -------------------------------------------------------------------------
    def _frame_checker(self, agent: Any, process: Callable[[Any], None]) -> Callable[[Any], None]:
        def checked(message: Any) -> None:
            problem = _frame_problem(message)
            if problem is None:
                if "method" not in message:
                    self._take_reply(message)
                process(message)
                return
            self.log.note(f"Dropped a message from the agent: {problem}: {_preview(message)}")
            if isinstance(message, dict) and _usable_id(message.get("id")) and "method" in message:
                payload = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32600, "message": problem}}
                sdk_connection.send_soon(agent, payload, "nbacp.guard.invalid_request")

        return checked

    def _take_reply(self, message: dict[str, Any]) -> None:
        """A reply to nbacp's request: cleaned like any message, checked for size (over it, the
        caller gets an error instead), and its lists cut to their budgets with a note."""
        if isinstance(message.get("error"), dict):
            message["error"], _ = clean_and_measure(message["error"], self.ledger.clean)
        if "result" not in message:
            return
        result, shape = clean_and_measure(message["result"], self.ledger.clean)
        problem = self.budget.check("", {}, shape, request=True)
        if problem is not None:
            self.log.note(f"Refused a reply from the agent: over the size budget: {problem}")
            del message["result"]
            message["error"] = {"code": -32603, "message": f"The agent's reply is over the size budget: {problem}"}
            return
        message["result"] = result
        for note in self.budget.trim(result):
            self.log.note(f"Cut a reply from the agent: {note}")

    # -- requests and notifications -------------------------------------------------------
    def _dispatcher(self, router: Router) -> Router:
        async def dispatch(method: str, params: Any, is_notification: bool) -> Any:
            try:
                current = OLD_NAMES.get(method)
                if current is not None:  # an old bridge's name: answered as the current method
                    result = await self._dispatch(router, current, current_params(method, params), is_notification)
                    return old_reply(method, result)
                return await self._dispatch(router, method, params, is_notification)
            except RequestError as exc:
                exc.data = _json_safe(exc.data)
                self.log.note(f"Answered {method} with error {exc.code}: {_error_text(exc)}")
                if is_notification:
                    return None
                raise
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a bug or an SDK failure: one line, and a JSON-RPC error
                self.log.note(f"{method} failed: {type(exc).__name__}: {exc}")
                if is_notification:
                    return None
                raise RequestError.internal_error({"details": comm_safe(f"{type(exc).__name__}: {exc}")}) from None

        return dispatch

    async def _dispatch(self, router: Router, method: str, params: Any, is_notification: bool) -> Any:
        if params is not None and not isinstance(params, dict):
            raise RequestError.invalid_params({"details": "params must be a JSON object"})
        meta = None
        if isinstance(params, dict):
            if not method.startswith("_"):  # extension methods get their payload whole, _meta included
                meta = params.pop("_meta", None)
            if method == "session/update":
                self._join_chunk(params)
            params, shape = clean_and_measure(params, self.ledger.clean)
            problem = self.budget.check(method, params, shape, request=not is_notification)
            if problem is not None:
                raise RequestError.invalid_params({"details": f"Over the size budget: {problem}"})
            if method == "session/update":
                for note in self.budget.trim(params.get("update")):
                    self.log.note(f"Cut an update from the agent: {note}")
            if method == PERMISSION and (problem := duplicate_option_problem(params)) is not None:
                raise RequestError.invalid_params({"details": f"Invalid params: {problem}"})
        schema = None
        if method == ELICITATION and isinstance(params, dict) and isinstance(params.get("requestedSchema"), dict):
            schema = params["requestedSchema"]  # as sent: clean_elicitation leaves it and changes params
            sdk_compat.clean_elicitation(params)
        token = _REQUEST_META.set(meta if isinstance(meta, dict) else None)
        schema_token = _REQUEST_SCHEMA.set(schema)
        try:
            route = self.routes.get(method, router)  # mcp/*: the SDK defines but does not route these
            return await route(method, params, is_notification)
        except ValidationError as exc:
            if method == "session/update" and is_notification and _unknown_update(exc, params):
                # a type outside the SDK's schema (subagent_update, session_message, and on 0.12
                # notice and the compaction updates): the client reads the raw JSON, and shows a kind
                # it does not know as one line, never a validation error (docs/record.md, 'Updates')
                await self.client.session_update(params["sessionId"], params["update"])
                return None
            raise RequestError.invalid_params(validation_problem(exc)) from None
        finally:
            _REQUEST_SCHEMA.reset(schema_token)
            _REQUEST_META.reset(token)

    # -- streamed text ------------------------------------------------------------------
    def _join_chunk(self, params: dict[str, Any]) -> None:
        update = params.get("update")
        if not isinstance(update, dict) or update.get("sessionUpdate") not in _CHUNKS:
            return
        content = update.get("content")
        if not isinstance(content, dict) or content.get("type") != "text" or not isinstance(content.get("text"), str):
            return
        key = (str(params.get("sessionId")), update["sessionUpdate"], str(update.get("messageId")))
        content["text"] = self._joiner.feed(key, content["text"])

    async def end_turn(self, session_id: str) -> None:
        """A half emoji still held back at turn end is shown as U+FFFD, so no text is lost silently."""
        for key in self._joiner.held():
            if key[0] != session_id:
                continue
            text = self._joiner.flush(key)
            message_id = None if key[2] == "None" else key[2]
            update = _CHUNKS[key[1]](
                session_update=key[1], content=TextContentBlock(type="text", text=text), message_id=message_id
            )
            await self.client.session_update(session_id, update)


def _unknown_update(exc: ValidationError, params: Any) -> bool:
    """True when the only problem is an update type the SDK does not know (a well-formed notification)."""
    if not isinstance(params, dict) or not isinstance(params.get("sessionId"), str):
        return False
    update = params.get("update")
    if not isinstance(update, dict) or not isinstance(update.get("sessionUpdate"), str):
        return False
    errors = exc.errors(include_url=False, include_context=False, include_input=False)
    return bool(errors) and all(
        e.get("type") == "union_tag_invalid" and tuple(e.get("loc", ())) == ("update",) for e in errors
    )


def _usable_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _frame_problem(message: Any) -> str | None:
    """Why ``message`` is not a JSON-RPC message the SDK can process, or None."""
    if not isinstance(message, dict):
        return f"not a JSON object ({type(message).__name__})"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "method is not a string"
        if "id" in message and not _usable_id(message["id"]):
            return "request id is not a string or an integer"
        return None
    if "id" in message:
        if not _usable_id(message["id"]):
            return "response id is not a string or an integer"
        error = message.get("error")
        if "result" not in message and error is not None and not isinstance(error, dict):
            return "error is not an object"
        return None
    return "neither a request, a notification nor a response"


def _preview(message: Any, limit: int = 120) -> str:
    text = repr(message)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _error_text(exc: RequestError) -> str:
    details = exc.data.get("details") if isinstance(exc.data, dict) else None
    return f"{exc} ({details})" if details else str(exc)
