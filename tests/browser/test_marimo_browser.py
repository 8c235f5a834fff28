"""nbacp in a real marimo (0.25.2) notebook in headless chromium: cards answered by clicking.

Each test writes a marimo notebook into a private HOME, serves it with ``marimo edit --headless``
(cells run when the page opens, ``auto_instantiate``), and acts as a person would: ticks, types,
clicks Accept or Allow, or the editor's stop button. What is checked is what the cells received
(a later cell's output, the prompt cell's print) and, for the stop button, what the agent was
told. The waits are for visible state; nothing rests on timing (docs/marimo.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from marimo_support import OUTPUT, TURN_TIMEOUT, card, keep_shot, marimo_edit
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.marimo

HEADER = "import marimo\n\napp = marimo.App()\n\n"
FOOTER = '\nif __name__ == "__main__":\n    app.run()\n'

FORM_NOTEBOOK = (
    HEADER
    + """
@app.cell
async def _():
    import marimo as mo

    import nbacp

    schema = {
        "type": "object",
        "properties": {
            "question_0": {"type": "array", "title": "Toppings", "items": {"anyOf": [
                {"const": o, "title": o} for o in ["Cheese", "Mushrooms", "Olives"]]}},
            "question_0_custom": {"type": "string", "title": "Other"},
        },
    }
    view = nbacp.FormCard("Your pizza order", schema, agent="pizza agent")
    mo.output.replace(view)
    response = await view
    return (response,)


@app.cell
def _(response):
    f"action={response.action} picked={response.content['question_0']} other={response.content['question_0_custom']}"
    return
"""
    + FOOTER
)

README_NOTEBOOK = (
    HEADER
    + """
@app.cell
async def _():
    import nbacp
    from nbacp.demo import demo_agent

    conn = await nbacp.connect(demo_agent())
    session = await conn.new_session(cwd=".")
    result = await session.prompt("full")
    print(result.stop_reason, result.text)
    return (result,)


@app.cell
def _(result):
    "next cell: " + " | ".join(answer for _, _, answer in result.answers)
    return
"""
    + FOOTER
)

# The stop button: the cell's except clause leaves a task behind that waits for the turn to end
# and writes what the agent's side saw (the turn's stop reason, the demo agent's plan) to a file.
STOP_NOTEBOOK = (
    HEADER
    + """
@app.cell
async def _():
    import asyncio
    import json

    import nbacp
    from nbacp.demo import demo_agent

    plans = []
    conn = await nbacp.connect(demo_agent(plans=plans))
    session = await conn.new_session(cwd=".")
    kept = []

    async def report():
        turn = session.turn
        await asyncio.wait([turn.task], timeout=30)
        done = turn.task.done() and not turn.task.cancelled()
        facts = {
            "stop_reason": turn.task.result().stop_reason if done else None,
            "plans": [[p.scenario, list(p.stopped) if p.stopped else None] for p in plans],
        }
        with open("stop-report.json", "w") as f:
            json.dump(facts, f)

    try:
        result = await session.prompt("full")
    except asyncio.CancelledError:
        kept.append(asyncio.ensure_future(report()))
        raise
    return
"""
    + FOOTER
)


def choice(form: Locator, title: str) -> Locator:
    return form.locator(".nbacp-cc").filter(has=form.page.locator(".nbacp-cc-title", has_text=title))


def open_notebook(page: Page, url: str) -> None:
    page.goto(url)


def test_a_form_card_awaited_in_a_cell_returns_what_was_clicked(page: Page, tmp_path: Path) -> None:
    with marimo_edit(tmp_path, "form.py", FORM_NOTEBOOK) as server:
        open_notebook(page, server.url)
        form = card(page, "form", "Toppings")
        form.get_by_role("checkbox", name="Cheese").click()
        form.get_by_role("checkbox", name="Olives").click()
        form.get_by_role("textbox", name="Other").press_sequentially("basil")
        form.get_by_role("button", name="Accept").click()
        # marimo shows a str result with its quotes
        expect(
            page.locator(OUTPUT).get_by_text("\"action=accept picked=['Cheese', 'Olives'] other=basil\"", exact=True)
        ).to_be_visible(timeout=TURN_TIMEOUT)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_readme_lines_answered_by_clicking(page: Page, tmp_path: Path, theme: str) -> None:
    """The README's lines unchanged: four cards answered as a person would, the permission card
    with Allow; the cell prints the stop reason and every typed value; the next cell runs from
    ``result``."""
    with marimo_edit(tmp_path, "readme.py", README_NOTEBOOK, theme=theme) as server:
        open_notebook(page, server.url)
        env = card(page, "form", "Which environment")
        # The live turn view (one anywidget per turn) streams in the cell, the card drawn inside it.
        expect(page.locator(".nbacp-tv-card .nbacp-kind-form")).to_have_count(1)
        expect(page.locator(OUTPUT).get_by_text("Let's plan tonight's data pipeline run.")).to_be_visible()
        keep_shot(page, tmp_path / f"marimo-live-turn-{theme}.png")
        env.get_by_role("radio", name="Production").click()
        env.get_by_role("button", name="Accept").click()
        plan = card(page, "form", "Datasets")
        datasets, schedule = choice(plan, "Datasets"), choice(plan, "Schedule")
        datasets.get_by_role("checkbox", name="Orders").click()
        datasets.get_by_role("checkbox", name="Events").click()
        datasets.get_by_role("textbox").press_sequentially("clickstream")
        schedule.get_by_role("radio", name="Right now").click()
        schedule.get_by_role("textbox").press_sequentially("after the nightly backup")
        keep_shot(plan, tmp_path / f"marimo-plan-card-{theme}.png")
        plan.get_by_role("button", name="Accept").click()
        workers = card(page, "form", "How many workers")
        workers.get_by_role("spinbutton").fill("8")
        workers.get_by_role("button", name="Accept").click()
        launch = card(page, "permission", "launch_pipeline_run")
        launch.get_by_role("button", name="Allow", exact=True).click()
        following = page.locator(OUTPUT).filter(has_text="next cell: Accepted")
        answers = (
            "Accepted: Production | Accepted: Orders, Events + \u201cclickstream\u201d"
            " | Accepted: \u201cafter the nightly backup\u201d | Accepted: 8 | Chose: Allow (allow_once)"
        )
        expect(following).to_have_text(f"'next cell: {answers}'", timeout=TURN_TIMEOUT)  # a str's repr
        printed = page.get_by_text("end_turn Let's plan", exact=False)  # the print, under the cell
        expect(printed).to_be_visible()
        for line in (
            "environment = <Environment.PRODUCTION: 'production'>",
            "datasets = [<Dataset.ORDERS: 'orders'>, <Dataset.EVENTS: 'events'>] + other 'clickstream'",
            "schedule = other 'after the nightly backup'",
            "workers = 8",
            "launch: approved",
        ):
            expect(printed).to_contain_text(line)
        page.set_viewport_size({"width": 1280, "height": 2000})  # marimo scrolls inside its app: no full_page
        keep_shot(page, tmp_path / f"marimo-readme-{theme}.png")


def test_the_stop_button_during_a_pending_card_cancels_the_turn(page: Page, tmp_path: Path) -> None:
    with marimo_edit(tmp_path, "stop.py", STOP_NOTEBOOK) as server:
        open_notebook(page, server.url)
        card(page, "form", "Which environment")
        page.locator('[data-testid="interrupt-button"]').click()
        expect(page.get_by_text("This cell was interrupted", exact=False)).to_be_visible(timeout=TURN_TIMEOUT)
        report = server.notebook.parent / "stop-report.json"
        expect(page.locator(".nbacp-kind-form")).to_have_count(0)  # marimo replaced the cell's output
        facts = wait_for_file(page, report)
        # The agent answered the prompt with stopReason "cancelled" (it got session/cancel; without
        # it the turn would still wait on the card and the report would say None), and its plan
        # tool was cancelled mid-question, so it recorded no plan.
        assert facts == {"stop_reason": "cancelled", "plans": []}, facts


def wait_for_file(page: Page, path: Path, timeout_ms: int = TURN_TIMEOUT) -> dict[str, object]:
    """The JSON the notebook's report task writes once the turn has ended (polled, bounded)."""
    waited = 0
    while not path.is_file() and waited < timeout_ms:
        page.wait_for_timeout(100)
        waited += 100
    assert path.is_file(), f"the turn never ended after the stop button ({path} missing)"
    found: dict[str, object] = json.loads(path.read_text())
    return found
