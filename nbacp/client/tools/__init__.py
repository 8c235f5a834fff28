"""The kernel as the agent's tool: ``await conn.new_session(tools=nbacp.kernel_tools())``.

The session gets an MCP server that lives in this kernel, with three tools: ``list_variables``
and ``describe`` read the person's namespace (bounded), ``run_python`` runs code there only
after the person allows it on a permission card showing the code. In a kernel it also gets
``notebook_read`` / ``notebook_edit`` through the open notebook (``nbacp.kernel.open_notebook``:
nbacp's front-end piece when a page answers, else IPython's ``set_next_input``), chosen per turn.
It is served over the ACP connection itself when the agent advertises ``mcpCapabilities.acp``
(``mcp/connect`` / ``mcp/message``, ``acp_transport``), otherwise over streamable HTTP on
127.0.0.1 with a bearer token (``server``). Needs the ``mcp`` SDK (``pip install
'nbacp[tools]'``), imported only when a session starts with tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

from nbacp.client.tools.acp_transport import host_for
from nbacp.client.tools.runner import MAX_IMAGES, MAX_OUTPUT
from nbacp.client.tools.server import KernelToolServer
from nbacp.client.turns.attachments import MAX_ROWS
from nbacp.errors import ToolsNotSupportedError
from nbacp.kernel import versions
from nbacp.kernel.open_notebook import OpenNotebook
from nbacp.marimo_runtime import running_in_marimo

if TYPE_CHECKING:
    from nbacp.client.notebook_client import NotebookClient
    from nbacp.kernel.notebook_edits import NotebookLink

__all__ = ["KernelTools", "kernel_tools"]


class Default(Enum):
    """``kernel_tools(notebook=...)`` left out (``None`` given means no notebook tools)."""

    OPEN_NOTEBOOK = "the open notebook"


@dataclass(frozen=True, eq=False)
class KernelTools:
    """What ``new_session(tools=...)`` should serve; each session starts its own server from it."""

    max_rows: int = MAX_ROWS
    max_output: int = MAX_OUTPUT
    max_images: int = MAX_IMAGES
    namespace: dict[str, Any] | None = None  # None: the kernel's user namespace, looked up per call
    notebook: NotebookLink | None = None  # the way to the open notebook: notebook_read / notebook_edit

    async def start(self, client: NotebookClient, agent_capabilities: Any) -> KernelToolServer:
        """Start a server for one session: over ACP when the agent advertises it, else over HTTP."""
        mcp_caps = getattr(agent_capabilities, "mcp_capabilities", None)
        over_acp = bool(getattr(mcp_caps, "acp", False))
        if not over_acp and not getattr(mcp_caps, "http", False):
            raise ToolsNotSupportedError(
                "The agent accepts neither MCP over ACP (mcpCapabilities.acp) nor HTTP MCP servers "
                "(mcpCapabilities.http), so it cannot reach the kernel tools; no session was created."
            )
        try:
            import mcp  # noqa: F401
        except ImportError as exc:  # pragma: no cover - the test extra installs it
            raise ImportError("nbacp's kernel tools need the MCP SDK: pip install 'nbacp[tools]'") from exc
        server = KernelToolServer(self, client)
        if over_acp:
            server.start_acp(host_for(client))
        else:
            await server.start()
        return server


def kernel_tools(
    *,
    max_rows: int = MAX_ROWS,
    max_output: int = MAX_OUTPUT,
    max_images: int = MAX_IMAGES,
    namespace: dict[str, Any] | None = None,
    notebook: NotebookLink | None | Literal[Default.OPEN_NOTEBOOK] = Default.OPEN_NOTEBOOK,
) -> KernelTools:
    """Kernel tools for ``conn.new_session(tools=...)``; the bounds apply to what goes back to the agent.

    ``notebook``: the way to the person's open notebook; with it the session also gets
    ``notebook_read`` and ``notebook_edit`` (every proposal reviewed on a card). Left out, in a
    kernel it is the notebook the prompt cell is in (docs/notebook-edits.md, 'The default
    wiring'), outside one and in marimo there is none; ``None``: no notebook tools.
    """
    if notebook is Default.OPEN_NOTEBOOK:
        # marimo's cells are out of reach (the notebook tools need JupyterLab's front-end piece)
        notebook = OpenNotebook() if versions.running_in_kernel() and not running_in_marimo() else None
    return KernelTools(
        max_rows=max_rows, max_output=max_output, max_images=max_images, namespace=namespace, notebook=notebook
    )
