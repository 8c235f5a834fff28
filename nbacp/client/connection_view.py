"""What sessions, turns, settings calls and authentication use of a connection, as a protocol.

``Connection`` (``nbacp.client.connection.connect``) satisfies it. Sessions and turns are made by the
connection and hold it, so if they imported ``Connection`` the modules would import each other;
they name this protocol instead, and the imports go one way: connection -> sessions -> turns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from acp.client.connection import ClientSideConnection

    from nbacp.client.notebook_client import NotebookClient
    from nbacp.client.sessions.settings import SessionSettings
    from nbacp.client.wire.guard import Guard
    from nbacp.client.wire.transports.process import AgentProcess


class ConnectionView(Protocol):
    """The parts of a live connection that the session layer below ``Connection`` uses."""

    client: NotebookClient
    agent: ClientSideConnection
    closed: bool
    guard: Guard | None
    process: AgentProcess | None

    @property
    def agent_capabilities(self) -> Any: ...

    @property
    def auth_methods(self) -> list[Any]: ...

    def settings_for(self, session_id: str) -> SessionSettings: ...

    def disconnect_reason(self) -> str | None: ...

    async def close_session(self, session_id: str) -> None: ...
