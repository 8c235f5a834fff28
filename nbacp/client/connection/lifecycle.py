"""Sessions that survive: new, list, load (history replayed into the cell), resume, fork, close, delete; logout.

``Connection`` inherits these. Each call first checks that the agent advertised the method
(``agentCapabilities.loadSession``, ``sessionCapabilities.list`` / ``resume`` / ``fork`` /
``close`` / ``delete`` / ``additionalDirectories``, ``agentCapabilities.auth.logout``) and
otherwise raises NotSupportedByAgentError naming the capability, instead of sending a request the
agent would answer with "Method not found". ``session/new`` and ``session/load`` go through
the authentication retry (``nbacp.client.auth``). ``session/delete`` and ``logout`` are stable
in schema v1.23; SDK 0.12 has no typed call for them (docs/protocol.md, 'Two SDK lines').
new / load / resume / fork carry the notebook's system prompt where the agent advertises
``sessionCapabilities.systemPrompt`` (``nbacp.client.sessions.system_prompt``), re-sent each time.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from nbacp import kernel
from nbacp.client import auth
from nbacp.client.connection import capabilities
from nbacp.client.sessions import system_prompt as client_prompt
from nbacp.client.sessions.session import Session
from nbacp.client.sessions.settings import SessionSettings
from nbacp.client.sessions.system_prompt import SystemPrompt
from nbacp.client.turns.turn import TurnRecord
from nbacp.client.wire import raw_tap, sdk_compat, sdk_connection
from nbacp.client.wire.rpc_errors import agent_errors
from nbacp.display import Static, show
from nbacp.marimo_runtime import running_in_marimo
from nbacp.render.turn_record_text import record_text
from nbacp.widgets.auth_card import AuthCard
from nbacp.widgets.shared import close_tree
from nbacp.widgets.transcript import Transcript

if TYPE_CHECKING:
    from acp.client.connection import ClientSideConnection

    from nbacp.client.notebook_client import NotebookClient
    from nbacp.client.tools import KernelTools
    from nbacp.client.wire.raw_tap import RawTap

MAX_LIST_PAGES = 100
T = TypeVar("T")


class SessionLifecycle:
    """Mixin for Connection; needs ``agent``, ``client``, ``sessions``, ``tap``, ``agent_capabilities``."""

    agent: ClientSideConnection
    client: NotebookClient
    sessions: list[Session]
    tap: RawTap | None
    _settings: dict[str, SessionSettings]

    @property
    def agent_capabilities(self) -> Any:  # pragma: no cover - provided by Connection
        raise NotImplementedError

    # -- settings kept current by session/update -----------------------------------------
    def settings_for(self, session_id: str) -> SessionSettings:
        settings = self._settings.get(session_id)
        if settings is None:
            settings = self._settings[session_id] = SessionSettings()
        return settings

    def _follow_update(self, session_id: str, update: Any) -> None:
        self.settings_for(session_id).apply_update(update)

    async def _interruptible(self, call: Awaitable[T]) -> T:
        """The stop button ends a wait for the auth card here (outside a turn): it closes the card."""

        def close_auth_cards() -> None:
            for card in self.client.open_cards():
                if isinstance(card, AuthCard):
                    card.cancel_pending("interrupted")

        return await kernel.wait_interruptible(call, close_auth_cards)

    # -- capabilities ----------------------------------------------------------------
    def supports(self, method: str) -> bool:
        """Whether the agent advertised ``method``: "load", "list", "resume", "fork", "close", "delete",
        "additional_directories" or "logout" (``nbacp.client.connection.capabilities``)."""
        return capabilities.supports(self.agent_capabilities, method)

    def _require(self, method: str) -> None:
        capabilities.require(self.agent_capabilities, method)

    def _directories(self, additional_directories: list[str | os.PathLike[str]] | None) -> dict[str, Any]:
        """``additional_directories=`` for new / load / resume: absolute paths, only where advertised."""
        if not additional_directories:
            return {}
        self._require("additional_directories")
        return {"additional_directories": [os.path.abspath(os.fspath(d)) for d in additional_directories]}

    def _system_prompt(self, choice: SystemPrompt, tools: KernelTools | None = None) -> dict[str, Any]:
        """The ``systemPrompt`` field for a session request: only where the agent advertises it."""
        raw = self.tap.agent_capabilities if self.tap is not None else None
        runtime: client_prompt.Runtime = "marimo" if running_in_marimo() else "jupyter"
        return client_prompt.request_field(raw, choice, tools, runtime=runtime)

    # -- the calls -------------------------------------------------------------------
    async def new_session(
        self,
        cwd: str | os.PathLike[str] = ".",
        *,
        mcp_servers: list[Any] | None = None,
        tools: KernelTools | None = None,
        additional_directories: list[str | os.PathLike[str]] | None = None,
        system_prompt: SystemPrompt = True,
    ) -> Session:
        """A new session; ``tools=nbacp.kernel_tools()`` gives the agent this kernel as an MCP server.

        ``additional_directories`` are folders the agent may work in beside ``cwd`` (agents that
        advertise ``sessionCapabilities.additionalDirectories``); with ``cwd`` they are the folders
        it may read, write and run commands in through nbacp (nbacp.client.workspace.files).
        ``system_prompt``: where the agent accepts a client system prompt, nbacp appends a short
        text saying it works in a notebook (docs/protocol.md, 'The client system prompt'); a
        str is appended after it, False sends none.
        """
        path = os.path.abspath(os.fspath(cwd))
        extra = self._directories(additional_directories)
        prompt_field = self._system_prompt(system_prompt, tools)
        meta = client_prompt.session_meta(client_prompt.has_notebook_tools(tools))
        tool_server = await tools.start(self.client, self.agent_capabilities) if tools is not None else None
        servers = [*(mcp_servers or []), *([tool_server.entry()] if tool_server is not None else [])]
        try:
            with raw_tap.outgoing(prompt_field):
                response = await self._interruptible(
                    auth.retrying(
                        self,  # type: ignore[arg-type]
                        lambda: self.agent.new_session(cwd=path, mcp_servers=servers, **extra, **meta),
                    )
                )
        except BaseException:
            if tool_server is not None:
                await tool_server.close()
            raise
        session = self._adopt(response.session_id, path, response, extra.get("additional_directories"))
        session.system_prompt = prompt_field.get("systemPrompt")
        if tool_server is not None:
            tool_server.bind(session.id)
            session.tools = tool_server
        if client_prompt.has_notebook_tools(tools):
            self.client.questions.notebook_tool_sessions.add(session.id)
        return session

    async def list_sessions(self, cwd: str | os.PathLike[str] | None = None) -> list[Any]:
        """Every session the agent lists (all pages), as ``SessionInfo`` (session_id, cwd, title, updated_at)."""
        self._require("list")
        path = os.path.abspath(os.fspath(cwd)) if cwd is not None else None
        found: list[Any] = []
        cursor: str | None = None
        for _ in range(MAX_LIST_PAGES):
            with agent_errors():
                page = await self.agent.list_sessions(cwd=path, cursor=cursor)
            found.extend(page.sessions)
            cursor = page.next_cursor
            if not cursor:
                break
        return found

    async def load_session(
        self,
        session_id: str,
        cwd: str | os.PathLike[str] = ".",
        *,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str | os.PathLike[str]] | None = None,
        system_prompt: SystemPrompt = True,
    ) -> Session:
        """Load a session; the history the agent replays is shown in this cell as a transcript.

        ``system_prompt`` as for ``new_session`` (agents keep none across processes: it is sent again).
        """
        self._require("load")
        path = os.path.abspath(os.fspath(cwd))
        extra = self._directories(additional_directories)
        prompt_field = self._system_prompt(system_prompt)
        history = Transcript(prompt=f"(history of session {session_id})")
        history.add_class("nbacp-history")
        view = show(history, display_id=True)
        self.client.roots.set(session_id, path, extra.get("additional_directories", []))  # the replay may read files
        self.client.surfaces.attach(session_id, history)
        try:
            with raw_tap.outgoing(prompt_field):
                response = await self._interruptible(
                    auth.retrying(
                        self,  # type: ignore[arg-type]
                        lambda: self.agent.load_session(
                            cwd=path, session_id=session_id, mcp_servers=mcp_servers or [], **extra
                        ),
                        surface=history,
                    )
                )
            tracker = sdk_connection.replay_tracker(self.agent)  # replayed updates still in flight
            if tracker is not None:
                await tracker.wait(session_id)
        finally:
            self.client.surfaces.detach(session_id, history)
        history.finish("history loaded")
        if view is not None:  # the live view gives way to the record (docs/record.md, 'Saved notebooks')
            view.update(Static())
        close_tree([history])  # shown or not: nothing displays the live view any more
        plain = record_text(history.prompt, history.text, history.answers, "loaded", history.activity)
        show(TurnRecord(history.record_markdown(), plain, history.record_html()))  # the saved notebook keeps it
        session = self._adopt(session_id, path, response, extra.get("additional_directories"))
        session.history = history
        session.system_prompt = prompt_field.get("systemPrompt")
        return session

    async def resume_session(
        self,
        session_id: str,
        cwd: str | os.PathLike[str] = ".",
        *,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str | os.PathLike[str]] | None = None,
        system_prompt: SystemPrompt = True,
    ) -> Session:
        """Continue a session without replaying its history; ``system_prompt`` as for ``new_session``."""
        self._require("resume")
        path = os.path.abspath(os.fspath(cwd))
        extra = self._directories(additional_directories)
        prompt_field = self._system_prompt(system_prompt)
        with raw_tap.outgoing(prompt_field):
            response = await self._interruptible(
                auth.retrying(
                    self,  # type: ignore[arg-type]
                    lambda: self.agent.resume_session(
                        session_id=session_id, cwd=path, mcp_servers=mcp_servers or [], **extra
                    ),
                )
            )
        session = self._adopt(session_id, path, response, extra.get("additional_directories"))
        session.system_prompt = prompt_field.get("systemPrompt")
        return session

    async def fork_session(
        self, session_id: str, cwd: str | os.PathLike[str] = ".", *, system_prompt: SystemPrompt = True
    ) -> Session:
        """A new session that starts from a copy of ``session_id``'s history; ``system_prompt`` as
        for ``new_session``."""
        self._require("fork")
        path = os.path.abspath(os.fspath(cwd))
        prompt_field = self._system_prompt(system_prompt)
        with raw_tap.outgoing(prompt_field):
            response = await self._interruptible(
                auth.retrying(
                    self,  # type: ignore[arg-type]
                    lambda: self.agent.fork_session(session_id=session_id, cwd=path, mcp_servers=[]),
                )
            )
        session = self._adopt(response.session_id, path, response)
        session.system_prompt = prompt_field.get("systemPrompt")
        return session

    async def close_session(self, session_id: str) -> None:
        """``session/close``: the agent frees the session; its Session object can no longer prompt."""
        self._require("close")
        with agent_errors():
            await self.agent.close_session(session_id=session_id)
        closed = [s for s in self.sessions if s.id == session_id]
        self.sessions = [s for s in self.sessions if s.id != session_id]
        self.client.cancel_cards("the session was closed", session_id)
        await self.client.terminals.close(session_id)  # its commands end with it (nbacp.client.workspace.terminals)
        self.client.session_updates.session_facts.pop(session_id, None)
        for session in closed:
            session.settle_toolbar()
        for session in closed:  # its kernel tools (an MCP server) serve nobody now
            if session.tools is not None:
                await session.tools.close()

    async def delete_session(self, session_id: str) -> None:
        """``session/delete``: the agent forgets the session for good (where it advertises delete)."""
        self._require("delete")
        with agent_errors():
            await sdk_compat.delete_session(self.agent, session_id)
        deleted = [s for s in self.sessions if s.id == session_id]
        self.sessions = [s for s in self.sessions if s.id != session_id]
        self.client.cancel_cards("the session was deleted", session_id)
        await self.client.terminals.close(session_id)  # its commands end with it (nbacp.client.workspace.terminals)
        for session in deleted:
            if session.tools is not None:
                await session.tools.close()

    async def logout(self) -> None:
        """``logout``: the agent drops its credentials (where it advertises ``auth.logout``)."""
        self._require("logout")
        with agent_errors():
            await sdk_compat.logout(self.agent)

    def _adopt(self, session_id: str, cwd: str, response: Any, additional: list[str] | None = None) -> Session:
        self.client.roots.set(session_id, cwd, additional or [])
        models = self.tap.models.pop(session_id, None) if self.tap is not None else None
        self.settings_for(session_id).apply_response(response, models)
        session = Session(self, session_id, cwd, response)  # type: ignore[arg-type]
        self.sessions.append(session)
        settings = session.settings
        if settings.modes is not None or settings.config_options or settings.models:
            session.show_toolbar()
        return session
