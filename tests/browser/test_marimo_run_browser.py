"""``marimo run`` (the app view): the quickstart answered headless, and a card answered by clicking.

The app view runs every cell when the page opens. With ``NBACP_ANSWERS`` set, the ``answers=``
policies it names answer each card, so nobody clicks, and the page shows the turn's answered
record. Without it, the card waits in the prompt cell's output for a person, as in ``marimo
edit``. The app view hides the cells' console output (docs/marimo.md), so what a cell printed
is not on the page: a later cell's output shows what reached ``result``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from marimo_support import OUTPUT, TURN_TIMEOUT, card, keep_shot, marimo_edit
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


CLICKED_NOTEBOOK = """import marimo

app = marimo.App()


@app.cell
async def _():
    import nbacp
    from nbacp.demo import demo_agent

    conn = await nbacp.connect(demo_agent())
    session = await conn.new_session(cwd=".")
    result = await session.prompt("quick")
    return (result,)


@app.cell
def _(result):
    # what the agent reported receiving (its last line), and the card's answer as the client kept it
    "next cell: " + result.text.splitlines()[-1] + " | " + " | ".join(str(a) for a in result.answers)
    return
"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_marimo_run_card_answered_by_clicking(page: Page, tmp_path: Path, theme: str) -> None:
    """No answers: the app view shows the demo agent's card; two ticks, Other typed, Accept; the
    next cell's output shows the typed values the agent received (it runs only once the prompt
    cell ended without an error)."""
    require_acp_kit()
    with marimo_edit(tmp_path, "quick.py", CLICKED_NOTEBOOK, theme=theme, mode="run") as server:
        page.goto(server.url)
        form = card(page, "form", "Which datasets")
        form.get_by_role("checkbox", name="Orders").click()
        form.get_by_role("checkbox", name="Events").click()
        form.get_by_role("textbox").press_sequentially("clickstream")
        keep_shot(form, tmp_path / f"marimo-run-card-{theme}.png")
        form.get_by_role("button", name="Accept").click()
        following = page.locator(OUTPUT).filter(has_text="next cell: ")
        expect(following).to_have_text(
            "\"next cell: datasets = [<Dataset.ORDERS: 'orders'>, <Dataset.EVENTS: 'events'>] + other 'clickstream'"
            ' | Accepted: Orders, Events + \u201cclickstream\u201d"',  # the str's repr: quotes inside
            timeout=TURN_TIMEOUT,
        )
