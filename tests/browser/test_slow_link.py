"""The slow-link tier: the agent receives exactly what the page showed at the click, on any link.

Real JupyterLab and chromium, with a proxy between them that delays every byte by 0, 150, 400
or 1,000 ms each way (support/delay_proxy.py). The page loads at 0 ms; the delay is switched
on once the card is shown, so it applies to every kernel message of the answer. A fast person
(actions as fast as Playwright goes) and a person's pace (300 ms between actions, 100 ms a
key) answer a multi-select + Other card, a form with number, text and date fields and a
permission card; what
the page showed is read from the DOM right before Accept, what the agent gets is the card's
response, written by the kernel into a probe label. Before the card was one model whose
Accept message carries its draft, the multi-select case got only the first tick from 150 ms
on (docs/slow-links.md, 'Measured').

Run alone: ``make test-slow-link``.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_support import JupyterServer, open_notebook, output_area, start_cell
from playwright.sync_api import Browser, Locator, Page, expect
from support.delay_proxy import DelayProxy

pytestmark = pytest.mark.slow_link

DELAYS = [0, 150, 400, 1000]
PACES = ["fast", "person"]
OTHER_TEXT = "Go and Kotlin"  # long enough that keys are still typed when a round trip ends

SETUP = textwrap.dedent('''
    import json
    import ipywidgets as widgets
    import nbacp

    def watch(card, name):
        """The card, and a label the kernel fills with the response once it answers."""
        response = widgets.Label(value="")
        response.add_class(f"probe-{name}")
        def answered(r):
            response.value = json.dumps(r.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=True)
        card.on_resolve(answered)
        return widgets.VBox([card, response])
''')

LANGUAGES = textwrap.dedent("""
    card = nbacp.FormCard("Which languages should the linter cover?", {
        "type": "object",
        "properties": {
            "question_0": {"type": "array", "title": "Languages", "items": {"anyOf": [
                {"const": "Python", "title": "Python", "description": "ruff + mypy"},
                {"const": "TypeScript", "title": "TypeScript"},
                {"const": "Rust", "title": "Rust"},
            ]}},
            "question_0_custom": {"type": "string", "title": "Other"},
        },
    })
    watch(card, "langs")
""")

FORM = textwrap.dedent("""
    card = nbacp.FormCard("Schedule the job", {
        "type": "object",
        "properties": {
            "count": {"type": "integer", "title": "Count", "minimum": 0, "maximum": 100000},
            "name": {"type": "string", "title": "Name", "maxLength": 80},
            "day": {"type": "string", "title": "Day", "format": "date"},
        },
        "required": ["count", "name"],
    })
    watch(card, "form")
""")


PERMISSION = textwrap.dedent("""
    from acp.schema import PermissionOption, ToolCallUpdate
    from nbacp.widgets import PermissionCard
    call = ToolCallUpdate(tool_call_id="run-1", title="Run the tests", kind="execute",
                          raw_input={"command": "pytest -q"})
    card = PermissionCard(call, [PermissionOption(option_id="allow", name="Allow once", kind="allow_once"),
                                 PermissionOption(option_id="reject", name="Reject", kind="reject_once")],
                          agent="claude")
    watch(card, "perm")
""")


def _content(response: dict[str, Any]) -> Any:
    assert response["action"] == "accept", response
    return response["content"]


@dataclasses.dataclass
class Case:
    cell: str
    probe: str
    act: Callable[[Page, Locator, bool], Any]  # -> what the page showed, as the agent should get it
    got: Callable[[dict[str, Any]], Any] = _content  # what the agent got, from the response


def _gap(page: Page, pace: bool) -> None:
    if pace:
        page.wait_for_timeout(300)


def _type(page: Page, box: Any, text: str, pace: bool) -> None:
    if pace:
        box.press_sequentially(text, delay=100)
    else:
        box.fill(text)


def act_languages(page: Page, card: Locator, pace: bool) -> dict[str, Any]:
    card.get_by_role("checkbox", name="Python").click()
    _gap(page, pace)
    card.get_by_role("checkbox", name="Rust").click()
    _gap(page, pace)
    _type(page, card.get_by_label("Other"), OTHER_TEXT, pace)
    shown: dict[str, Any] = card.evaluate("""(c) => {
      const rows = c.querySelectorAll('[role=checkbox][aria-checked=true]');
      const picked = [...rows].map(n => n.firstChild.textContent);  // a row's label is its first text node
      const other = c.querySelector('.nbacp-cc-other-input').value.trim();
      return Object.assign({question_0: picked}, other ? {question_0_custom: other} : {});
    }""")
    card.get_by_role("button", name="Accept").click()
    return shown


def act_form(page: Page, card: Locator, pace: bool) -> dict[str, Any]:
    _type(page, card.get_by_label("Count"), "4217", pace)
    _gap(page, pace)
    _type(page, card.get_by_label("Name"), "nightly build", pace)
    _gap(page, pace)
    card.get_by_label("Day").fill("2026-12-24")
    shown: dict[str, Any] = card.evaluate("""(c) => {
      const value = (label) => c.querySelector(`#${CSS.escape([...c.querySelectorAll('label')]
        .find(l => l.textContent.startsWith(label)).htmlFor)}`).value;
      return {count: Number(value('Count')), name: value('Name'), day: value('Day')};
    }""")
    card.get_by_role("button", name="Accept").click()
    return shown


def act_permission(page: Page, card: Locator, pace: bool) -> Any:
    _gap(page, pace)  # a person reads the card first
    card.get_by_role("button", name="Reject").click()
    return {"outcome": "selected", "optionId": "reject"}  # the button the page showed, clicked


# A cell that awaits the shown card while the person answers (the kernel busy all along), and
# writes what it got into its own probe; "awaiting" is printed right before the await.
AWAITING = textwrap.dedent("""
    awaited = widgets.Label(value="")
    awaited.add_class("probe-awaited")
    display(awaited)
    print("awaiting", flush=True)
    response = await card
    awaited.value = json.dumps(response.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=True)
""")

CASES = {
    "multi-select+other": Case(LANGUAGES, "probe-langs", act_languages),
    "number+text+date": Case(FORM, "probe-form", act_form),
    "permission": Case(PERMISSION, "probe-perm", act_permission, lambda response: response["outcome"]),
}


@pytest.fixture(autouse=True)
def _stop_kernels() -> None:
    """The module's one kernel lives across its cases (``slow_page`` shuts it down at the end)."""


@pytest.fixture(scope="module")
def proxy(lab: JupyterServer) -> Iterator[DelayProxy]:
    p = DelayProxy(int(lab.url.rstrip("/").rsplit(":", 1)[1]))
    p.start()
    yield p
    p.stop()


@pytest.fixture(scope="module")
def slow_page(browser: Browser, lab: JupyterServer, proxy: DelayProxy) -> Iterator[Page]:
    """One notebook, opened through the proxy at 0 ms, for the whole module (each case re-runs a cell)."""
    slow = dataclasses.replace(lab, url=f"http://127.0.0.1:{proxy.port}/")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(60_000)
    page = context.new_page()
    path = lab.write_notebook("slow_link.ipynb", [SETUP, *(case.cell for case in CASES.values()), AWAITING])
    open_notebook(page, slow, path)
    run_cell(page, 0)
    try:
        yield page
    finally:
        context.close()
        lab.shutdown_kernels()


def run_cell(page: Page, index: int) -> None:
    page.evaluate(
        """async (index) => {
          const notebook = window.jupyterapp.shell.currentWidget.content;
          notebook.activeCellIndex = index;
          await window.jupyterapp.commands.execute("notebook:run-cell");
        }""",
        index,
    )


def answer_through_the_link(
    page: Page, proxy: DelayProxy, name: str, delay: int, pace: str, awaiting: bool = False
) -> None:
    """Show a fresh card of case ``name``, put ``delay`` ms on each way, answer it at ``pace``,
    and check the agent got exactly what the page showed at the click (also run on Colab's
    widget stack by test_colab_stack.py). With ``awaiting``, a cell awaits the card meanwhile
    (``AWAITING``) and must get that same answer."""
    case = CASES[name]
    index = 1 + list(CASES).index(name)
    proxy.delay_ms = 0
    run_cell(page, index)  # a fresh card
    out = output_area(page, index)
    expect(out.locator(".nbacp-card[data-ready=true]")).to_have_count(1, timeout=30_000)
    expect(out.locator(f".{case.probe}")).to_have_text("")
    waiter = output_area(page, 1 + len(CASES))
    if awaiting:
        start_cell(page, 1 + len(CASES))
        expect(waiter.locator(".probe-awaited")).to_have_text("")  # this run's (an old one holds an answer)
        expect(waiter).to_contain_text("awaiting")
    proxy.delay_ms = delay
    time.sleep(2 * delay / 1000)  # bytes queued at the old delay drain first
    try:
        shown = case.act(page, out.locator(".nbacp-card"), pace == "person")
        probe = out.locator(f".{case.probe}")
        expect(probe).not_to_have_text("", timeout=30_000)
        response = json.loads(probe.inner_text())
        if awaiting:
            awaited = waiter.locator(".probe-awaited")
            expect(awaited).not_to_have_text("", timeout=30_000)
            assert json.loads(awaited.inner_text()) == response, "the awaiting cell got another answer"
    finally:
        proxy.delay_ms = 0
    got = case.got(response)
    assert got == shown, f"the page showed {shown}, the agent got {got}"


@pytest.mark.parametrize("pace", PACES)
@pytest.mark.parametrize("delay", DELAYS)
@pytest.mark.parametrize("name", list(CASES))
def test_the_agent_gets_what_the_page_showed(
    slow_page: Page, proxy: DelayProxy, name: str, delay: int, pace: str
) -> None:
    answer_through_the_link(slow_page, proxy, name, delay, pace)
