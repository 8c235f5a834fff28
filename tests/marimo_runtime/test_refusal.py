"""nbacp.marimo_runtime in a real marimo kernel, exported headless, and where marimo is absent.

The forwarding relies on private marimo internals (docs/marimo.md): where one is missing, a
cell that awaits a card must raise ``CellWaitUnavailableError`` at once, saying why, rather
than wait for a click that could never arrive. The test removes one (``ModelCommand``) inside
a real marimo kernel (``marimo export html`` runs the cells) and reads the cell's error.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.marimo_cli import export_html

from nbacp.marimo_runtime import running_in_marimo

REPO = Path(__file__).resolve().parents[2]

BROKEN = """import marimo

app = marimo.App()


@app.cell
async def _():
    import marimo._runtime.commands as commands

    del commands.ModelCommand  # as in a marimo release that renamed it
    import nbacp

    card = nbacp.FormCard("Pick", {"type": "object", "properties": {"x": {"type": "string"}}})
    await card
    return


if __name__ == "__main__":
    app.run()
"""


def test_outside_marimo_nothing_is_marimo() -> None:
    assert running_in_marimo() is False


def test_nbacp_never_imports_marimo_itself() -> None:
    """A plain kernel pays nothing for marimo: making and showing a card leaves it unimported."""
    code = (
        "import sys, nbacp; from nbacp.display import show; "
        "card = nbacp.FormCard('Pick', {'type': 'object', 'properties': {'x': {'type': 'string'}}}); show(card); "
        "print('marimo' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@pytest.mark.marimo
def test_a_card_awaited_where_forwarding_is_missing_is_refused_at_once(tmp_path: Path) -> None:
    notebook = tmp_path / "broken.py"
    notebook.write_text(BROKEN)
    out = tmp_path / "broken.html"
    done = export_html(notebook, out, timeout=120)  # a wait that is not refused would hang here
    report = done.stdout + done.stderr
    assert "some cells failed to execute" in report, report
    assert "CellWaitUnavailableError" in out.read_text(encoding="utf-8")  # the cell's error, as exported
    assert "a marimo cell cannot wait for a card here: nbacp cannot reach marimo's widget comm manager" in report
