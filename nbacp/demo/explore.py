"""The demo's "explore" scenario: the agent looks at the person's DataFrames through the kernel tools.

It needs a session started with ``tools=nbacp.kernel_tools()``: the notebook then passes an
HTTP MCP server in ``session/new``, and this tool reaches it with the ``mcp`` SDK's own client,
as any agent would: ``list_variables``, then a question (which DataFrame?), then ``run_python``
with one line of pandas (or polars), which the notebook runs only if the person allows it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from acp.schema import McpCapabilities
from pydantic_acp import AcpSessionContext, ChoiceElicitationAccepted, ElicitationChoice
from pydantic_acp.bridges import CapabilityBridge

if TYPE_CHECKING:
    from mcp import Client

SERVER_NAME = "notebook"  # the name nbacp gives its kernel tools server
QUESTION = "Which DataFrame should I look at?"
NO_TOOLS = (
    "I cannot see your notebook: start the session with "
    "`await conn.new_session(tools=nbacp.kernel_tools())` and ask again."
)


class AcceptsHttpMcpServers(CapabilityBridge):
    """Advertise ``mcpCapabilities.http``: the explore tool connects to such servers itself."""

    def get_mcp_capabilities(self, agent: Any = None) -> McpCapabilities:
        return McpCapabilities(http=True)


def notebook_server(deps: AcpSessionContext) -> dict[str, Any] | None:
    """The kernel tools entry the client sent in session/new (as pydantic-acp stores it), if any."""
    for server in deps.mcp_servers:
        if server.get("name") == SERVER_NAME and server.get("transport") == "http":
            return server
    return None


@asynccontextmanager
async def notebook_tools(server: dict[str, Any]) -> AsyncIterator[Client]:
    """An ``mcp`` SDK client on the kernel tools server ``server`` (from ``notebook_server``),
    with the headers the notebook gave for it; no read timeout, as a tool waits on the person."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {str(k): str(v) for k, v in dict(server.get("headers") or {}).items()}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=None)) as http,
        Client(streamable_http_client(str(server["url"]), http_client=http)) as mcp,
    ):
        yield mcp


def tool_text(result: Any) -> str:
    """The text blocks of an MCP tool result, joined: what the tool said."""
    return "\n".join(getattr(block, "text", "") for block in result.content if getattr(block, "type", "") == "text")


def dataframes(listing: str) -> list[tuple[str, str, str]]:
    """(name, library, shape) of every DataFrame in a ``list_variables`` answer."""
    found = []
    for line in listing.splitlines():
        name, _, rest = line.partition(": ")
        kind, _, shape = rest.partition(" ")
        if kind in ("pandas.DataFrame", "polars.DataFrame"):
            found.append((name, kind.split(".")[0], shape))
    return found


def one_line(name: str, library: str) -> str:
    """The one line the agent asks to run: nulls per column."""
    return f"{name}.null_count()" if library == "polars" else f"{name}.isna().sum()"


async def explore_notebook(deps: AcpSessionContext) -> str:
    """List the variables, ask which DataFrame, ask to run one line on it, report what came back."""
    server = notebook_server(deps)
    if server is None:
        return NO_TOOLS
    lines: list[str] = []
    async with notebook_tools(server) as mcp:
        listing = tool_text(await mcp.call_tool("list_variables", {}))
        lines += ["Your notebook has:", *(f"  {line}" for line in listing.splitlines())]
        frames = dataframes(listing)
        if not frames:
            return "\n".join([*lines, "No DataFrame among them, so there is nothing for me to explore."])
        choices = [
            ElicitationChoice(value=(name, lib), label=name, description=f"{lib} DataFrame {shape}", default=index == 0)
            for index, (name, lib, shape) in enumerate(frames)
        ]
        choice = await deps.ask_choice(QUESTION, choices)
        if not isinstance(choice, ChoiceElicitationAccepted):
            return "\n".join([*lines, f"You {choice.status} the question, so I stopped there."])
        name, library = choice.value
        code = one_line(name, library)
        lines.append(f"You picked {name}. I asked to run: {code}")
        result = await mcp.call_tool("run_python", {"code": code})
        output = tool_text(result)
        if result.is_error:
            return "\n".join([*lines, f"It did not run: {output}"])
        return "\n".join([*lines, "Nulls per column:", output])
