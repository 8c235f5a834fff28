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

import contextlib
import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

from browser_support import (
    JupyterServer,
    interrupt_kernel,
    output_area,
    screenshot,
    show_notebook,
    start_cell,
    wait_current,
    wait_kernel_idle,
)
from playwright.sync_api import Locator, Page, WebSocket, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

TURN_TIMEOUT = 60_000
SETUP = textwrap.dedent("""
    import nbacp
    from nbacp.demo import demo_agent
    plans = []
    conn = await nbacp.connect(demo_agent(plans=plans))
    session = await conn.new_session(cwd=".")
""").strip()
CELLS = [
    SETUP,
    'quick = await session.prompt("quick")',
    "print(plans[-1].report())",
    # after the stop button: how the turn ended, and whether the agent got any pick or text
    "ended = await session.turn\nprint(ended.stop_reason, any(p.datasets or p.datasets_custom for p in plans))",
]
PROMPT_CELL, REPORT_CELL, STOPPED_CELL = 1, 2, 3
TYPED = "clickstream"
ANSWERED = "datasets = [<Dataset.ORDERS: 'orders'>] + other 'clickstream'"
_CLEAN = "() => !window.jupyterapp.shell.currentWidget.context.model.dirty"
AUTOSAVE = Path("@jupyterlab/docmanager-extension/plugin.jupyterlab-settings")


class KernelSocket:
    """The page's kernel websockets, to wait for what the kernel sent: ipywidgets 8 echoes every
    state update the kernel took (``echo_update``) to the pages; ipywidgets 7 has no echo."""

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


@contextlib.contextmanager
def no_autosave(server: JupyterServer) -> Iterator[None]:
    """JupyterLab autosaves every 120 s: off while the page loads, so "unsaved" stays unsaved on a slow run."""
    target = server.root.parent / "settings" / AUTOSAVE
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


def start_prompt(page: Page, server: JupyterServer, name: str, cells: list[str]) -> str:
    """Open a new notebook ``name`` of ``cells``, run the setup cell, then start the prompt cell;
    returns the notebook's path."""
    path = server.write_notebook(name, cells)
    show_notebook(page, server, path)
    wait_kernel_idle(page, TURN_TIMEOUT)
    start_cell(page, 0)
    wait_kernel_idle(page, TURN_TIMEOUT)
    start_cell(page, PROMPT_CELL)
    return path


def start_quick(page: Page, server: JupyterServer, kernel: KernelSocket) -> str:
    """Open a fresh notebook, run the turn, tick Orders and type Other; returns the notebook's path.

    Returns once the kernel echoed the typed text: the draft is in the kernel, not held in the page."""
    path = start_prompt(page, server, "reload.ipynb", CELLS)
    choice = datasets(quick_card(page))
    choice.get_by_role("checkbox", name="Orders").click()
    kernel.echoed(TYPED, lambda: choice.get_by_role("textbox").press_sequentially(TYPED, delay=10))
    return path


def save(page: Page) -> None:
    """Save the notebook and wait until its model is clean (a save racing an output change is retried)."""
    for attempt in range(6):
        page.evaluate("() => { window.jupyterapp.commands.execute('docmanager:save'); }")
        try:
            page.wait_for_function(_CLEAN, timeout=10_000, polling=100)
            return
        except PlaywrightTimeoutError:
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


def answer_to_the_end(page: Page) -> None:
    """In ``page``, answer the card kept with its draft; the record and the agent's report follow there."""
    answer_kept_draft(page)
    expect_turn_end(page)
    expect_agent_report(page, ANSWERED)


def saved_reload(page: Page, server: JupyterServer) -> None:
    """Start the turn, tick and type, save, reload; back at the notebook, answer to the turn's end."""
    path = start_quick(page, server, KernelSocket(page))
    save(page)
    page.reload()
    wait_current(page, path)
    answer_to_the_end(page)


def test_saved_reload(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    saved_reload(page, lab)
    screenshot(page, tmp_path, "saved-reload")


def test_saved_reload_in_notebook7(notebook7: JupyterServer, page: Page, tmp_path: Path) -> None:
    saved_reload(page, notebook7)
    screenshot(page, tmp_path, "saved-reload-notebook7")


def test_close_and_reopen(lab: JupyterServer, page: Page) -> None:
    path = start_quick(page, lab, KernelSocket(page))
    save(page)
    page.evaluate("() => window.jupyterapp.commands.execute('application:close')")
    page.wait_for_function("(path) => !document.querySelector('.jp-NotebookPanel')", arg=path, timeout=TURN_TIMEOUT)
    page.evaluate("(path) => { window.jupyterapp.commands.execute('docmanager:open', {path}); }", path)
    wait_current(page, path)
    answer_to_the_end(page)


def test_second_tab(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    path = start_quick(page, lab, KernelSocket(page))
    save(page)
    second = page.context.new_page()
    show_notebook(second, lab, path)
    answer_kept_draft(second)
    expect_turn_end(second)
    # the first page: the card answered there too, and the turn's end (through the display id)
    expect_turn_end(page)
    expect_agent_report(second, ANSWERED)
    screenshot(second, tmp_path, "second-tab")


def test_websocket_reconnect(lab: JupyterServer, page: Page) -> None:
    start_quick(page, lab, KernelSocket(page))
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.reconnect()")
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.connectionStatus === 'connected'",
        timeout=TURN_TIMEOUT,
    )
    answer_to_the_end(page)


def unsaved_reload(page: Page, server: JupyterServer) -> str:
    """Start the turn, tick and type, then reload without saving; returns the notebook's path."""
    page.on("dialog", lambda dialog: dialog.accept())  # "leave the page with unsaved changes?"
    path = start_quick(page, server, KernelSocket(page))
    page.reload()
    wait_current(page, path)
    expect(page.locator(".jp-Notebook .jp-Cell")).to_have_count(len(CELLS), timeout=TURN_TIMEOUT)
    return path


def expect_static_end(page: Page, server: JupyterServer, path: str) -> None:
    """The record replaced the re-shown live view in the page's own model (``end_turn``), not only
    inside the widget: saved from this page, the cell holds the static record and no widget view."""
    out = output_area(page, PROMPT_CELL)
    expect(out.locator(".nbacp-ended")).to_have_count(0, timeout=TURN_TIMEOUT)
    expect(out.locator(".nbacp-record")).to_have_count(1)
    save(page)
    outputs = json.loads((server.root / path).read_text())["cells"][PROMPT_CELL]["outputs"]
    assert [sorted(o["data"]) for o in outputs] == [["text/html", "text/plain"]], outputs
    assert ANSWERED in "".join(outputs[0]["data"]["text/plain"])  # nbformat keeps text as lines


def test_unsaved_reload(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    """With the front-end piece the reloaded page asks the kernel for its running turn: the card
    comes back in its cell with the tick and the text, answering it reaches the agent, and the
    turn's end replaces the view with the record in that page (docs/reload.md)."""
    with no_autosave(lab):
        path = unsaved_reload(page, lab)
    quick_card(page)
    screenshot(page, tmp_path, "unsaved-reload")
    answer_kept_draft(page)
    expect_turn_end(page)
    expect_static_end(page, lab, path)
    expect_agent_report(page, ANSWERED)


def test_unsaved_reload_in_notebook7(notebook7: JupyterServer, page: Page, tmp_path: Path) -> None:
    with no_autosave(notebook7):
        path = unsaved_reload(page, notebook7)
    answer_kept_draft(page)
    expect_turn_end(page)
    expect_static_end(page, notebook7, path)
    expect_agent_report(page, ANSWERED)
    screenshot(page, tmp_path, "unsaved-reload-notebook7")


def test_unsaved_second_tab_shows_the_turn_once(lab: JupyterServer, page: Page) -> None:
    """A second tab on the unsaved notebook gets the live view from the kernel; the first keeps
    its own (one view each, never two); answered in the second, both show the record once."""
    with no_autosave(lab):
        path = start_quick(page, lab, KernelSocket(page))
        second = page.context.new_page()
        show_notebook(second, lab, path)
    answer_kept_draft(second)
    for each in (second, page):
        expect_turn_end(each)
        expect(output_area(each, PROMPT_CELL).locator(".nbacp-record")).to_have_count(1)
    expect_static_end(second, lab, path)
    expect_agent_report(second, ANSWERED)


def test_unsaved_reload_without_the_piece_the_stop_button_cancels(bare_lab: JupyterServer, page: Page) -> None:
    """Without the front-end piece an unsaved page's outputs are gone with it: the card is not
    shown again, and the stop button ends the turn without answering for the person
    (docs/reload.md, 'A reload without saving')."""
    with no_autosave(bare_lab):
        unsaved_reload(page, bare_lab)
    expect(output_area(page, PROMPT_CELL).locator(".nbacp-form, .nbacp-transcript")).to_have_count(0)
    interrupt_kernel(page)
    wait_kernel_idle(page, TURN_TIMEOUT)
    start_cell(page, STOPPED_CELL)
    expect(output_area(page, STOPPED_CELL)).to_have_text("cancelled False\n", timeout=TURN_TIMEOUT)


def start_full_saved(page: Page, server: JupyterServer, name: str) -> str:
    """Start the demo's ``full`` turn in a new notebook ``name``; at its first question, save.
    Returns the notebook's path."""
    path = start_prompt(page, server, name, [SETUP, 'full = await session.prompt("full")'])
    env = output_area(page, PROMPT_CELL).locator(".nbacp-form").filter(has_text="Which environment")
    expect(env).to_have_count(1, timeout=TURN_TIMEOUT)
    save(page)
    return path


def test_saved_reload_later_cards_and_messages_come_to_the_reloaded_page(lab: JupyterServer, page: Page) -> None:
    """The reload happens at the turn's first question; everything after it (three more cards,
    the tool call's end, the agent's reply, the record) appears only in the reloaded page."""
    path = start_full_saved(page, lab, "full.ipynb")
    page.reload()
    wait_current(page, path)
    out = output_area(page, PROMPT_CELL)

    def card(selector: str, text: str) -> Locator:
        found = out.locator(selector).filter(has_text=text)
        expect(found).to_have_count(1, timeout=TURN_TIMEOUT)
        return found

    env = card(".nbacp-form", "Which environment")
    env.get_by_role("radio", name="Production").click()
    env.get_by_role("button", name="Accept").click()
    plan = card(".nbacp-form", "Datasets")  # a card the agent asked after the reload
    datasets(plan).get_by_role("checkbox", name="Events").click()
    datasets(plan).get_by_role("textbox").press_sequentially("support tickets", delay=10)
    plan.get_by_role("button", name="Accept").click()
    card(".nbacp-form", "How many workers").get_by_role("button", name="Accept").click()
    card(".nbacp-permission-card", "launch_pipeline_run").get_by_role("button", name="Allow", exact=True).click()
    record = out.locator(".nbacp-record")
    expect(record).to_have_count(1, timeout=TURN_TIMEOUT)
    for line in (
        "environment = <Environment.PRODUCTION: 'production'>",
        "datasets = [<Dataset.EVENTS: 'events'>] + other 'support tickets'",
        "workers = 4",
        "launch: approved",
        "Stop reason: end_turn",
    ):
        expect(record).to_contain_text(line, timeout=TURN_TIMEOUT)
    expect(out.locator(".nbacp-transcript")).to_have_count(0)


def test_two_tabs_share_the_draft_and_one_answer(lab: JupyterServer, page: Page) -> None:
    """Two views of one card: a pick in one tab shows in the other; the answer given in the second
    tab shows as answered in the first while the turn goes on; the next card shows in both."""
    path = start_full_saved(page, lab, "tabs.ipynb")
    first_out = output_area(page, PROMPT_CELL)
    env = first_out.locator(".nbacp-form").filter(has_text="Which environment")
    second = page.context.new_page()
    show_notebook(second, lab, path)
    second_out = output_area(second, PROMPT_CELL)
    env2 = second_out.locator(".nbacp-form").filter(has_text="Which environment")
    env.get_by_role("radio", name="Production").click()  # picked in the first tab...
    expect(env2.get_by_role("radio", name="Production")).to_have_attribute(  # ...shown in the second
        "aria-checked", "true", timeout=TURN_TIMEOUT
    )
    env2.get_by_role("button", name="Accept").click()
    for out in (first_out, second_out):  # answered in both: its line in place, the next card in both
        expect(out.locator(".nbacp-answered").filter(has_text="Production")).to_have_count(1, timeout=TURN_TIMEOUT)
        expect(out.locator(".nbacp-form").filter(has_text="Datasets")).to_have_count(1, timeout=TURN_TIMEOUT)
    expect(first_out.locator(".nbacp-form").filter(has_text="Which environment")).to_have_count(0)
    plan = first_out.locator(".nbacp-form").filter(has_text="Datasets")
    datasets(plan).get_by_role("checkbox", name="Orders").click()
    plan.get_by_role("button", name="Accept").click()
    first_out.locator(".nbacp-form").filter(has_text="How many workers").get_by_role("button", name="Accept").click()
    first_out.locator(".nbacp-permission-card").get_by_role("button", name="Allow", exact=True).click()
    for out in (first_out, second_out):
        record = out.locator(".nbacp-record")
        expect(record).to_have_count(1, timeout=TURN_TIMEOUT)
        expect(record).to_contain_text("environment = <Environment.PRODUCTION: 'production'>", timeout=TURN_TIMEOUT)
        expect(record).to_contain_text("datasets = [<Dataset.ORDERS: 'orders'>]")
