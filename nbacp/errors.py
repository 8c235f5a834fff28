"""Errors a notebook user meets when talking to an agent, each saying what happened in plain words.

Every exception nbacp raises to a user derives from ``NbacpError``, so ``except nbacp.NbacpError``
catches anything nbacp raised. Each keeps the standard base it had before (``ValueError``,
``ConnectionError``, ``RuntimeError``) as its second base, so existing ``except`` clauses
still work. The table of all of them (when each is raised, what to do) is
docs/errors.md.

This module imports nothing of nbacp: every layer may import it.
"""

from __future__ import annotations


class NbacpError(Exception):
    """The base of every error nbacp raises to a user (see docs/errors.md)."""


class ConnectError(NbacpError, ConnectionError):
    """The agent could not be reached or refused the connection (wrong token, bad command, no server)."""


class ConnectionLost(NbacpError, ConnectionError):
    """The agent went away mid-turn (process exited, websocket dropped, connection closed)."""


class AgentError(NbacpError, RuntimeError):
    """The agent answered a request with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        self.code = code
        self.data = data
        super().__init__(f"The agent answered with error {code}: {message}" + (f" ({data})" if data else ""))


class AuthenticationError(AgentError):
    """Authentication with one of the agent's methods failed; names the method and the agent's reason."""

    def __init__(self, method_id: str, code: int, message: str, data: object = None) -> None:
        self.method_id = method_id
        AgentError.__init__(self, code, message, data)
        reason = f"{message} ({data})" if data else message
        self.args = (f"Authentication with method {method_id!r} failed: the agent answered {code}: {reason}",)


class NotSupportedByAgent(NbacpError, RuntimeError):
    """The agent does not advertise the capability a call needs (e.g. ``session/list``)."""
