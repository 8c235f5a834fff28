"""The client's replies and requests as ACP writes them: built here, once, and nowhere else.

A reply to a card is serialised once: ``Reply.check`` dumps the response to JSON (as the SDK
would), measures it against the transport's limit while the card is still open, and keeps the
dump; the handler then returns that dict, which the SDK's ``normalize_result`` passes through
unchanged. A terminal's end is ACP's ``exitCode`` / ``signal`` pair; ``session/set_model``,
which neither SDK line types any more, is sent as plain params.
"""

from __future__ import annotations

from typing import Any

from acp.schema import TerminalExitStatus, TerminalOutputResponse, WaitForTerminalExitResponse

from nbacp.client.wire.budget import outgoing_size
from nbacp.render.exit_status import ExitStatus


def dump(response: Any) -> dict[str, Any]:
    """A pydantic response as the SDK writes it (by alias, no None), or a dict as it is."""
    if isinstance(response, dict):
        return response
    return response.model_dump(mode="json", by_alias=True, exclude_none=True)  # type: ignore[no-any-return]


class Reply:
    """One card's reply: measured against the transport's limit and serialised once."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self._response: Any = None
        self._dumped: dict[str, Any] | None = None

    def check(self, response: Any) -> str | None:
        """Why ``response`` cannot go in one message of the transport, or None (its dump is kept)."""
        dumped = dump(response)
        self._response, self._dumped = response, dumped
        if self.limit is None:
            return None
        size = outgoing_size(dumped)
        if size <= self.limit:
            return None
        return (
            f"This answer is {size:,} bytes, over the {self.limit:,}-byte limit of one message to this agent; "
            "shorten it and send again (the limit: connect(url, max_message_bytes=...) and the agent server's own)"
        )

    def wire(self, response: Any) -> dict[str, Any]:
        """What goes on the wire for ``response``: the dump ``check`` made of it, else a new one."""
        if response is self._response and self._dumped is not None:
            return self._dumped
        return dump(response)


def exit_status(status: ExitStatus | None) -> TerminalExitStatus | None:
    return None if status is None else TerminalExitStatus(exit_code=status.exit_code, signal=status.signal)


def terminal_output(output: str, truncated: bool, status: ExitStatus | None) -> TerminalOutputResponse:
    return TerminalOutputResponse(output=output, truncated=truncated, exit_status=exit_status(status))


def terminal_exit(status: ExitStatus) -> WaitForTerminalExitResponse:
    return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)


def set_model_params(session_id: str, model_id: str) -> dict[str, Any]:
    """``session/set_model`` (left the stable schema in v1.23; neither SDK line types it)."""
    return {"sessionId": session_id, "modelId": model_id}
