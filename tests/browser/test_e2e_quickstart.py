"""End to end: the quickstart's demo agent, answered by clicking and typing in a real front end.

The lab server's kernels have no NBACP_ANSWERS, so every card waits for this test, exactly
as for a person. Assertions read what the AGENT reports back (its typed values, printed in
the turn and in later cells) and the static record of each turn, not the widgets' state.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import textwrap
from pathlib import Path

from browser_support import JupyterServer, cell, open_notebook, output_area, run_all_cells, screenshot
from playwright.sync_api import Locator, Page, expect

TURN_TIMEOUT = 60_000
DOCS_SHOT = Path(__file__).parents[2] / "docs" / "quickstart.png"
DOCS_SHOT_MAX_BYTES = 300_000
# The demo agent serves its sign-in page itself, on a random loopback port and an unguessable path.
LOGIN_URL = re.compile(r"^http://127\.0\.0\.1:\d+/nbacp-demo/login/[\w-]{16,}$")
# Code cells of notebooks/quickstart.ipynb, counted among all its cells.
FULL_CELL, QUICK_CELL, LOGIN_CELL = 7, 15, 18
CONNECT_CELL, CLOSE_CELL, EXPLORE_CONNECT_CELL, EXPLORE_CELL, LAST_CELL = 5, 20, 22, 24, 27
REOPENED_SHOT = Path(__file__).parents[2] / "docs" / "reopened.png"


def card(out: Locator, selector: str, text: str) -> Locator:
    """The one card of that kind and text in a turn's output, once the agent has asked it."""
    found = out.locator(selector).filter(has_text=text)
    expect(found).to_have_count(1, timeout=TURN_TIMEOUT)
    return found


def choice(form: Locator, title: str) -> Locator:
    return form.locator(".nbacp-cc").filter(has=form.page.locator(".nbacp-cc-title", has_text=title))


def answer_full_turn(out: Locator) -> None:
    """The 'full' scenario: a choice, two questions with Other, a number, a permission."""
    env = card(out, ".nbacp-form", "Which environment")
    expect(env.get_by_role("radio", name="Staging")).to_have_attribute("aria-checked", "true")  # the default
    env.get_by_role("radio", name="Production").click()
    env.get_by_role("button", name="Accept").click()

    plan = card(out, ".nbacp-form", "Datasets")
    datasets, schedule = choice(plan, "Datasets"), choice(plan, "Schedule")
    datasets.get_by_role("checkbox", name="Orders").click()
    datasets.get_by_role("checkbox", name="Events").click()
    datasets.get_by_role("textbox").press_sequentially("clickstream", delay=10)
    schedule.get_by_role("radio", name="Right now").click()
    schedule.get_by_role("textbox").press_sequentially("after the nightly backup", delay=10)
    expect(schedule.locator(".nbacp-cc-overridden")).to_have_count(1)  # the typed text wins
    plan.get_by_role("button", name="Accept").click()

    workers = card(out, ".nbacp-form", "How many workers")
    number = workers.get_by_role("spinbutton")  # the card's number input (docs/cards.md)
    expect(number).to_have_value("4")  # the agent's default
    number.fill("8")
    expect(number).to_have_value("8")
    workers.get_by_role("button", name="Accept").click()

    launch = card(out, ".nbacp-permission-card", "launch_pipeline_run")
    raw = launch.locator(".nbacp-raw-json")  # the tool call's input as JSON (folded, docs/consent-cards.md)
    for shown in ('"orders"', '"events"', '"clickstream"', '"environment": "production"', '"workers": 8'):
        expect(raw).to_contain_text(shown, timeout=5_000)
    launch.get_by_role("button", name="Allow", exact=True).click()


FULL_REPORT = [
    "environment = <Environment.PRODUCTION: 'production'>",
    "datasets = [<Dataset.ORDERS: 'orders'>, <Dataset.EVENTS: 'events'>] + other 'clickstream'",
    "schedule = other 'after the nightly backup'",
    "workers = 8",
    "launch: approved",
]


def expect_record(out: Locator, *lines: str) -> None:
    """The turn's static record (HTML that took the live view's place) holds every line."""
    record = out.locator(".nbacp-record").last
    for line in lines:
        expect(record).to_contain_text(line, timeout=TURN_TIMEOUT)
    # one view per turn: the live transcript gave way to the record, labelled You / Agent
    expect(out.locator(".nbacp-transcript")).to_have_count(0, timeout=TURN_TIMEOUT)
    expect(out.locator(".nbacp-record")).to_have_count(1)
    expect(record.locator(".nbacp-record-you strong")).to_have_text("You")
    expect(record.locator(".nbacp-record-agent strong")).to_have_text("Agent")


def drive_quickstart(page: Page, server: JupyterServer, tmp_path: Path) -> None:
    """Run notebooks/quickstart.ipynb and answer it: full path, decline, URL consent."""
    open_notebook(page, server, "notebooks/quickstart.ipynb")
    run_all_cells(page)
    full = output_area(page, FULL_CELL)
    answer_full_turn(full)
    expect_record(full, *FULL_REPORT, "Decision: Chose: Allow (allow_once)", "Stop reason: end_turn")
    screenshot(page, tmp_path, "full-answered")

    quick = output_area(page, QUICK_CELL)
    card(quick, ".nbacp-form", "Which datasets").get_by_role("button", name="Decline").click()
    expect_record(quick, "datasets: declined, so I stopped there", "Answer: Declined.", "Stop reason: end_turn")

    login = output_area(page, LOGIN_CELL)
    url_card = card(login, ".nbacp-url-card", "Sign in to the demo data warehouse")
    expect(url_card.locator(".nbacp-url")).to_have_text(LOGIN_URL)
    login_url = url_card.locator(".nbacp-url").inner_text()
    status = url_card.locator(".nbacp-url-status")

    # Consent without a visit (the tab's request never reaches the page): the agent keeps waiting.
    page.context.route(login_url, lambda route: route.abort())
    with page.expect_popup(timeout=TURN_TIMEOUT) as blocked:
        url_card.get_by_role("button", name="Open").click()
    assert blocked.value.evaluate("() => window.opener") is None
    blocked.value.close()
    expect(status).to_have_text("Waiting for the agent to finish...")
    page.wait_for_timeout(1_000)  # room for a completion that must not come
    expect(status).to_have_text("Waiting for the agent to finish...")

    # The page really visited (Retry shows the link again): then, and only then, the agent completes.
    page.context.unroute(login_url)
    url_card.get_by_role("button", name="Retry").click()
    with page.expect_popup(timeout=TURN_TIMEOUT) as popup:
        url_card.get_by_role("button", name="Open again").click()
    expect(popup.value.locator("h1")).to_have_text("Signed in to the demo data warehouse", timeout=TURN_TIMEOUT)
    # completed: the card closed its controls and the turn's record took the live view's place
    expect_record(login, "sign-in: the page was visited, sign-in completed", "Consented to open 127.0.0.1:")

    # The cells after the turns show the agent's side: typed values, not strings.
    expect(output_area(page, 11)).to_contain_text("\n".join(FULL_REPORT), timeout=TURN_TIMEOUT)
    expect(output_area(page, 13)).to_contain_text("workers=8, stopped=None, launch='approved'")
    expect(output_area(page, 20)).to_contain_text("closed=True", timeout=TURN_TIMEOUT)


def answer_explore(page: Page) -> None:
    """The closing section: which DataFrame (sales), then allow the one line of pandas once."""
    out = output_area(page, EXPLORE_CELL)
    which = card(out, ".nbacp-form", "Which DataFrame")
    which.get_by_role("radio", name="sales").click()
    which.get_by_role("button", name="Accept").click()
    run = card(out, ".nbacp-permission-card", "run_python")
    run.get_by_role("button", name="Allow once", exact=True).click()
    expect_record(out, "You picked sales", "Answer: sales", "Decision: Chose: Allow once (allow_once)")
    # the kernel tool the agent called is in the record, with what it did
    expect(out.locator(".nbacp-record-tool")).not_to_have_count(0)


def test_quickstart_answered_in_jupyterlab(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    page.set_viewport_size({"width": 1100, "height": 1200})
    drive_quickstart(page, lab, tmp_path)
    answer_explore(page)
    expect(cell(page, LAST_CELL).locator(".jp-InputArea-prompt")).to_contain_text("[", timeout=TURN_TIMEOUT)
    expect(cell(page, LAST_CELL).locator(".jp-InputArea-prompt")).not_to_contain_text("*", timeout=TURN_TIMEOUT)
    # Run to the end, every connection closed: nothing interactive is left in any output.
    expect(page.locator(".jp-Notebook .nbacp-transcript, .jp-Notebook .nbacp-toolbar")).to_have_count(0)
    # Saved (JupyterLab saves no widget state by default) and reopened with a fresh kernel:
    # every turn reads as its record, and no output is a widget left to be "not found".
    for attempt in range(6):
        page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        try:
            expect(page.locator(".jp-mod-dirty")).to_have_count(0, timeout=10_000)
            break
        except AssertionError:
            if attempt == 5:
                raise
    saved = json.loads((lab.root / "notebooks" / "quickstart.ipynb").read_text())
    widget_outputs = [
        o
        for c in saved["cells"]
        for o in c.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    assert widget_outputs == [], widget_outputs
    assert "widgets" not in saved["metadata"]  # no widget state saved
    lab.shutdown_kernels()  # the kernel that held the widget models is gone
    page.reload()  # the page reads the saved file again, with a fresh kernel
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-Notebook .jp-Cell').length > 20", timeout=TURN_TIMEOUT, polling=200
    )
    for index in (FULL_CELL, QUICK_CELL, LOGIN_CELL, EXPLORE_CELL):
        expect(output_area(page, index).locator(".nbacp-record")).to_have_count(1, timeout=TURN_TIMEOUT)
        expect(output_area(page, index).locator(".nbacp-record-you")).to_contain_text("You")
    expect(output_area(page, FULL_CELL)).to_contain_text("workers = 8")
    expect(output_area(page, FULL_CELL)).to_contain_text("Question: Datasets")
    expect(output_area(page, EXPLORE_CELL)).to_contain_text("Session: explore sales")
    page.wait_for_timeout(2_000)  # room for a widget renderer to fail, if any output still were a widget
    expect(page.get_by_text("Error displaying widget")).to_have_count(0)
    expect(page.get_by_text("model not found")).to_have_count(0)
    shot = tmp_path / "reopened.png"
    page.locator(".jp-Notebook .jp-Cell").nth(EXPLORE_CELL).evaluate("cell => cell.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(shot))
    if os.environ.get("NBACP_UPDATE_DOCS_SHOT") == "1" and shot.stat().st_size < DOCS_SHOT_MAX_BYTES:
        shutil.copyfile(shot, REOPENED_SHOT)
    # The README's picture: the answered 'full' turn from its prompt, without the file browser.
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    page.locator(".jp-Notebook .jp-Cell").nth(FULL_CELL).evaluate("cell => cell.scrollIntoView({block: 'start'})")
    shot = tmp_path / "quickstart.png"
    page.screenshot(path=str(shot))
    # Only on request (NBACP_UPDATE_DOCS_SHOT=1): a test run must leave the tracked checkout as it found it.
    if os.environ.get("NBACP_UPDATE_DOCS_SHOT") == "1" and shot.stat().st_size < DOCS_SHOT_MAX_BYTES:
        DOCS_SHOT.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, DOCS_SHOT)


def test_quickstart_answered_in_notebook7(notebook7: JupyterServer, page: Page, tmp_path: Path) -> None:
    drive_quickstart(page, notebook7, tmp_path)


# The same agent and API as the quickstart, with the other answers: reject, cancel, decline.
OTHER_PATHS = [
    textwrap.dedent("""
        import nbacp
        from nbacp.demo import demo_agent
        plans = []
        conn = await nbacp.connect(demo_agent(plans=plans))
        session = await conn.new_session(cwd=".")
    """),
    'rejected = await session.prompt("full")',
    'cancelled = await session.prompt("single")',
    'declined = await session.prompt("login")',
    "for turn in (rejected, cancelled, declined):\n    print(turn.stop_reason, turn.text.splitlines()[-1])",
]


def test_reject_cancel_and_url_decline(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    open_notebook(page, lab, lab.write_notebook("other_paths.ipynb", OTHER_PATHS))
    run_all_cells(page)
    full = output_area(page, 1)
    env = card(full, ".nbacp-form", "Which environment")
    env.get_by_role("radio", name="Staging").press("Enter")  # Enter on a row accepts the default
    plan = card(full, ".nbacp-form", "Datasets")
    choice(plan, "Datasets").get_by_role("checkbox", name="Customers").click()
    choice(plan, "Datasets").get_by_role("textbox").press_sequentially("support tickets", delay=10)
    choice(plan, "Schedule").get_by_role("radio", name="Saturday morning").click()
    plan.get_by_role("button", name="Accept").click()
    card(full, ".nbacp-form", "How many workers").get_by_role("button", name="Accept").click()  # default 4
    card(full, ".nbacp-permission-card", "launch_pipeline_run").get_by_role("button", name="Deny", exact=True).click()
    expect_record(
        full,
        "environment = <Environment.STAGING: 'staging'>",
        "datasets = [<Dataset.CUSTOMERS: 'customers'>] + other 'support tickets'",
        "schedule = <Schedule.WEEKEND: 'weekend'>",
        "workers = 4",
        "launch: rejected",
        "Decision: Chose: Deny (reject_once)",
    )

    single = output_area(page, 2)
    card(single, ".nbacp-form", "When should the run start").get_by_role("button", name="Cancel").click()
    expect_record(single, "schedule: cancelled, so I stopped there", "Answer: Cancelled.")

    login = output_area(page, 3)
    card(login, ".nbacp-url-card", "Sign in").get_by_role("button", name="Decline").click()
    expect_record(login, "sign-in: declined", "Answer: Declined", "Stop reason: end_turn")
    expect(output_area(page, 4)).to_have_text(
        "end_turn launch: rejected\nend_turn schedule: cancelled, so I stopped there\nend_turn sign-in: declined\n",
        timeout=TURN_TIMEOUT,
    )
    screenshot(page, tmp_path, "other-paths")
