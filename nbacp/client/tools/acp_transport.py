"""MCP over the ACP connection itself, for agents that advertise ``mcpCapabilities.acp``.

Such an agent gets the kernel tools as ``{"type": "acp", "name": "notebook", "serverId": ...}``
in ``session/new`` and reaches them with three agent->client methods that agent-client-protocol
0.12 defines (``acp.meta.CLIENT_METHODS``) but does not route:

- ``mcp/connect {serverId}`` -> ``{connectionId}``; an unknown server id is -32602 naming it, and
  so is a connect beyond ``MAX_LINKS`` open connections (each one runs an MCP server);
- ``mcp/message {connectionId, method, params}``: as a request, one inner MCP request, answered
  with the inner result, or with the inner error as the JSON-RPC error; as a notification, an
  inner MCP notification (``notifications/initialized``, ``notifications/cancelled``);
- ``mcp/disconnect {connectionId}``.

The guard's dispatch (``nbacp.client.wire.guard``) sends these three methods to ``handle`` instead of
to the SDK's router, which would answer "Method not found". Each connection runs the same
low-level ``mcp`` Server the HTTP path serves (``McpServing.mcp_server``) on the mcp SDK's
in-memory streams, so both transports share the tools, their bounds and the permission card.
What that server sends on its own (there are no server->client requests in these tools) is
dropped. Connections end with ``mcp/disconnect``, or when their server closes with the session
or the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import weakref
from typing import TYPE_CHECKING, Any, Protocol

from acp import RequestError
from acp.schema import ConnectMcpRequest, DisconnectMcpRequest, MessageMcpNotification, MessageMcpRequest

if TYPE_CHECKING:
    from nbacp.client.notebook_client import NotebookClient


class McpServing(Protocol):
    """What a link needs of the kernel's tool server (``server.KernelToolServer``): its low-level MCP server."""

    def mcp_server(self) -> Any: ...


log = logging.getLogger(__name__)
MAX_LINKS = 16
"""Open ``mcp/connect`` links per ACP connection (an agent needs one per session it runs tools in)."""
METHODS = frozenset({"mcp/connect", "mcp/message", "mcp/disconnect"})
_HOSTS: weakref.WeakKeyDictionary[NotebookClient, AcpMcpHost] = weakref.WeakKeyDictionary()


def host_for(client: NotebookClient) -> AcpMcpHost:
    """The registry of ACP-transport MCP servers and connections of one ACP connection."""
    host = _HOSTS.get(client)
    if host is None:
        host = _HOSTS[client] = AcpMcpHost()
    return host


async def handle(client: NotebookClient, method: str, params: Any, is_notification: bool) -> Any:
    """Answer one ``mcp/*`` message from the agent (params already checked to be a JSON object)."""
    return await host_for(client).handle(method, params or {}, is_notification)


def new_server_id() -> str:
    """A fresh id: the spec forbids reusing one on the same ACP connection."""
    return f"nbacp-notebook-{secrets.token_hex(8)}"


class McpLink:
    """One ``mcp/connect``: the MCP server running on in-memory streams, and its pending requests."""

    def __init__(self, server: McpServing) -> None:
        self.server = server
        self._stack = contextlib.AsyncExitStack()
        self._send: Any = None
        self._tasks: list[asyncio.Task[Any]] = []
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self.closed = False

    async def start(self) -> None:
        from mcp.shared.memory import create_client_server_memory_streams

        (from_server, to_server), (server_read, server_write) = await self._stack.enter_async_context(
            create_client_server_memory_streams()
        )
        self._send = to_server
        mcp_server = self.server.mcp_server()
        options = mcp_server.create_initialization_options()
        self._tasks.append(asyncio.ensure_future(mcp_server.run(server_read, server_write, options)))
        self._tasks.append(asyncio.ensure_future(self._read(from_server)))

    async def _read(self, stream: Any) -> None:
        from mcp.types.jsonrpc import JSONRPCError, JSONRPCResponse

        async for item in stream:
            message = getattr(item, "message", None)
            if isinstance(message, JSONRPCResponse | JSONRPCError) and isinstance(message.id, int):
                future = self._pending.pop(message.id, None)
                if future is not None and not future.done():
                    future.set_result(message)
                    continue
            log.debug("dropped a message from the MCP server: %r", item)

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        """Send one inner request; its result, or RequestError carrying the inner error."""
        from mcp.shared.message import SessionMessage
        from mcp.types.jsonrpc import JSONRPCError, JSONRPCRequest

        if self.closed:
            raise RequestError.invalid_params({"details": "This MCP connection is closed."})
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._send.send(
                SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method, params=params))
            )
            answer = await future
        except asyncio.CancelledError:
            self._pending.pop(request_id, None)
            with contextlib.suppress(Exception):
                await self.notify("notifications/cancelled", {"requestId": request_id})
            raise
        if isinstance(answer, JSONRPCError):
            raise RequestError(answer.error.code, answer.error.message, answer.error.data)
        return answer.result

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        from mcp.shared.message import SessionMessage
        from mcp.types.jsonrpc import JSONRPCNotification

        if not self.closed:
            await self._send.send(SessionMessage(JSONRPCNotification(jsonrpc="2.0", method=method, params=params)))

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(
                    RequestError.internal_error({"details": "The MCP connection closed before the server answered."})
                )
        self._pending.clear()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self._stack.aclose()


class AcpMcpHost:
    """The servers (by server id) and connections (by connection id) of one ACP connection."""

    def __init__(self) -> None:
        self.servers: dict[str, McpServing] = {}
        self.links: dict[str, McpLink] = {}

    def add(self, server_id: str, server: McpServing) -> None:
        self.servers[server_id] = server

    async def remove(self, server_id: str) -> None:
        """The server closed (session or connection closed): its connections end too."""
        server = self.servers.pop(server_id, None)
        for connection_id, link in list(self.links.items()):
            if link.server is server:
                del self.links[connection_id]
                await link.close()

    async def handle(self, method: str, params: dict[str, Any], is_notification: bool) -> Any:
        if method == "mcp/connect":
            server_id = ConnectMcpRequest.model_validate(params).server_id
            server = self.servers.get(server_id)
            if server is None:
                raise RequestError.invalid_params(
                    {
                        "details": f"Unknown MCP server id {server_id!r}: this "
                        "client offered no such ACP-transport MCP server."
                    }
                )
            if len(self.links) >= MAX_LINKS:
                raise RequestError.invalid_params(
                    {
                        "details": f"Over the size budget: {len(self.links)} MCP "
                        f"connections are open, the most one ACP connection may "
                        "hold; send mcp/disconnect for one first."
                    }
                )
            link = McpLink(server)
            await link.start()
            connection_id = f"nbacp-mcp-{secrets.token_hex(8)}"
            self.links[connection_id] = link
            return {"connectionId": connection_id}
        if method == "mcp/disconnect":
            connection_id = DisconnectMcpRequest.model_validate(params).connection_id
            link = self._link(connection_id)
            del self.links[connection_id]
            await link.close()
            return {}
        if is_notification:
            note = MessageMcpNotification.model_validate(params)
            await self._link(note.connection_id).notify(note.method, note.params)
            return None
        request = MessageMcpRequest.model_validate(params)
        return await self._link(request.connection_id).request(request.method, request.params)

    def _link(self, connection_id: str) -> McpLink:
        link = self.links.get(connection_id)
        if link is None:
            raise RequestError.invalid_params(
                {"details": f"Unknown MCP connection id {connection_id!r} (never connected, or already disconnected)."}
            )
        return link
