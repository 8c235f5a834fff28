"""The kernel as an MCP server: ``list_variables``, ``describe``, ``run_python`` (and, with a notebook
link, ``notebook_read`` / ``notebook_edit``: ``nbacp.client.tools.notebook``) for one session.

Built on the ``mcp`` SDK's low-level server (the high-level ``MCPServer`` calls
``logging.basicConfig``, which would reconfigure the person's logging) and served over
streamable HTTP by uvicorn on 127.0.0.1, on a port the OS picks, in the kernel's own event
loop. Every request must carry ``Authorization: Bearer <token>`` (a fresh random token per
server) or gets 401; the SDK's DNS-rebinding protection checks Host and Origin as well.

An agent that advertises ``mcpCapabilities.acp`` gets the same server over the ACP connection
itself instead (``mcp/connect`` / ``mcp/message``; ``nbacp.client.tools.acp_transport``): no
HTTP server is started then.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import secrets
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any, Protocol

from acp.schema import AcpMcpServer, HttpHeader, HttpMcpServer

from nbacp.client.tools import runner, variables
from nbacp.client.tools.acp_transport import AcpMcpHost, new_server_id
from nbacp.client.tools.notebook import NotebookTools
from nbacp.client.tools.notebook_args import EDIT_TOOL, READ_TOOL
from nbacp.client.tools.permission import RunPermission
from nbacp.client.turns.namespace import user_namespace

if TYPE_CHECKING:
    from nbacp.client.notebook_client import NotebookClient
    from nbacp.kernel.notebook_edits import NotebookLink


class ToolBounds(Protocol):
    """What a server reads of its ``KernelTools`` (the package's spec): the bounds and the namespace."""

    @property
    def max_rows(self) -> int: ...

    @property
    def max_output(self) -> int: ...

    @property
    def max_images(self) -> int: ...

    @property
    def namespace(self) -> dict[str, Any] | None: ...

    @property
    def notebook(self) -> NotebookLink | None: ...


SERVER_NAME = "notebook"
Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]

TOOLS: list[dict[str, Any]] = [
    {
        "name": "list_variables",
        "description": "List the variables in the person's notebook: name, type and shape.",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "describe",
        "description": "Describe one notebook variable: for a DataFrame its schema, dtypes, row count "
        "and first rows as CSV; otherwise its type, shape, dtype and a short repr.",
        "inputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "the variable's name"}},
            "required": ["name"],
        },
    },
    {
        "name": "run_python",
        "description": "Run Python code in the person's notebook namespace, after the person allows it "
        "on a permission card that shows the code. Returns stdout, stderr, the last expression's "
        "value, the error if any, and new matplotlib figures as PNG.",
        "inputSchema": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "Python source to run"}},
            "required": ["code"],
        },
    },
]


class _Uvicorn:
    """uvicorn without its signal handling: the kernel's SIGINT (stop button) must stay the kernel's."""

    def __init__(self, app: Any, sock: socket.socket) -> None:
        import uvicorn

        class Server(uvicorn.Server):
            @contextlib.contextmanager
            def capture_signals(self) -> Any:
                yield

        self.server = Server(uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False))
        self.task = asyncio.ensure_future(self.server.serve(sockets=[sock]))

    async def started(self) -> None:
        while not self.server.started:
            if self.task.done():
                self.task.result()  # raises what stopped it
                raise RuntimeError("the MCP HTTP server stopped while starting")
            await asyncio.sleep(0.005)

    async def stop(self) -> None:
        self.server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


def require_bearer(app: ASGIApp, token: str) -> ASGIApp:
    """Refuse (401) every HTTP request whose Authorization is not exactly ``Bearer <token>``."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers", ())).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": b"missing or wrong bearer token\n"})
                return
        await app(scope, receive, send)

    return guarded


class KernelToolServer:
    """One session's MCP server. ``await start()`` gives the session/new entry; ``close()`` ends it."""

    def __init__(self, spec: ToolBounds, client: NotebookClient) -> None:
        self.spec = spec
        self.token = secrets.token_urlsafe(32)
        self.permission = RunPermission(client, client.questions.agent_name)
        self.url = ""
        self.runs: list[tuple[str, str]] = []  # (code, verdict) for every run_python call, in order
        self._http: _Uvicorn | None = None
        self._mcp: Any = None
        self._acp: tuple[AcpMcpHost, str] | None = None  # (host, server id) when served over ACP
        self.closed = False
        self.notebook = NotebookTools(spec.notebook, client) if spec.notebook is not None else None

    def bind(self, session_id: str) -> None:
        """Permission and review cards go to this session's running turn (or the inbox between turns)."""
        self.permission.session_id = session_id
        if self.notebook is not None:
            self.notebook.session_id = session_id

    def turn_started(self) -> None:
        """A turn of the session began (called in its prompt cell): the notebook link notes that cell."""
        if self.notebook is not None:
            self.notebook.turn_started()

    def turn_stopped(self) -> None:
        """The person stopped the turn: notebook proposals not yet on a card never get one."""
        if self.notebook is not None:
            self.notebook.turn_stopped()

    @property
    def namespace(self) -> dict[str, Any]:
        return self.spec.namespace if self.spec.namespace is not None else user_namespace()

    def entry(self) -> HttpMcpServer | AcpMcpServer:
        if self._acp is not None:
            return AcpMcpServer(type="acp", name=SERVER_NAME, server_id=self._acp[1])
        return self._http_entry()

    def _http_entry(self) -> HttpMcpServer:
        return HttpMcpServer(
            type="http",
            name=SERVER_NAME,
            url=self.url,
            headers=[HttpHeader(name="Authorization", value=f"Bearer {self.token}")],
        )

    def mcp_server(self) -> Any:
        """The low-level mcp Server both transports serve (built once per session)."""
        if self._mcp is None:
            from mcp.server.lowlevel import Server

            self._mcp = Server(
                SERVER_NAME,
                on_list_tools=self._list_tools,
                on_call_tool=self._call_tool,
                instructions="Tools for the person's notebook (nbacp).",
            )
        return self._mcp

    def start_acp(self, host: AcpMcpHost) -> AcpMcpServer:
        """Serve over the ACP connection: register a fresh server id; the agent connects with mcp/connect."""
        self._acp = (host, new_server_id())
        host.add(self._acp[1], self)
        return AcpMcpServer(type="acp", name=SERVER_NAME, server_id=self._acp[1])

    async def start(self) -> HttpMcpServer:
        """Serve over streamable HTTP on 127.0.0.1 (agents without mcpCapabilities.acp)."""
        server: Any = self.mcp_server()
        app = require_bearer(server.streamable_http_app(host="127.0.0.1"), self.token)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
        self._http = _Uvicorn(app, sock)
        await self._http.started()
        return self._http_entry()

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._http is not None:
            await self._http.stop()
        if self._acp is not None:
            await self._acp[0].remove(self._acp[1])

    # -- MCP handlers ------------------------------------------------------------------------
    async def _list_tools(self, ctx: Any, params: Any) -> Any:
        from mcp import types

        tools = TOOLS + ([READ_TOOL, EDIT_TOOL] if self.notebook is not None else [])
        return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tools])

    async def _call_tool(self, ctx: Any, params: Any) -> Any:
        from mcp import types

        args = dict(params.arguments or {})
        try:
            if params.name == "list_variables":
                content: list[Any] = [_text(variables.list_variables(self.namespace))]
            elif params.name == "describe":
                name = _string_arg(args, "name")
                content = [_text(variables.describe(self.namespace, name, max_rows=self.spec.max_rows))]
            elif params.name == "run_python":
                content = await self._run_python(_string_arg(args, "code"))
            elif params.name == "notebook_read" and self.notebook is not None:
                content = [_text(await self.notebook.read())]
            elif params.name == "notebook_edit" and self.notebook is not None:
                text, applied = await self.notebook.edit(args)
                return types.CallToolResult(content=[_text(text)], is_error=not applied)
            else:
                names = ", ".join(t["name"] for t in TOOLS + ([READ_TOOL, EDIT_TOOL] if self.notebook else []))
                raise LookupError(f"Unknown tool {params.name!r}; the tools are {names}.")
        except _Refused as exc:
            return types.CallToolResult(content=[_text(str(exc))], is_error=True)
        except (KeyError, LookupError, TypeError, ValueError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            return types.CallToolResult(content=[_text(str(message))], is_error=True)
        return types.CallToolResult(content=content, is_error=False)

    async def _run_python(self, code: str) -> list[Any]:
        from mcp import types

        verdict = await self.permission.ask(code)
        self.runs.append((code, verdict))
        if verdict == "rejected":
            raise _Refused("The person rejected running this code; nothing was run.")
        if verdict == "cancelled":
            raise _Refused("The permission card was closed without an answer (the turn ended); nothing was run.")
        output = runner.run_code(code, self.namespace, max_images=self.spec.max_images)
        content: list[Any] = [_text(output.text(self.spec.max_output))]
        for png in output.images:
            data = base64.b64encode(png).decode("ascii")
            content.append(types.ImageContent(type="image", data=data, mime_type="image/png"))
        return content


class _Refused(Exception):
    """run_python did not run: the tool result says why, marked as an error."""


def _text(text: str) -> Any:
    from mcp import types

    return types.TextContent(type="text", text=text)


def _string_arg(args: dict[str, Any], name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise TypeError(f"The argument {name!r} must be a string.")
    return value
