"""Re-running a marimo prompt cell makes a new connection and closes the old one (docs/marimo.md).

marimo re-runs a cell after disposing its lifecycle items; nbacp registers one per connection
made in a cell, so the old agent process ends instead of outliving the names marimo deleted.
A cell whose turn waits on a card cannot be re-run before it is stopped (marimo disables its
run button); stopped, then re-run, its new turn's card shows and answers. The agent of the first
test is ``McpAcpAgent`` (tests/support/mcp_acp_agent.py) as a subprocess: each run of the
cell appends its process id to a file, and the test clicks the cell's run button once more.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from marimo_support import marimo_edit
from playwright.sync_api import Page, expect
from support import SUPPORT

pytestmark = pytest.mark.marimo

TIMEOUT_MS = 60_000

NOTEBOOK = """import marimo

app = marimo.App()


@app.cell
async def _():
    import sys

    import nbacp

    conn = await nbacp.connect([sys.executable, AGENT])
    session = await conn.new_session(cwd=".")
    result = await session.prompt("servers")
    with open("pids.txt", "a") as f:
        f.write(f"{conn.process.pid}" + chr(10))
    print("run", "ended:", result.stop_reason)
    return
"""


def alive(pid: int) -> bool:
    """A process that exists and is not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def pids(page: Page, path: Path, count: int) -> list[int]:
    """The process ids written so far, once there are ``count`` (polled, bounded)."""
    waited = 0
    while waited < TIMEOUT_MS:
        if path.is_file() and len(found := path.read_text().split()) >= count:
            return [int(p) for p in found]
        page.wait_for_timeout(100)
        waited += 100
    raise AssertionError(f"{path} never held {count} process ids")


def test_rerunning_the_prompt_cell_closes_the_old_connection(page: Page, tmp_path: Path) -> None:
    source = NOTEBOOK.replace("AGENT", repr(str(SUPPORT / "mcp_acp_agent.py")))
    with marimo_edit(tmp_path, "rerun.py", source) as server:
        page.goto(server.url)
        record = server.notebook.parent / "pids.txt"
        expect(page.get_by_text("run ended: end_turn")).to_be_visible(timeout=TIMEOUT_MS)
        [first] = pids(page, record, 1)
        assert alive(first)  # a connection that is not closed keeps its agent running
        cell = page.locator(".marimo-cell").filter(has_text="mcp_acp_agent")
        cell.hover()
        cell.locator('[data-testid="run-button"]').first.click()
        second = pids(page, record, 2)[1]
        assert second != first
        expect(page.get_by_text("run ended: end_turn")).to_be_visible(timeout=TIMEOUT_MS)
        waited = 0
        while alive(first) and waited < TIMEOUT_MS:
            page.wait_for_timeout(100)
            waited += 100
        assert not alive(first), "the first run's agent outlived the re-run"
        assert alive(second)


WAITING = """import marimo

app = marimo.App()


@app.cell
async def _():
    import nbacp
    from nbacp.demo import demo_agent

    conn = await nbacp.connect(demo_agent())
    session = await conn.new_session(cwd=".")
    result = await session.prompt("full")
    print(result.stop_reason, result.text)
    return
"""


def test_a_cell_waiting_on_a_card_is_stopped_then_rerun(page: Page, tmp_path: Path) -> None:
    """While a card waits marimo offers no re-run (the cell's run button is disabled, the stop
    button beside it); after the stop, a re-run shows the new turn's card, which answers."""
    with marimo_edit(tmp_path, "waiting.py", WAITING) as server:
        page.goto(server.url)
        question = page.locator(".nbacp-kind-form").filter(has_text="Which environment")
        expect(question).to_have_count(1, timeout=TIMEOUT_MS)
        cell = page.locator(".marimo-cell").filter(has_text="demo_agent")
        cell.hover()
        expect(cell.locator('[data-testid="run-button"]').first).to_be_disabled()
        page.locator('[data-testid="interrupt-button"]').click()
        expect(page.get_by_text("This cell was interrupted", exact=False)).to_be_visible(timeout=TIMEOUT_MS)
        expect(question).to_have_count(0)  # the stopped turn's card went with the cell's output
        cell.hover()
        cell.locator('[data-testid="run-button"]').first.click()
        expect(question).to_have_count(1, timeout=TIMEOUT_MS)  # the new turn's card, the old one gone
        question.get_by_role("radio", name="Production").click()
        question.get_by_role("button", name="Accept").click()
        expect(page.locator(".nbacp-kind-form").filter(has_text="Datasets")).to_have_count(1, timeout=TIMEOUT_MS)
