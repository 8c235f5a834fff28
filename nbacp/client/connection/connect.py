"""One ``connect()`` for the three kinds of agent: an object in this kernel, a command, a URL.

The receiving (client) side always enables ACP's unstable routes, because that is where
``elicitation/create`` lives in both SDK lines; without it the agent gets "Method not found".
Remote agents are reached over acpremote's wire with nbacp's own websocket transport
(``nbacp.client.wire.transports.ws_link``), which keeps the client's capabilities (acpremote's
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
from acp.interfaces import Client
from acp.schema import Implementation

from nbacp import kernel
from nbacp._version import __version__
from nbacp.client.connection.inbox import show_inbox
from nbacp.client.connection.live import Connection
from nbacp.client.notebook_client import RAW_CAPABILITIES, NotebookClient
from nbacp.client.questions.handler import AnswerPolicy
from nbacp.client.tools import acp_transport
from nbacp.client.wire import connection_log, raw_tap
from nbacp.client.wire import guard as guarding
from nbacp.client.wire.rpc_errors import agent_errors
from nbacp.client.wire.transports import links as transports
from nbacp.client.wire.transports.process import AgentProcess
from nbacp.client.workspace.fs_handler import FileAccess
from nbacp.errors import ConnectError
from nbacp.marimo_runtime import on_cell_cleanup, running_in_marimo

log = logging.getLogger(__name__)
CLIENT_INFO = Implementation(name="nbacp", title="nbacp (Jupyter notebook)", version=__version__)
Target = Any  # an acp.Agent object, a command (str or list of str), or a ws:// / wss:// URL


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
    output streams into the turn (nbacp.client.workspace.files, nbacp.client.workspace.terminals). False does not
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
    conn.inbox_view = show_inbox(client)
    if running_in_marimo():  # a re-run of the cell makes a new connection: this one closes (docs/marimo.md)
        on_cell_cleanup(conn.close_soon)
    return conn
