"""One ``connect()`` for the three kinds of agent: an object in this kernel, a command, a URL.

The receiving (client) side always enables ACP's unstable routes, because that is where
``elicitation/create`` lives in both SDK lines; without it the agent gets "Method not found".
Remote agents are reached over acpremote's wire with nbacp's own websocket transport
(``nbacp.client.wire.ws_link``), which keeps the client's capabilities (acpremote's
``connect_acp`` mirror path would drop elicitation).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Generator, Mapping, Sequence
from typing import Any, cast

from acp import PROTOCOL_VERSION
from acp.client.connection import ClientSideConnection
from acp.interfaces import Client
from acp.schema import Implementation

from nbacp import kernel
from nbacp._version import __version__
from nbacp.client import auth
from nbacp.client.handlers.fs import FileAccess
from nbacp.client.handlers.questions import AnswerPolicy
from nbacp.client.lifecycle import SessionLifecycle
from nbacp.client.notebook_client import RAW_CAPABILITIES, NotebookClient
from nbacp.client.session import Session
from nbacp.client.session_header import is_session_fact
from nbacp.client.settings import SessionSettings
from nbacp.client.tools import acp_transport
from nbacp.client.wire import connection_log, raw_tap, transports
from nbacp.client.wire import guard as guarding
from nbacp.client.wire.process import AgentProcess
from nbacp.client.wire.raw_tap import RawTap
from nbacp.client.wire.rpc_errors import agent_errors
from nbacp.display import Static, show
from nbacp.errors import ConnectError
from nbacp.widgets.shared import close_tree
from nbacp.widgets.transcript import Transcript

log = logging.getLogger(__name__)
CLIENT_INFO = Implementation(name="nbacp", title="nbacp (Jupyter notebook)", version=__version__)
Target = Any  # an acp.Agent object, a command (str or list of str), or a ws:// / wss:// URL


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
            _settle_inbox(self.client, view, self.agent_info.name if self.agent_info else "the agent")

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        name = self.agent_info.name if self.agent_info else "agent"
        return f"Connection({name!r}, kind={self.kind!r}, closed={self.closed})"


class _Connecting:
    """``await connect(...)`` gives a Connection; ``async with connect(...) as conn`` closes it too."""

    def __init__(self, target: Target, kwargs: dict[str, Any]) -> None:
        self._target = target
        self._kwargs = kwargs
        self._conn: Connection | None = None

    def __await__(self) -> Generator[Any, None, Connection]:
        return _open(self._target, **self._kwargs).__await__()

    async def __aenter__(self) -> Connection:
        self._conn = await _open(self._target, **self._kwargs)
        return self._conn

    async def __aexit__(self, *exc: object) -> None:
        if self._conn is not None:
            await self._conn.close()


def connect(
    target: Target,
    *,
    answers: AnswerPolicy | None = None,
    token: str | None = None,
    headers: dict[str, str] | None = None,
    env: Mapping[str, str | None] | None = None,
    cwd: str | None = None,
    name: str | None = None,
    max_message_bytes: int = transports.MAX_MESSAGE_BYTES,
    timeout: float | None = 60.0,
    fs: FileAccess = True,
    terminal: bool = True,
) -> _Connecting:
    """Connect to an agent: ``conn = await nbacp.connect(target)``.

    ``target`` is an ACP agent object (run in this kernel), a command (``["claude-agent-acp"]``
    or ``"python -m my_agent"``, run as a subprocess over stdio), or an acpremote URL
    (``"ws://127.0.0.1:8765/acp/ws"``; ``token`` is its bearer token). ``answers`` is a
    headless policy (see ``nbacp.answers``); None waits for a person. ``max_message_bytes`` is
    the largest websocket message accepted or sent (acpremote's own default is 1 MiB);
    ``timeout`` bounds how long the agent may take to answer ``initialize`` (None: no bound).

    A command agent inherits the kernel's environment (``os.environ``); ``env`` adds or
    overrides variables, and a value of None removes one (``env={"OPENAI_API_KEY": None}``).
    It runs in its own process group, so the kernel's stop button never signals it, and its
    stderr is kept (last ~200 lines) as ``conn.stderr``.

    ``fs`` and ``terminal`` choose what the agent may ask of this kernel: reading and writing
    files inside the session's folders (``fs="write"``: writing only) and running commands whose
    output streams into the turn (nbacp.client.files, nbacp.client.terminals). False does not
    advertise them, and the agent uses its own tools instead.
    """
    kwargs = dict(
        answers=answers,
        token=token,
        headers=headers,
        env=env,
        cwd=cwd,
        name=name,
        max_message_bytes=max_message_bytes,
        timeout=timeout,
        fs=fs,
        terminal=terminal,
    )
    return _Connecting(target, kwargs)


async def _open(
    target: Target,
    *,
    answers: AnswerPolicy | None,
    token: str | None,
    headers: dict[str, str] | None,
    env: Mapping[str, str | None] | None,
    cwd: str | None,
    name: str | None,
    max_message_bytes: int,
    timeout: float | None,
    fs: FileAccess,
    terminal: bool,
) -> Connection:
    kernel.ensure_comm_status()
    kernel.ensure_stream_replies()  # or ipykernel 7.0-7.3 can leave a request unread
    client = NotebookClient(answers=answers, agent_name=name, fs=fs, terminal=terminal)
    acp_client = cast(Client, client)  # the SDK's Client protocol: the methods nbacp implements
    stack = contextlib.AsyncExitStack()
    process: AgentProcess | None = None
    # The kernel tools' mcp/* messages (MCP over ACP): defined by the SDK but not routed by it.
    routes = {method: functools.partial(acp_transport.handle, client) for method in acp_transport.METHODS}
    guard = client.guard = guarding.Guard(client, connection_log.ConnectionLog(), routes=routes)
    routing = connection_log.routing(guard.log)  # the SDK's tasks, created below, log to this connection
    try:
        if isinstance(target, str) and target.startswith(("ws://", "wss://")):
            agent, limits = await transports.websocket(acp_client, target, token, headers, stack, max_message_bytes)
            kind, guard.limits, client.questions.max_answer_bytes = "remote", limits, limits.outgoing
        elif isinstance(target, str | Sequence) and not isinstance(target, bytes):
            (agent, process), kind = await transports.stdio(acp_client, target, env, cwd, stack), "subprocess"
        elif hasattr(target, "prompt") and hasattr(target, "initialize"):
            agent, kind = transports.memory(acp_client, target, stack), "in-process"
        else:
            raise TypeError(
                f"connect() takes an ACP agent object, a command or a ws:// URL, not {type(target).__name__}"
            )
        guard.install(agent)  # already done by client.on_connect; kept for transports that bypass it
        tap = raw_tap.install(agent, client.cancel_request, RAW_CAPABILITIES)
        try:
            with agent_errors():
                init = await asyncio.wait_for(
                    agent.initialize(
                        protocol_version=PROTOCOL_VERSION,
                        client_capabilities=client.capabilities(),
                        client_info=CLIENT_INFO,
                    ),
                    timeout,
                )
        except TimeoutError:
            raise ConnectError(
                f"The agent did not answer initialize within {timeout:g} s; is it an ACP agent? "
                "(connect(..., timeout=...) sets the bound)"
            ) from None
        except ConnectionError as exc:
            said = ""
            if process is not None:
                await process.stderr_settled()
                said = f" Its stderr ends with: {process.stderr.lines[-1]}" if process.stderr else ""
            raise ConnectError(f"The agent closed the connection during initialize ({exc}).{said}") from None
    except BaseException:
        await stack.aclose()
        raise
    finally:
        connection_log.reset_routing(routing)
    info = getattr(init, "agent_info", None)
    if client.questions.agent_name is None:
        client.questions.agent_name = (info.title or info.name) if info is not None else "agent"
    conn = Connection(client, agent, stack, init, kind=kind, process=process, tap=tap)
    conn.guard = guard
    guard.log.listeners.append(client.surfaces.note)
    conn.inbox_view = _show_inbox(client)
    return conn


def _show_inbox(client: NotebookClient) -> Any:
    """Cards that arrive outside any turn are shown in the cell that connected (its display handle)."""
    inbox = Transcript(prompt="", session_facts=is_session_fact)  # facts belong to the session headers
    inbox.add_class("nbacp-inbox")
    client.surfaces.inbox = inbox
    return show(inbox, display_id=True)


def _settle_inbox(client: NotebookClient, view: Any, agent: str) -> None:
    """The connection is closed: the inbox's output becomes static text of what it received, or blank."""
    inbox = client.surfaces.inbox
    if not isinstance(inbox, Transcript):
        return
    if view is not None:
        inbox.flush()
        notes = inbox.notes(f"Between turns, from {agent} (the connection is closed):")
        view.update(Static(*notes) if notes is not None else Static())
    close_tree([inbox])  # shown or not: nothing displays it any more
