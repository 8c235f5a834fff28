"""Errors a notebook user meets when talking to an agent, each saying what happened in plain words."""

from __future__ import annotations


class ConnectError(ConnectionError):
    """The agent could not be reached or refused the connection (wrong token, bad command, no server)."""


class ConnectionLost(ConnectionError):
    """The agent went away mid-turn (process exited, websocket dropped, connection closed)."""


class AgentError(RuntimeError):
    """The agent answered a request with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        self.code = code
        self.data = data
        super().__init__(f"The agent answered with error {code}: {message}" + (f" ({data})" if data else ""))
