"""The client system prompt sent from a real marimo kernel says "a marimo notebook" (``marimo export html``).

The peer is the raw ``raw_session_agent`` (tests/support/raw_session_agent.py), which advertises
``sessionCapabilities.systemPrompt`` and reports every request exactly as it received it; the
prompt cell writes the ``systemPrompt`` text of its ``session/new`` to a file this test reads.
The Jupyter side (and plain Python) is tests/client/sessions/test_system_prompt.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import raw_session_agent
from support.marimo_cli import export_html

from nbacp.client.sessions import system_prompt

pytestmark = pytest.mark.marimo
pytest.importorskip("mcp")  # the kernel tools' server

CAPABILITIES = {"sessionCapabilities": {"systemPrompt": {}}, "mcpCapabilities": {"http": True}}

NOTEBOOK = """import marimo

app = marimo.App()


@app.cell
async def _():
    import json
    import sys

    import nbacp

    conn = await nbacp.connect([sys.executable, AGENT, CAPS])
    plain = await conn.new_session()
    tools = await conn.new_session(tools=nbacp.kernel_tools())
    result = await tools.prompt("[]")
    sent = [p["systemPrompt"]["content"][0]["text"] for m, p in json.loads(result.text)["calls"] if m == "session/new"]
    with open("prompt-report.json", "w") as f:
        json.dump(sent, f)
    await conn.close()
    return


if __name__ == "__main__":
    app.run()
"""


def test_a_marimo_kernel_sends_the_marimo_text(tmp_path: Path) -> None:
    caps = tmp_path / "caps.json"
    caps.write_text(json.dumps(CAPABILITIES))
    notebook = tmp_path / "prompt.py"
    source = NOTEBOOK.replace("AGENT", repr(raw_session_agent.__file__)).replace("CAPS", repr(str(caps)))
    notebook.write_text(source)
    done = export_html(notebook, tmp_path / "prompt.html", timeout=150)
    report = tmp_path / "prompt-report.json"
    assert report.is_file(), done.stdout + done.stderr
    plain, with_tools = json.loads(report.read_text())
    assert plain == system_prompt.compose(True, runtime="marimo")
    assert with_tools == system_prompt.compose(True, kernel_tools=True, runtime="marimo")
    for text in (plain, with_tools):
        assert text.startswith("You are connected to a marimo notebook") and "Jupyter" not in text
        assert ".ipynb" not in text and "notebook_edit" not in text and "notebook_read" not in text
        assert "show its code in your answer" in text
    assert "run_python" in with_tools and "re-run" in with_tools
