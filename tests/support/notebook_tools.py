"""The notebook tools' tests' shared pieces: a notebook, the calls, a turn that makes them.

The agent is ``McpAcpAgent`` (tests/support/mcp_acp_agent.py), in process or over stdio, which
makes the tool calls a test names (``calls <JSON>``) and reports their MCP results; the notebook
is ``MemoryNotebook`` (tests/support/memory_notebook.py says why a stand-in).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from support import SUPPORT
from support.mcp_acp_agent import McpAcpAgent
from support.memory_notebook import MemoryNotebook, cell

import nbacp

AGENT = SUPPORT / "mcp_acp_agent.py"
PATH = "work/analysis.ipynb"


def notebook(**kw: Any) -> MemoryNotebook:
    cells = [
        cell("intro", "# Revenue", "markdown"),
        cell("load", "df = load()", count=1, outputs="   month  revenue\n0  jan  10"),
        cell("ask", "await session.prompt('add a plot')", count=2),
    ]
    return MemoryNotebook(PATH, cells, "ask", **kw)


def read() -> dict[str, Any]:
    return {"name": "notebook_read"}


def edit(**arguments: Any) -> dict[str, Any]:
    return {"name": "notebook_edit", "arguments": {"notebook_path": f"/home/me/{PATH}", **arguments}}


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in result["result"]["content"] if b["type"] == "text")


def failed(result: dict[str, Any]) -> bool:
    return bool(result["result"].get("isError"))


async def run(
    book: MemoryNotebook, steps: list[Any], answers: Any = None, *, transport: str = "memory"
) -> tuple[list[Any], Any]:
    agent: Any = McpAcpAgent() if transport == "memory" else [sys.executable, str(AGENT)]
    async with asyncio.timeout(60):
        async with nbacp.connect(agent, answers=answers) as conn:
            session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}, notebook=book))
            result = await session.prompt("calls " + json.dumps(steps))
    return json.loads(result.text)["results"], result
