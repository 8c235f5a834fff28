"""The demo's "cell" scenario: the agent proposes a new cell in the person's notebook.

Through the kernel tools (an HTTP MCP server in ``session/new``, reached with the ``mcp``
SDK's own client, as in ``explore``): ``notebook_read``, then ``notebook_edit`` inserting one
cell after the prompt's cell (or, when the notebook cannot be read, one new cell for the link
to hand on as that front end allows) (``df.describe()`` for the first DataFrame ``list_variables``
names, else a greeting), which the person reviews on a card. The report is the tool's own
outcome, word for word: what the notebook really holds now, never what the agent hoped.
"""

from __future__ import annotations

import json

from pydantic_acp import AcpSessionContext

from nbacp.demo.explore import dataframes, notebook_server, notebook_tools, tool_text

NO_NOTEBOOK_TOOLS = (
    "I cannot write into your notebook: this session's kernel tools have no notebook_read / "
    "notebook_edit (start it with `tools=nbacp.kernel_tools()` in a notebook's kernel) and ask again."
)


def proposed_source(listing: str) -> str:
    """The cell the demo proposes: describe the first DataFrame, or say hello."""
    frames = dataframes(listing)
    if frames:
        return f"# proposed by the nbacp demo agent\n{frames[0][0]}.describe()"
    return "# proposed by the nbacp demo agent\nprint('Hello from the demo agent')"


async def propose_cell(deps: AcpSessionContext) -> str:
    """Read the notebook, propose one cell after the prompt's, report the true outcome."""
    server = notebook_server(deps)
    if server is None:
        return NO_NOTEBOOK_TOOLS
    async with notebook_tools(server) as mcp:
        names = [tool.name for tool in (await mcp.list_tools()).tools]
        if "notebook_edit" not in names:
            return NO_NOTEBOOK_TOOLS
        read = await mcp.call_tool("notebook_read", {})
        # Unreadable (no page with nbacp's front-end piece): a new cell may still go in another way.
        view = {} if read.is_error else json.loads(tool_text(read))
        source = proposed_source(tool_text(await mcp.call_tool("list_variables", {})))
        anchor = view.get("prompt_cell_id")
        arguments = {
            "notebook_path": view.get("notebook_path", "this notebook"),
            "new_source": source,
            "edit_mode": "insert",
            "cell_type": "code",
            **({"cell_id": anchor} if anchor else {}),
        }
        result = await mcp.call_tool("notebook_edit", arguments)
        where = f"after cell {anchor}" if anchor else "below your prompt"
        unread = f"I could not read your notebook ({tool_text(read)})\n" if read.is_error else ""
        return f"{unread}I proposed a new cell {where}:\n{source}\n\nWhat happened: {tool_text(result)}"
