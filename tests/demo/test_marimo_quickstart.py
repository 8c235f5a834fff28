"""notebooks/marimo_quickstart.py exported headless by marimo: the README's lines answer themselves.

``marimo export html`` runs every cell in a real marimo kernel (nbacp sees a marimo runtime:
``running_in_marimo()`` is true there) with ``NBACP_ANSWERS`` naming notebooks/answers, so the
demo agent's four cards are answered from quickstart.json with no page. The HTML must hold the
typed values the agent received (the prompt cell's print) and the next cell's answers, and no
cell may fail. HOME and the XDG folders are temporary: marimo never reads or writes the user's.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.marimo_cli import export_html
from support.sdk_line import require_acp_kit

pytestmark = pytest.mark.marimo

REPO = Path(__file__).resolve().parents[2]


def test_the_marimo_quickstart_exports_with_every_answer(tmp_path: Path) -> None:
    require_acp_kit()  # the demo agent
    out = tmp_path / "quickstart.html"
    # A copy: marimo writes its session cache (__marimo__/) beside the notebook it runs.
    notebook = tmp_path / "marimo_quickstart.py"
    shutil.copy(REPO / "notebooks" / "marimo_quickstart.py", notebook)
    done = export_html(notebook, out, timeout=300, env={"NBACP_ANSWERS": str(REPO / "notebooks" / "answers")})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "failed" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    page = out.read_text(encoding="utf-8")
    # The prompt cell's print: the stop reason and every typed value the agent received.
    for line in (
        "end_turn Let's plan tonight's data pipeline run.",
        r"environment = \u003CEnvironment.PRODUCTION: 'production'\u003E",
        r"+ other 'clickstream'",
        "schedule = other 'after the nightly backup'",
        "workers = 8",
        "launch: approved",
    ):
        assert line in page, line
    # The next cell ran from ``result``: its answers as the cards summed them up.
    assert r"[\"Accepted: Production\", \"Accepted: Orders, Events + \\u201cclickstream\\u201d\"" in page
    assert r"\"Accepted: 8\", \"Chose: Allow (allow_once)\"]" in page
    assert "MarimoExceptionRaisedError" not in page
    assert not (REPO / "notebooks" / "__marimo__").exists()  # the checkout stays as it was
