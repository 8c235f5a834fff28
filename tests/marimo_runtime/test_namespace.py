"""The kernel tools in a real marimo kernel (``marimo export html`` runs the cells, headless).

``list_variables`` / ``describe`` / ``run_python`` must work on marimo's globals (the names the
notebook's cells defined), and the notebook tools must not be offered: they cannot reach marimo's
cells (docs/marimo.md). The agent is the raw ``McpAcpAgent`` (tests/support/mcp_acp_agent.py),
run as a subprocess; it calls the tools over MCP-over-ACP and reports what it got, and the
prompt cell writes the facts to a file this test reads. The permission card for ``run_python``
is answered by an ``answers=`` policy here (a person's click is tested in
tests/browser/test_marimo_tools_browser.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import SUPPORT
from support.marimo_cli import export_html

pytestmark = pytest.mark.marimo
pytest.importorskip("mcp")

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
    from nbacp.answers import Script
    from nbacp.client.turns.namespace import user_namespace

    import types

    saved = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")  # as another kernel thread of `marimo run` may leave it
    try:
        own_globals_when_main_moved = user_namespace() is globals()
    finally:
        sys.modules["__main__"] = saved

    tools = nbacp.kernel_tools()
    policy = Script([{"expect": "permission", "choose": "allow_once"}])
    conn = await nbacp.connect([sys.executable, AGENT], answers=policy)
    session = await conn.new_session(tools=tools)
    result = await session.prompt("tools code y = n * 14; y")
    report = json.loads(result.text)
    facts = {
        "is_globals": user_namespace() is globals(),
        "main_moved": own_globals_when_main_moved,
        "notebook": tools.notebook is None,
        "tools": [t["name"] for t in report["list"]["result"]["tools"]],
        "variables": report["variables"]["result"]["content"][0]["text"],
        "run": report["run"]["result"],
        "y": globals().get("y"),
        "n_words": [n, words],
    }
    with open("tools-report.json", "w") as f:
        json.dump(facts, f)
    await conn.close()
    return


if __name__ == "__main__":
    app.run()
"""


def test_kernel_tools_in_marimo_read_and_run_in_the_notebooks_globals(tmp_path: Path) -> None:
    notebook = tmp_path / "tools.py"
    notebook.write_text(NOTEBOOK.replace("AGENT", repr(str(SUPPORT / "mcp_acp_agent.py"))))
    done = export_html(notebook, tmp_path / "tools.html", timeout=150)
    report = tmp_path / "tools-report.json"
    assert report.is_file(), done.stdout + done.stderr
    facts = json.loads(report.read_text())
    assert facts["is_globals"] is True  # the namespace the tools use is marimo's globals
    # ... found through marimo's runtime context, not sys.modules["__main__"], which marimo run's
    # kernel threads share (marimo/_runtime/patches.py: patch_main_module)
    assert facts["main_moved"] is True
    assert facts["notebook"] is True and facts["tools"] == ["list_variables", "describe", "run_python"]
    # list_variables shows the other cell's names (and not marimo's own or the modules)
    assert "n" in facts["variables"] and "words" in facts["variables"]
    assert "__marimo__" not in facts["variables"]
    run = facts["run"]
    assert not run.get("isError") and "42" in run["content"][0]["text"]  # run_python's result reached the agent
    assert facts["y"] == 42  # it ran in marimo's globals
