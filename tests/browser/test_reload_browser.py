"""A pending question survives the page: saved reload, close and reopen, a second tab, a
websocket reconnect, and a reload without saving (docs/reload.md).

Each scenario runs the demo agent's ``quick`` question (a multi-select + Other card) in an
awaited ``prompt``, ticks one option and types into Other in the page that started the turn,
then loses that page in its own way. What must hold in the page the person has afterwards:
the card is shown with the tick and the text (the draft lives in the kernel), answering it there
reaches the agent exactly (the agent's own report in the record names every pick and the text),
and the turn's end (the record) shows there. No fixed sleeps: every wait is on a DOM state or on
a kernel message seen on the page's websocket, each bounded.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import (
    JupyterServer,
    output_area,
    screenshot,
    show_notebook,
    start_cell,
    wait_current,
    wait_kernel_idle,
)
from playwright.sync_api import Locator, Page, WebSocket, expect

TURN_TIMEOUT = 60_000
SETUP = textwrap.dedent("""
    import nbacp
    from nbacp.demo import demo_agent
    plans = []
    conn = await nbacp.connect(demo_agent(plans=plans))
    session = await conn.new_session(cwd=".")
""").strip()
CELLS = [SETUP, 'quick = await session.prompt("quick")', "print(plans[-1].report())"]
PROMPT_CELL, REPORT_CELL = 1, 2
TYPED = "clickstream"
ANSWERED = "datasets = [<Dataset.ORDERS: 'orders'>] + other 'clickstream'"
AUTOSAVE = Path("@jupyterlab/docmanager-extension/plugin.jupyterlab-settings")


class KernelSocket:
    """The page's kernel websockets, to wait for what the kernel sent (its echo of an edit)."""

    def __init__(self, page: Page) -> None:
        self.sockets: list[WebSocket] = []
        page.on("websocket", self._opened)

    def _opened(self, ws: WebSocket) -> None:
        if "/api/kernels/" in ws.url:
            self.sockets.append(ws)

    def echoed(self, text: str, action: object) -> None:
        """Run ``action`` and wait until the kernel echoes a state holding ``text`` (it has it)."""
        assert self.sockets, "the page has no kernel websocket"
        wanted = json.dumps(text).encode()

        def has(payload: str | bytes) -> bool:
            data = payload.encode() if isinstance(payload, str) else payload
            return b"echo_update" in data and wanted in data

        with self.sockets[-1].expect_event("framereceived", predicate=has, timeout=TURN_TIMEOUT):
            action()  # type: ignore[operator]


@pytest.fixture
def no_autosave(lab: JupyterServer) -> Iterator[None]:
    """JupyterLab autosaves every 120 s: off for this test, so "unsaved" stays unsaved on a slow run."""
    target = lab.root.parent / "settings" / AUTOSAVE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"autosave": False}))
    try:
        yield
    finally:
        target.unlink()


def quick_card(page: Page) -> Locator:
    found = output_area(page, PROMPT_CELL).locator(".nbacp-form").filter(has_text="Which datasets")
    expect(found).to_have_count(1, timeout=TURN_TIMEOUT)
    return found


def datasets(form: Locator) -> Locator:
    return form.locator(".nbacp-cc").filter(has=form.page.locator(".nbacp-cc-title", has_text="Datasets"))


def start_quick(page: Page, server: JupyterServer, kernel: KernelSocket) -> str:
    """Open a fresh notebook, run the turn, tick Orders and type Other; returns the notebook's path.

    Returns once the kernel echoed the typed text: the draft is in the kernel, not held in the page."""
    path = server.write_notebook("reload.ipynb", CELLS)
    show_notebook(page, server, path)
    wait_kernel_idle(page, TURN_TIMEOUT)
    start_cell(page, 0)
    wait_kernel_idle(page, TURN_TIMEOUT)
    start_cell(page, PROMPT_CELL)
    choice = datasets(quick_card(page))
    choice.get_by_role("checkbox", name="Orders").click()
    kernel.echoed(TYPED, lambda: choice.get_by_role("textbox").press_sequentially(TYPED, delay=10))
    return path


def save(page: Page) -> None:
    """Save the notebook and wait until it is clean (a save racing an output change is retried)."""
    for attempt in range(6):
        page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        try:
            expect(page.locator(".jp-mod-dirty")).to_have_count(0, timeout=10_000)
            return
        except AssertionError:
            if attempt == 5:
                raise


def answer_kept_draft(page: Page) -> None:
    """The card in ``page`` shows the kept tick and text; Accept sends them."""
    form = quick_card(page)
    choice = datasets(form)
    orders = choice.get_by_role("checkbox", name="Orders")
    expect(orders).to_have_attribute("aria-checked", "true", timeout=TURN_TIMEOUT)
    expect(choice.get_by_role("textbox")).to_have_value(TYPED, timeout=TURN_TIMEOUT)
    form.get_by_role("button", name="Accept").click()


def expect_turn_end(page: Page) -> None:
    """The record took the live view's place in ``page``, naming what the agent got."""
    out = output_area(page, PROMPT_CELL)
    record = out.locator(".nbacp-record")
    expect(record).to_have_count(1, timeout=TURN_TIMEOUT)
    for line in (ANSWERED, "Answer:", "Stop reason: end_turn"):
        expect(record).to_contain_text(line, timeout=TURN_TIMEOUT)
    expect(out.locator(".nbacp-transcript")).to_have_count(0, timeout=TURN_TIMEOUT)
    expect(out.locator(".nbacp-form")).to_have_count(0)


def expect_agent_report(page: Page, wanted: str) -> None:
    """Run the report cell in ``page`` (the turn is over): the agent's own account of what it got."""
    wait_kernel_idle(page, TURN_TIMEOUT)
    start_cell(page, REPORT_CELL)
    expect(output_area(page, REPORT_CELL)).to_contain_text(wanted, timeout=TURN_TIMEOUT)


def test_saved_reload(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    kernel = KernelSocket(page)
    path = start_quick(page, lab, kernel)
    save(page)
    page.reload()
    wait_current(page, path)
    answer_kept_draft(page)
    expect_turn_end(page)
    expect_agent_report(page, ANSWERED)
    screenshot(page, tmp_path, "saved-reload")
