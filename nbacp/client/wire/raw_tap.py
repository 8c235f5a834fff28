"""What the SDK's typed API hides, read from the JSON-RPC stream of one connection.

SDK 0.12 gives a client handler no JSON-RPC request id, routes no ``$/`` notification, and
drops unknown response fields. Two thin wrappers on the SDK's JSON-RPC connection fix that:
- every incoming message passes ``RawTap.incoming`` first, in the receive loop, right before
  the SDK starts the task that handles it: the request's id goes into a context variable,
  which that task inherits, so a card knows the request it answers; ``$/cancel_request
  {requestId}`` (the agent withdrew a request, e.g. codex-acp after its ``autoResolutionMs``)
  closes that request's open card as cancelled, and ``$/`` notifications stop there
  (optional by JSON-RPC convention; the SDK would log "Method not found" with a traceback);
- ``send_request`` keeps the ``models`` field (``{currentModelId, availableModels}``) of
  session/new, load, resume and fork results, which the SDK's response models drop, and the
  raw ``authMethods`` of ``initialize``, which SDK 1.0 misparses (docs/protocol.md, 'Two SDK lines'),
  and adds to the outgoing ``initialize`` the client capabilities the SDK's model drops
  (``subagents``, ``session.notices``, ``session.compaction``: ``sdk_compat.add_capabilities``).
The SDK's public observer hook would also see these messages, but it deep-copies every
message in both directions for every observer; these wrappers copy nothing.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from nbacp.client.wire import sdk_compat, sdk_connection

if TYPE_CHECKING:
    from acp.client.connection import ClientSideConnection

log = logging.getLogger(__name__)
_REQUEST_ID: contextvars.ContextVar[Any] = contextvars.ContextVar("nbacp_request_id", default=None)
SESSION_METHODS = ("session/new", "session/load", "session/resume", "session/fork")
CANCEL_REQUEST = "$/cancel_request"


def current_request_id() -> Any:
    """The JSON-RPC id of the agent request being handled in this task, or None."""
    return _REQUEST_ID.get()


class RawTap:
    """What ``install`` puts on a connection; see the module docstring."""

    def __init__(self, cancel_request: Callable[[Any], object]) -> None:
        self.cancel_request = cancel_request  # the client's: closes the card answering that request
        self.models: dict[str, Any] = {}
        self.auth_methods: list[Any] | None = None  # initialize's authMethods, as sent

    def incoming(self, message: Any) -> bool:
        """Look at one incoming message; False when it is a ``$/`` notification handled here."""
        if not isinstance(message, dict):
            return True
        method = message.get("method")
        if method is None:
            return True
        _REQUEST_ID.set(message.get("id") if "id" in message else None)
        if "id" in message or not isinstance(method, str) or not method.startswith("$/"):
            return True
        params = message.get("params")
        if method == CANCEL_REQUEST and isinstance(params, dict) and _request_id(params.get("requestId")):
            self.cancel_request(params["requestId"])
        return False

    def result(self, method: str, params: Any, result: Any) -> None:
        if method == "initialize" and isinstance(result, dict) and isinstance(result.get("authMethods"), list):
            self.auth_methods = [m for m in result["authMethods"] if isinstance(m, dict)]
        if method in SESSION_METHODS and isinstance(result, dict) and isinstance(result.get("models"), dict):
            session_id = result.get("sessionId") or (params or {}).get("sessionId")
            if isinstance(session_id, str):
                self.models[session_id] = result["models"]


def _request_id(value: Any) -> bool:
    """Only a JSON-RPC id (string or integer) can name a request; any other shape (an object, a list,
    which cannot even be a dictionary key) names none, so the notification is ignored."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def install(
    agent: ClientSideConnection, cancel_request: Callable[[Any], object], capabilities: dict[str, Any] | None = None
) -> RawTap:
    """Wrap ``agent``'s JSON-RPC connection (its receive step and ``send_request``) with a RawTap.

    ``cancel_request`` is called with the id of each request the agent withdraws; ``capabilities``
    are merged into the ``clientCapabilities`` of ``initialize`` as raw JSON.
    """
    tap = RawTap(cancel_request)

    def tapped_receive(process: Callable[[Any], None]) -> Callable[[Any], None]:
        def process_message(message: Any) -> None:
            if tap.incoming(message):
                process(message)

        return process_message

    def tapped_send(send_request: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def send(method: str, params: Any = None) -> Any:
            if method == "initialize" and capabilities and isinstance(params, dict):
                sdk_compat.add_capabilities(params, capabilities)
            result = await send_request(method, params)
            tap.result(method, params, result)
            return result

        return send

    sdk_connection.wrap_receive(agent, tapped_receive)
    sdk_connection.wrap_send_request(agent, tapped_send)
    return tap
