"""A notebook run to the end leaves no widget in its outputs: what nbclient (and a saved file) keeps.

nbclient applies ``update_display_data`` to the outputs it collects, like JupyterLab does to a
notebook it saves; with no widget state stored (JupyterLab's default), any output that is
still a widget view would read "Error displaying widget: model not found" once reopened
(docs/record.md, 'Saved notebooks').
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from support.sdk_line import HAS_ACP_KIT, NO_ACP_KIT

# the notebook runs the built-in demo agent, an ACP Kit agent (no release for SDK 1.x)
pytestmark = [pytest.mark.kernel, pytest.mark.skipif(not HAS_ACP_KIT, reason=NO_ACP_KIT)]

ROOT = Path(__file__).resolve().parents[3]
WIDGET = "application/vnd.jupyter.widget-view+json"
CELLS = [
    "import nbacp, nbacp.answers\nfrom nbacp.demo import demo_agent",
    "conn = await nbacp.connect(demo_agent(), answers=nbacp.answers.decline)\n"
    "session = await conn.new_session(cwd='.')",
    "declined = await session.prompt('quick')",
    "turn = session.start('hello')\nawait turn",  # nbclient keeps only what comes while the cell runs
    "await conn.close()",
]


def test_a_finished_notebook_has_only_static_outputs(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in CELLS])
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env_path) if p)
    try:
        NotebookClient(
            nb,
            timeout=120,
            kernel_name="python3",
            store_widget_state=False,
            resources={"metadata": {"path": str(tmp_path)}},
        ).execute()
    finally:
        os.environ["PYTHONPATH"] = env_path
    outputs = [(i, o) for i, c in enumerate(nb.cells) for o in c.outputs]
    assert not [o for _, o in outputs if o.output_type == "error"], outputs
    assert [(i, o.data["text/plain"]) for i, o in outputs if WIDGET in o.get("data", {})] == []
    records = [o.data["text/plain"] for _, o in outputs if "nbacp-record" in o.get("data", {}).get("text/html", "")]
    assert len(records) == 2 and "Question: Which datasets should the run refresh?\n  Answer: Declined." in records[0]
    assert "Stop reason: end_turn" in records[1]
