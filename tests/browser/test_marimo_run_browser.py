"""``marimo run notebooks/marimo_quickstart.py`` (the app view) with ``NBACP_ANSWERS`` set.

The app view runs every cell when the page opens; the ``answers=`` policies the variable names
answer each card, so nobody clicks, and the page shows the turn's answered record (the app view
hides the cells' console output, so the prompt cell's print is not on the page; docs/marimo.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from marimo_support import marimo_edit
from playwright.sync_api import Page, expect
from support.sdk_line import require_acp_kit

pytestmark = pytest.mark.marimo

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_MS = 90_000


def test_marimo_run_shows_the_answered_quickstart(page: Page, tmp_path: Path) -> None:
    require_acp_kit()  # the demo agent
    source = (REPO / "notebooks" / "marimo_quickstart.py").read_text()
    answers = {"NBACP_ANSWERS": str(REPO / "notebooks" / "answers")}
    with marimo_edit(tmp_path, "marimo_quickstart.py", source, mode="run", env=answers) as server:
        page.goto(server.url)
        # The app view hides the cells' console output (the print); the turn's record shows what the
        # agent received, in its final message, and each question with its answer.
        printed = page.get_by_text("Here is what I received:", exact=False)
        expect(printed).to_be_visible(timeout=TIMEOUT_MS)
        for line in (
            "environment = <Environment.PRODUCTION: 'production'>",
            "+ other 'clickstream'",
            "schedule = other 'after the nightly backup'",
            "workers = 8",
            "launch: approved",
        ):
            expect(printed).to_contain_text(line)
        expect(page.get_by_text("Chose: Allow (allow_once)", exact=False).first).to_be_visible()
        expect(page.get_by_text("Orders, Events + \u201cclickstream\u201d", exact=False).first).to_be_visible()
