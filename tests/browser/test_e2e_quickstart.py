"""End to end: the quickstart's demo agent, answered by clicking and typing in a real front end.

The lab server's kernels have no NBACP_ANSWERS, so every card waits for this test, exactly
as for a person. Assertions read what the AGENT reports back (its typed values, printed in
the turn and in later cells) and the static record of each turn, not the widgets' state.
"""

from __future__ import annotations

import os
import re
import shutil
import textwrap
from pathlib import Path

from browser_support import JupyterServer, open_notebook, output_area, run_all_cells, screenshot
from playwright.sync_api import Locator, Page, expect

TURN_TIMEOUT = 60_000
DOCS_SHOT = Path(__file__).parents[2] / "docs" / "quickstart.png"
DOCS_SHOT_MAX_BYTES = 300_000
# The demo agent serves its sign-in page itself, on a random loopback port and an unguessable path.
LOGIN_URL = re.compile(r"^http://127\.0\.0\.1:\d+/nbacp-demo/login/[\w-]{16,}$")
# Code cells of notebooks/quickstart.ipynb, counted among all its cells.
FULL_CELL, QUICK_CELL, LOGIN_CELL = 7, 15, 18



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
    readout = workers.locator(".widget-readout")  # the slider's editable number
    expect(readout).to_have_text("4")  # the agent's default
    readout.fill("8")
    readout.press("Enter")
    expect(workers.get_by_role("slider")).to_have_attribute("aria-valuetext", "8")
    workers.get_by_role("button", name="Accept").click()

    launch = card(out, ".nbacp-permission-card", "launch_pipeline_run")
    expect(launch.locator("textarea")).to_have_value(
        '{\n  "datasets": [\n    "orders",\n    "events",\n'
        '    "clickstream"\n  ],\n  "environment": "production",\n'
        '  "workers": 8\n}',
        timeout=5_000,
    )
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
    status = url_card.locator(".nbacp-status")

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


def test_quickstart_answered_in_jupyterlab(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    page.set_viewport_size({"width": 1100, "height": 1200})
    drive_quickstart(page, lab, tmp_path)
    # Saved and reopened: every turn reads as its record, no widget is left to be "not found".
    # The closing sections are still running (their cards wait for a person) when cell 20 is
    # done, so an output can land after a save and make the notebook dirty again: save again
    # then, as a person would, until a save sticks.
    for attempt in range(6):
        page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        try:
            expect(page.locator(".jp-mod-dirty")).to_have_count(0, timeout=10_000)
            break
        except AssertionError:
            if attempt == 5:
                raise
    page.reload()  # the page reads the saved file again
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-Notebook .jp-Cell').length > 20", timeout=TURN_TIMEOUT, polling=200
    )
    for index in (FULL_CELL, QUICK_CELL, LOGIN_CELL):
        expect(output_area(page, index).locator(".nbacp-record")).to_have_count(1, timeout=TURN_TIMEOUT)
    expect(output_area(page, FULL_CELL)).to_contain_text("workers = 8")
    expect(page.get_by_text("model not found")).to_have_count(0)
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
