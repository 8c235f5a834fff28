"""What the SDK's typed API hides, read from the raw JSON-RPC stream of one connection.

SDK 0.12 gives a client handler no JSON-RPC request id and drops unknown response fields, but
its connection lets observers see every raw message (``Connection.add_observer``). One tap:
- remembers the id of each incoming request in a context variable, which the SDK copies into
  the task it starts for that request, so a card knows the request it answers;
- turns ``$/cancel_request {requestId}`` (the agent withdrew a request, e.g. codex-acp after its
  ``autoResolutionMs``) into closing that request's open card as cancelled;
- keeps the ``models`` field (``{currentModelId, availableModels}``) of session/new, load,
  resume and fork responses, which the SDK's response models drop.
"""

from __future__ import annotations

import contextvars
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acp.client.connection import ClientSideConnection
    from acp.connection import StreamEvent

    from nbacp.client.handler import NotebookClient

log = logging.getLogger(__name__)
_REQUEST_ID: contextvars.ContextVar[Any] = contextvars.ContextVar("nbacp_request_id", default=None)
SESSION_METHODS = ("session/new", "session/load", "session/resume", "session/fork")
CANCEL_REQUEST = "$/cancel_request"


def current_request_id() -> Any:
    """The JSON-RPC id of the agent request being handled in this task, or None."""
    return _REQUEST_ID.get()


class RawTap:
    """The observer installed on every connection; see the module docstring."""

    def __init__(self, client: NotebookClient) -> None:
        self.client = client
        self.models: dict[str, Any] = {}
        self._outgoing: dict[Any, tuple[str, Any]] = {}

    def __call__(self, event: StreamEvent) -> None:
        message = event.message
        method = message.get("method")
        if event.direction.value == "outgoing":
            if method in SESSION_METHODS and "id" in message:
                params = message.get("params") or {}
                self._outgoing[message["id"]] = (method, params.get("sessionId"))
            return
        if method is not None:
            # runs in the receive loop, right before the SDK starts the handler task
            _REQUEST_ID.set(message.get("id") if "id" in message else None)
            if method == CANCEL_REQUEST:
                params = message.get("params") or {}
                if isinstance(params, dict) and "requestId" in params:
                    self.client.cancel_request(params["requestId"])
            return
        sent = self._outgoing.pop(message.get("id"), None)
        result = message.get("result")
        if sent is not None and isinstance(result, dict) and isinstance(result.get("models"), dict):
            session_id = result.get("sessionId") or sent[1]
            if isinstance(session_id, str):
                self.models[session_id] = result["models"]


def install(agent: ClientSideConnection, client: NotebookClient) -> RawTap:
    """Observe ``agent``'s raw stream, and answer ``$/`` protocol notifications without a traceback."""
    tap = RawTap(client)
    raw = agent._conn  # the SDK's JSON-RPC connection; add_observer is its public hook
    raw.add_observer(tap)
    handler = raw._handler

    async def handle(method: str, params: Any, is_notification: bool) -> Any:
        if is_notification and isinstance(method, str) and method.startswith("$/"):
            return None  # handled by the tap (cancel) or optional by JSON-RPC convention
        return await handler(method, params, is_notification)

    raw._handler = handle
    return tap
