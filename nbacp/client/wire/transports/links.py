"""The three transports ``connect()`` opens: bounded in-process links, stdio (a command), websocket (acpremote).

Each returns the SDK's ``ClientSideConnection`` with ACP's unstable routes on (``elicitation/create``
lives there in SDK 0.12) and registers its own teardown on the connection's exit stack.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from acp.agent.connection import AgentSideConnection
from acp.client.connection import ClientSideConnection
from acp.interfaces import Client

from nbacp.client.wire import sdk_compat, sdk_connection
from nbacp.client.wire.transports import memory_link, process, ws_link
from nbacp.errors import ConnectError

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
"""Default websocket message bound, both ways (acpremote's own is 1 MiB: one long diff or answer)."""


def memory(client: Client, agent_obj: Any, stack: contextlib.AsyncExitStack) -> ClientSideConnection:
    """The agent object runs in this kernel, linked by bounded in-process links (``memory_link``)."""
    client_end, agent_end = memory_link.memory_pair()
    agent_side = AgentSideConnection(agent_obj, agent_end, use_unstable_protocol=True)  # resume, fork, close
    conn = ClientSideConnection(client, client_end, use_unstable_protocol=True)
    stack.push_async_callback(sdk_connection.close, agent_side)
    stack.push_async_callback(sdk_compat.close, conn)
    return conn


async def stdio(
    client: Client,
    command: str | Sequence[str],
    env: Mapping[str, str | None] | None,
    cwd: str | None,
    stack: contextlib.AsyncExitStack,
) -> tuple[ClientSideConnection, process.AgentProcess]:
    """Start the command (see ``nbacp.client.wire.transports.process``) and speak ACP over its stdin/stdout."""
    argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if not argv:
        raise ValueError("connect() got an empty command")
    try:
        agent = await process.start(argv, env, cwd)
    except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
        raise ConnectError(f"Could not start the agent command {argv[0]!r}: {exc}") from None
    stack.push_async_callback(agent.stop)
    proc = agent.process
    assert proc.stdin is not None and proc.stdout is not None
    conn = ClientSideConnection(client, proc.stdin, proc.stdout, use_unstable_protocol=True)
    stack.push_async_callback(sdk_compat.close, conn)
    return conn, agent


async def websocket(
    client: Client,
    url: str,
    token: str | None,
    headers: dict[str, str] | None,
    stack: contextlib.AsyncExitStack,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
) -> tuple[ClientSideConnection, RemoteLimits]:
    """The connection, and what to tell the person when the websocket closes over a size limit.

    Speaks acpremote's wire (nbacp.client.wire.transports.ws_link); the server's own limit comes from
    its metadata, read after the socket is open.
    """
    from websockets.exceptions import InvalidStatus, WebSocketException

    try:
        transport = await ws_link.open_transport(url, token, headers, max_message_bytes)
    except InvalidStatus as exc:
        status = exc.response.status_code
        if status in (401, 403):
            raise ConnectError(
                f"The agent server at {url} refused the connection (HTTP {status}): the token is missing or wrong."
            ) from None
        raise ConnectError(f"The agent server at {url} answered HTTP {status}.") from None
    except (TimeoutError, OSError, WebSocketException) as exc:
        raise ConnectError(f"Could not reach the agent server at {url}: {exc}") from None
    stack.push_async_callback(transport.close)
    conn = ClientSideConnection(client, transport, use_unstable_protocol=True)
    stack.push_async_callback(sdk_compat.close, conn)
    server_max = await ws_link.server_max_size(url, headers)
    return conn, RemoteLimits(transport.websocket, max_message_bytes, server_max)


class RemoteLimits:
    """The websocket's size limits: ours (incoming) and the server's (our outgoing messages)."""

    def __init__(self, ws: Any, incoming: int, server: int | None) -> None:
        self._ws = ws
        self.incoming = incoming
        self.outgoing = min(incoming, server) if server else incoming

    def disconnect_reason(self) -> str | None:
        """Why the websocket closed, when it was a size limit (close code 1009), else None."""
        protocol = getattr(self._ws, "protocol", None)
        sent, received = getattr(protocol, "close_sent", None), getattr(protocol, "close_rcvd", None)
        server_first = bool(getattr(protocol, "close_rcvd_then_sent", False))  # who closed first
        if received is not None and received.code == 1009 and server_first:
            return (
                f"the agent server refused a message from the notebook as too large ({received.reason}); "
                "its limit is set on the server (acpremote TransportOptions.max_size)"
            )
        if sent is not None and sent.code == 1009:
            return (
                f"the agent sent a message larger than max_message_bytes={self.incoming:,} bytes ({sent.reason}); "
                "connect(url, max_message_bytes=...) accepts larger ones"
            )
        return None
