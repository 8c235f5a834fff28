"""The review card in a real ``marimo edit`` (headless chromium): its fallback, answered by clicking.

marimo's cells are out of nbacp's reach, so ``kernel_tools()`` offers no notebook tools there
(docs/marimo.md). A person may still give a session a ``NotebookLink`` of their own; the one here
is what marimo allows, the review card's fallback: it cannot read the notebook, and an accepted
cell is not applied but stays on the card to copy. The demo agent's ``cell`` turn proposes one
cell; the person edits it on the card and presses Accept. Checked: the card shows inside the live
turn view with the not-live note; the agent is told "not applied" (never "applied") with the
person's version, not the proposal (the draft travelled with Accept), and the turn's record keeps
that version once the live view, and the card's copy block with it, made way for the record.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from marimo_support import OUTPUT, TURN_TIMEOUT, keep_shot, marimo_edit
from playwright.sync_api import Page, expect
from support.sdk_line import require_acp_kit

pytestmark = pytest.mark.marimo
pytest.importorskip("mcp")

WHY = "marimo's cells are out of nbacp's reach"
EDITED = "# the person's version\nprint('edited on the card')"

NOTEBOOK = """import marimo

app = marimo.App()


@app.cell
async def _():
    import nbacp
    from nbacp.demo import demo_agent
    from nbacp.kernel.notebook_edits import EditResult

    class CopyOnly:  # a NotebookLink: nothing read, an accepted cell kept on the card to copy
        live = False
        why_not_live = WHY

        def turn_started(self):
            pass

        async def read(self):
            raise nbacp.NotebookUnavailableError(WHY)

        async def apply(self, edit):
            return EditResult("not_applied", None, None, "copy it from the card into a cell")

    conn = await nbacp.connect(demo_agent())
    session = await conn.new_session(cwd=".", tools=nbacp.kernel_tools(notebook=CopyOnly()))
    result = await session.prompt("cell")
    print("printed:", result.stop_reason, result.text.replace(chr(10), " / "))
    return (result,)


@app.cell
def _(result):
    "next cell: " + " | ".join(f"{a.kind} {a.action}" for a in result.answers)
    return
""".replace("WHY", repr(WHY))


def test_the_review_cards_fallback_edited_and_accepted(page: Page, tmp_path: Path) -> None:
    require_acp_kit()  # the demo agent
    with marimo_edit(tmp_path, "review.py", NOTEBOOK) as server:
        page.goto(server.url)
        review = page.locator(".nbacp-tv-card .nbacp-kind-review")  # inside the live turn view
        expect(review).to_have_count(1, timeout=TURN_TIMEOUT)
        expect(review.locator(".nbacp-review-notlive")).to_contain_text(WHY)
        source = review.locator("textarea.nbacp-review-source")
        expect(source).to_have_value(re.compile(r"^# proposed by the nbacp demo agent\n"))
        source.fill(EDITED)
        keep_shot(review, tmp_path / "marimo-review.png")
        review.get_by_role("button", name="Accept", exact=True).click()
        printed = page.get_by_text("printed: end_turn", exact=False)
        expect(printed).to_contain_text("What happened: Not applied", timeout=TURN_TIMEOUT)
        expect(printed).to_contain_text("copy it from the card into a cell")
        expect(printed).to_contain_text(
            "The person's version, not applied: / # the person's version / print('edited on the card')"
        )
        expect(printed).not_to_contain_text("Accepted as")
        record = page.locator(OUTPUT).filter(has_text="Stop reason: end_turn")
        expect(record).to_contain_text("print('edited on the card')")
        following = page.locator(OUTPUT).filter(has_text="next cell: ")
        expect(following).to_have_text("'next cell: review accept'")
        expect(page.get_by_text("Traceback", exact=False)).to_have_count(0)
        page.set_viewport_size({"width": 1280, "height": 2000})
        keep_shot(page, tmp_path / "marimo-review-done.png")
