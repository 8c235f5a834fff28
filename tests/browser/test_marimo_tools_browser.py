"""The kernel tools in a real marimo notebook in headless chromium: run_python allowed by a click.

A deterministic agent (``McpAcpAgent``, tests/support/mcp_acp_agent.py, run as a subprocess) calls
``tools/list``, ``list_variables`` and ``run_python`` over MCP-over-ACP; ``run_python``'s
permission card shows in the prompt cell and is answered by clicking "Allow once". The prompt cell
prints what the agent got back, and the test reads that line: the names another cell defined,
the run's value, no notebook tools (docs/marimo.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from marimo_support import marimo_edit
from playwright.sync_api import Page, expect
from support import SUPPORT

pytestmark = pytest.mark.marimo
pytest.importorskip("mcp")

TURN_TIMEOUT = 60_000

NOTEBOOK = """import marimo

app = marimo.App()


@app.cell
def _():
    n = 3
    words = ["a", "b"]
    return n, words


@app.cell
async def _(n, words):
    import json
    import sys

    import nbacp

    conn = await nbacp.connect([sys.executable, AGENT])
    session = await conn.new_session(tools=nbacp.kernel_tools())
    result = await session.prompt("tools code y = n * 14; y")
    report = json.loads(result.text)
    listed = report["variables"]["result"]["content"][0]["text"]
    print(
        "tools:", ",".join(t["name"] for t in report["list"]["result"]["tools"]),
        "| n listed:", "n" in listed and "words" in listed,
        "| run:", report["run"]["result"]["content"][0]["text"].replace(chr(10), " "),
        "| y:", globals().get("y"),
    )
    return
"""


def test_list_variables_and_run_python_allowed_by_a_click(page: Page, tmp_path: Path) -> None:
    source = NOTEBOOK.replace("AGENT", repr(str(SUPPORT / "mcp_acp_agent.py")))
    with marimo_edit(tmp_path, "tools.py", source) as server:
        page.goto(server.url)
        permission = page.locator(".nbacp-kind-permission").filter(has_text="y = n * 14")
        expect(permission).to_have_count(1, timeout=TURN_TIMEOUT)  # the card shows the code to run
        # nothing printed before the click (the editor holds the print's code, not its output)
        expect(page.get_by_text("list_variables,describe,run_python", exact=False)).to_have_count(0)
        permission.get_by_role("button", name="Allow once", exact=True).click()
        printed = page.get_by_text("tools: list_variables,describe,run_python | n listed: True", exact=False)
        expect(printed).to_be_visible(timeout=TURN_TIMEOUT)  # no notebook_read / notebook_edit offered
        expect(printed).to_contain_text("42")  # run_python's value reached the agent
        expect(printed).to_contain_text("| y: 42")  # it ran in marimo's globals
