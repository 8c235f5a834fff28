"""The URL consent card in a real ``marimo edit`` (headless chromium): consent and decline.

The demo agent's ``login`` turn asks a URL-mode elicitation (``elicitation/create``, mode
"url") for its sign-in page, served on 127.0.0.1 by the agent itself. On consent it waits until
that page was visited, then sends ``elicitation/complete``; on decline it stops there. Its tool
reports which action it received, and the turn's text (the prompt cell's print, and the next
cell's ``result.answers``) is what is checked: what the agent received, not the widget's state.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from marimo_support import OUTPUT, TURN_TIMEOUT, card, keep_shot, marimo_edit
from playwright.sync_api import Page, expect
from support.sdk_line import require_acp_kit

pytestmark = pytest.mark.marimo

LOGIN_MESSAGE = "Sign in to the demo data warehouse"
# The demo agent serves its sign-in page itself, on a random loopback port and an unguessable path.
LOGIN_URL = re.compile(r"^http://127\.0\.0\.1:\d+/nbacp-demo/login/[\w-]{16,}$")

NOTEBOOK = """import marimo

app = marimo.App()


@app.cell
async def _():
    import nbacp
    from nbacp.demo import demo_agent

    conn = await nbacp.connect(demo_agent())
    session = await conn.new_session(cwd=".")
    result = await session.prompt("login")
    print("printed:", result.stop_reason, result.text)
    return (result,)


@app.cell
def _(result):
    "next cell: " + " | ".join(f"{a.kind} {a.action}: {a}" for a in result.answers)
    return
"""


def no_traceback(page: Page) -> None:
    """No cell failed: marimo shows a failed cell's traceback under it (its console output), and
    the word "Traceback" is on the page then (checked with a cell that raises, marimo 0.25.2)."""
    expect(page.get_by_text("Traceback", exact=False)).to_have_count(0)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_consent_opens_the_page_and_the_agent_completes(page: Page, tmp_path: Path, theme: str) -> None:
    require_acp_kit()  # the demo agent
    with marimo_edit(tmp_path, "login.py", NOTEBOOK, theme=theme) as server:
        page.goto(server.url)
        url_card = card(page, "url", LOGIN_MESSAGE)
        expect(page.locator(".nbacp-tv-card .nbacp-kind-url")).to_have_count(1)  # inside the live turn view
        expect(url_card.locator(".nbacp-url")).to_have_text(LOGIN_URL)
        link = url_card.get_by_role("button", name="Open")
        expect(link).to_have_attribute("rel", "noopener noreferrer")
        keep_shot(url_card, tmp_path / f"marimo-url-{theme}.png")
        with page.expect_popup(timeout=TURN_TIMEOUT) as popup:
            link.click()
        assert popup.value.evaluate("() => window.opener") is None
        # The tab's visit of the agent's page is what makes the agent complete the elicitation.
        expect(popup.value.locator("h1")).to_have_text("Signed in to the demo data warehouse", timeout=TURN_TIMEOUT)
        printed = page.get_by_text("printed: end_turn", exact=False)
        expect(printed).to_contain_text(
            "The warehouse needs you to sign in first. sign-in: the page was visited, sign-in completed",
            timeout=TURN_TIMEOUT,
        )
        following = page.locator(OUTPUT).filter(has_text="next cell: ")
        expect(following).to_have_text(re.compile(r"^'next cell: url accept: Consented to open 127\.0\.0\.1:\d+'$"))
        no_traceback(page)
        page.set_viewport_size({"width": 1280, "height": 1400})
        keep_shot(page, tmp_path / f"marimo-url-done-{theme}.png")


def test_decline_is_what_the_agent_receives(page: Page, tmp_path: Path) -> None:
    require_acp_kit()
    with marimo_edit(tmp_path, "login.py", NOTEBOOK) as server:
        page.goto(server.url)
        url_card = card(page, "url", LOGIN_MESSAGE)
        url_card.get_by_role("button", name="Decline").click()
        printed = page.get_by_text("printed: end_turn", exact=False)
        expect(printed).to_contain_text("sign in first. sign-in: declined", timeout=TURN_TIMEOUT)
        following = page.locator(OUTPUT).filter(has_text="next cell: ")
        expect(following).to_have_text("'next cell: url decline: Declined'", timeout=TURN_TIMEOUT)
        no_traceback(page)
