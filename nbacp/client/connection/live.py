"""The live connection to one agent: what it said in ``initialize``, its sessions, closing it.

``Connection`` is what ``connect()`` returns; the sessions' life (new, list, load, resume, fork,
close, delete, logout) comes from its ``SessionLifecycle`` mixin. Closing cancels every open
card, ends running turns, releases the transport and leaves the cells static.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from acp.client.connection import ClientSideConnection
from acp.schema import Implementation

from nbacp.client import auth
from nbacp.client.connection.inbox import settle_inbox
from nbacp.client.connection.lifecycle import SessionLifecycle
from nbacp.client.notebook_client import NotebookClient
from nbacp.client.sessions.session import Session
from nbacp.client.sessions.settings import SessionSettings
from nbacp.client.wire import connection_log
from nbacp.client.wire import guard as guarding
from nbacp.client.wire.raw_tap import RawTap
from nbacp.client.wire.transports.process import AgentProcess

log = logging.getLogger(__name__)


class Connection(SessionLifecycle):
    """A live connection to one agent. ``async with`` closes it; so does ``await conn.close()``."""

    def __init__(
        self,
        client: NotebookClient,
        agent: ClientSideConnection,
        stack: contextlib.AsyncExitStack,
        initialize: Any,
        *,
        kind: str,
        process: AgentProcess | None = None,
        tap: RawTap | None = None,
    ) -> None:
        self.client = client
        self.agent = agent
        self.kind = kind
        self.initialize_response = initialize
        self.sessions: list[Session] = []
        self.closed = False
        self.inbox_view: Any = None  # the inbox's display handle, replaced by its static form on close
        self.process = process
        self.tap = tap
        self._settings: dict[str, SessionSettings] = {}
        self._stack = stack
        self._closing: asyncio.Task[None] | None = None
        client.session_updates.on_update = self._follow_update
        self.guard: guarding.Guard | None = None  # set by connect(): checks every message from the agent

    def disconnect_reason(self) -> str | None:
        """Why the transport closed, when nbacp can tell (a websocket size limit), else None."""
        limits = self.guard.limits if self.guard is not None else None
        return limits.disconnect_reason() if limits is not None else None

    @property
    def log(self) -> connection_log.ConnectionLog | None:
        """One-line notes of what went wrong on this connection (refused requests, SDK errors)."""
        return self.guard.log if self.guard is not None else None

    @property
    def agent_info(self) -> Implementation | None:
        return getattr(self.initialize_response, "agent_info", None)

    @property
    def agent_capabilities(self) -> Any:
        return getattr(self.initialize_response, "agent_capabilities", None)

    @property
    def auth_methods(self) -> list[Any]:
        """The authentication methods the agent listed in ``initialize`` (id, name, description, type).

        Read from the raw ``initialize`` result (``auth.AuthMethod``) when the raw tap saw it:
        SDK 1.0 parses a method without ``type`` as a terminal sign-in (docs/protocol.md, 'Two SDK lines').
        """
        if self.tap is not None and self.tap.auth_methods is not None:
            return [auth.AuthMethod.from_wire(m) for m in self.tap.auth_methods]
        return list(getattr(self.initialize_response, "auth_methods", None) or [])

    async def authenticate(self, method_id: str) -> Any:
        """Authenticate with one of ``auth_methods``; errors name the method and the agent's message."""
        return await auth.authenticate(self, method_id)

    @property
    def stderr(self) -> str:
        """The last ~200 lines the agent wrote to stderr (command agents; "" for the others)."""
        return str(self.process.stderr) if self.process is not None else ""

    @property
    def stderr_lines(self) -> list[str]:
        return self.process.stderr.lines if self.process is not None else []

    async def close(self) -> None:
        """Cancel every open card, end running turns, and release the transport."""
        if self.closed:
            return
        self.closed = True
        self.client.cancel_cards("the connection was closed")
        await self.client.aclose()
        try:
            await self._stack.aclose()
        except Exception as exc:  # the peer is already gone (reset, websocket closed): nothing left to release
            log.debug("transport already closed: %r", exc)
        finally:
            for session in self.sessions:
                if session.tools is not None:
                    await session.tools.close()
            turns = [s.turn.task for s in self.sessions if s.turn is not None and not s.turn.done]
            for task in turns:
                task.cancel()
            if turns:
                await asyncio.gather(*turns, return_exceptions=True)
            # nothing interactive is left in the cells: docs/record.md, 'Saved notebooks'
            for session in self.sessions:
                session.settle_toolbar()
            view, self.inbox_view = self.inbox_view, None
            settle_inbox(self.client, view, self.agent_info.name if self.agent_info else "the agent")

    def close_soon(self) -> None:
        """Start :meth:`close` on the running loop without awaiting it (a synchronous hook's way);
        the task is kept until it ends."""
        if self.closed or self._closing is not None:
            return
        self._closing = asyncio.get_running_loop().create_task(self.close())

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        name = self.agent_info.name if self.agent_info else "agent"
        return f"Connection({name!r}, kind={self.kind!r}, closed={self.closed})"
