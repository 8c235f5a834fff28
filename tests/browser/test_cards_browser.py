"""The cards in a real JupyterLab, driven through their DOM, with no agent.

Each notebook shows cards next to "probe" labels that the KERNEL fills from the card's own
state (``values`` after every edit, the response once answered), so every assertion on a
probe proves the edit travelled browser -> kernel. A last cell, run again once the page has
answered, awaits the cards and prints the responses. No cell awaits while the page edits:
``test_edits_reach_the_kernel_while_a_cell_awaits`` covers that case on its own.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

from browser_support import JupyterServer, open_notebook, output_area, run_all_cells, screenshot
from playwright.sync_api import Locator, Page, expect

CARD_TIMEOUT = 30_000

SETUP = textwrap.dedent('''
    import json
    import ipywidgets as widgets
    import nbacp
    from nbacp.widgets import PermissionCard, UrlConsentCard

    def watch(card, name, *fields):
        """Show the card with labels the kernel fills: its draft after each edit, its response."""
        values = widgets.Label(value="")
        values.add_class(f"probe-{name}-values")
        response = widgets.Label(value="")
        response.add_class(f"probe-{name}-response")
        def show(_change=None):
            values.value = json.dumps(card.values, sort_keys=True)
        if fields:
            card.observe(show, names="draft")  # the card's one synced draft (docs/cards.md)
        def answered(r):
            response.value = json.dumps(r.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=True)
        card.on_resolve(answered)
        if fields:
            show()
        return widgets.VBox([card, values, response])
''')

LANGUAGES = textwrap.dedent("""
    langs = nbacp.FormCard("Which languages should the linter cover?", {
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
    watch(langs, "langs", "question_0", "question_0_custom")
""")

DATABASE = textwrap.dedent("""
    database = {
        "type": "object",
        "properties": {
            "db": {"type": "string", "title": "Database", "oneOf": [
                {"const": "pg", "title": "PostgreSQL"}, {"const": "sqlite", "title": "SQLite"}]},
            "db_custom": {"type": "string", "title": "Other"},
        },
    }
    over = nbacp.FormCard("Which database?", database)
    restore = nbacp.FormCard("Which database, again?", database)
    widgets.VBox([watch(over, "over", "db", "db_custom"), watch(restore, "restore", "db", "db_custom")])
""")

CITIES = [
    "Amsterdam",
    "Berlin",
    "Copenhagen",
    "Dublin",
    "Edinburgh",
    "Florence",
    "Geneva",
    "Helsinki",
    "Istanbul",
    "Lisbon",
    "Madrid",
    "Oslo",
]
FILTER = textwrap.dedent(f"""
    cities = nbacp.FormCard("Where should the offsite be?", {{
        "type": "object",
        "properties": {{"city": {{"type": "string", "title": "City", "enum": {CITIES!r}}}}},
        "required": ["city"],
    }})
    watch(cities, "cities", "city")
""")

# Run once by "run all" (nothing answered yet: prints "open"), and again after answering.
RESULTS = textwrap.dedent("""
    for card in {cards}:
        sent = (await card).model_dump(mode="json", exclude_none=True) if card.done else "open"
        print(card.message, "->", json.dumps(sent, sort_keys=True) if card.done else sent)
""")


def probe(page: Page, name: str) -> Locator:
    return page.locator(f".probe-{name}")


def probe_json(page: Page, name: str) -> Any:
    """The kernel's JSON in a probe, once it is there."""
    label = probe(page, name)
    expect(label).not_to_have_text("", timeout=CARD_TIMEOUT)
    return json.loads(label.inner_text())


def expect_probe(page: Page, name: str, wanted: Any) -> None:
    """Wait (bounded) until the kernel's JSON in a probe equals ``wanted``."""
    expect(probe(page, name)).to_have_text(json.dumps(wanted, sort_keys=True), timeout=CARD_TIMEOUT)


def form_card(page: Page, message: str) -> Locator:
    form = page.locator(".nbacp-kind-form").filter(has_text=message)
    expect(form).to_have_count(1, timeout=CARD_TIMEOUT)
    return form


def run_cell(page: Page, index: int, timeout_ms: int = CARD_TIMEOUT) -> None:
    """Run one cell and wait (bounded) until it has finished."""
    page.evaluate(
        """async ([index, ms]) => {
          const notebook = window.jupyterapp.shell.currentWidget.content;
          notebook.activeCellIndex = index;
          const late = new Promise((_, fail) => setTimeout(() => fail(new Error(`cell ${index} still running`)), ms));
          await Promise.race([window.jupyterapp.commands.execute("notebook:run-cell"), late]);
        }""",
        [index, timeout_ms],
    )


def results(page: Page) -> Locator:
    """The RESULTS cell (the last one), run again now that the page has answered."""
    run_cell(page, 2)
    return output_area(page, 2)


def cell_count(page: Page) -> int:
    return page.locator(".jp-Notebook .jp-Cell").count()


def open_cards(lab: JupyterServer, page: Page, *cells: str) -> None:
    open_notebook(page, lab, lab.write_notebook("cards.ipynb", [SETUP, *cells]))
    run_all_cells(page)


def test_multi_select_by_mouse_and_keyboard(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    open_cards(lab, page, LANGUAGES, RESULTS.format(cards="[langs]"))
    card = form_card(page, "Which languages").locator(".nbacp-cc")
    cells = cell_count(page)
    card.get_by_role("checkbox", name="Python").click()
    card.get_by_role("checkbox", name="Rust").click()
    expect_probe(page, "langs-values", {"question_0": ["Python", "Rust"], "question_0_custom": None})
    card.get_by_role("checkbox", name="Python").click()  # a second click unticks
    other = card.get_by_role("textbox", name="Other")
    other.press_sequentially("Go", delay=20)
    expect_probe(page, "langs-values", {"question_0": ["Rust"], "question_0_custom": "Go"})
    expect(card.get_by_role("checkbox", name="Rust")).to_have_attribute("aria-checked", "true")
    expect(card.get_by_role("checkbox", name="Python")).to_have_attribute("aria-checked", "false")

    # Keyboard: arrows move the focus (roving tabindex), Space toggles the focused row.
    card.get_by_role("checkbox", name="Rust").focus()
    page.keyboard.press("ArrowUp")
    expect(card.get_by_role("checkbox", name="TypeScript")).to_be_focused()
    page.keyboard.press("Space")
    page.keyboard.press("Home")
    expect(card.get_by_role("checkbox", name="Python")).to_be_focused()
    page.keyboard.press("Space")
    page.keyboard.press("End")
    page.keyboard.press("Space")  # Rust off
    expect_probe(page, "langs-values", {"question_0": ["Python", "TypeScript"], "question_0_custom": "Go"})
    # Notebook command-mode shortcuts (d d deletes a cell, a / b insert one) stay out of the card.
    for key in ("d", "d", "a", "b"):
        page.keyboard.press(key)
    assert cell_count(page) == cells
    screenshot(page, tmp_path, "multi-before-enter")
    page.keyboard.press("Enter")  # submits the form from a row

    expected = {"action": "accept", "content": {"question_0": ["Python", "TypeScript"], "question_0_custom": "Go"}}
    expect_probe(page, "langs-response", expected)
    expect(results(page)).to_contain_text('"question_0": ["Python", "TypeScript"]')
    summary = page.locator(".nbacp-kind-form .nbacp-summary")  # the card keeps only its summary
    expect(summary).to_have_text("Accepted: Languages = Python, TypeScript + “Go”")
    expect(card).to_have_count(0)  # answered: the card's controls are closed
    assert cell_count(page) == cells


def test_single_select_override_restore_and_escape(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    open_cards(lab, page, DATABASE, RESULTS.format(cards="[over, restore]"))
    over = form_card(page, "Which database?").locator(".nbacp-cc")
    sqlite = over.get_by_role("radio", name="SQLite")
    over.get_by_role("radio", name="PostgreSQL").click()
    sqlite.click()  # a single-select moves the pick
    expect(over.get_by_role("radio", name="PostgreSQL")).to_have_attribute("aria-checked", "false")
    over.get_by_role("textbox", name="Other").fill("DuckDB")
    # The pick is kept but shown as overridden: the typed text is what would be sent.
    expect(sqlite).to_have_attribute("aria-checked", "true")
    expect(sqlite).to_have_class("nbacp-cc-row nbacp-cc-radio nbacp-cc-overridden")
    expect(sqlite.locator(".nbacp-cc-note")).to_be_visible()
    expect_probe(page, "over-values", {"db": "sqlite", "db_custom": "DuckDB"})
    screenshot(page, tmp_path, "overridden")
    form_card(page, "Which database?").get_by_role("button", name="Accept").click()
    expect_probe(page, "over-response", {"action": "accept", "content": {"db_custom": "DuckDB"}})

    restore = form_card(page, "Which database, again?").locator(".nbacp-cc")
    postgres = restore.get_by_role("radio", name="PostgreSQL")
    postgres.click()
    other = restore.get_by_role("textbox", name="Other")
    other.fill("MySQL")
    expect(postgres.locator(".nbacp-cc-note")).to_be_visible()
    other.fill("")  # clearing the text gives the pick back
    expect(postgres.locator(".nbacp-cc-note")).to_be_hidden()
    expect(postgres).not_to_have_class("nbacp-cc-row nbacp-cc-radio nbacp-cc-overridden")
    expect(postgres).to_have_attribute("aria-checked", "true")
    expect_probe(page, "restore-values", {"db": "pg", "db_custom": None})
    other.press("Escape")  # Escape dismisses the form: cancel, not decline
    expect_probe(page, "restore-response", {"action": "cancel"})
    out = results(page)
    expect(out).to_contain_text('Which database? -> {"action": "accept", "content": {"db_custom": "DuckDB"}}')
    expect(out).to_contain_text('Which database, again? -> {"action": "cancel"}')


def test_filter_box_for_many_options(lab: JupyterServer, page: Page) -> None:
    open_cards(lab, page, FILTER, RESULTS.format(cards="[cities]"))
    form = form_card(page, "offsite")
    card = form.locator(".nbacp-cc")
    rows = card.get_by_role("radio")
    expect(rows).to_have_count(len(CITIES))
    form.get_by_role("button", name="Accept").click()  # required and empty: stays open with a message
    expect(card.locator(".nbacp-cc-errors li")).not_to_have_count(0)
    expect(card.get_by_role("radiogroup")).to_have_attribute("aria-invalid", "true")
    expect(card.get_by_role("radio", name="Amsterdam")).to_be_focused()  # focus on the first invalid field
    expect(form.locator(".nbacp-summary")).to_be_hidden()

    card.get_by_role("radio", name="Oslo").click()
    search = card.get_by_role("searchbox", name="Filter options of City")
    search.fill("en")  # Copenhagen, Florence, Geneva
    expect(card.locator("[role=radio]:visible")).to_have_count(3)
    expect(card.locator(".nbacp-cc-status")).to_have_text("3 of 12 shown. 1 selected option hidden.")
    search.press("Enter")  # jumps to the first match, does not submit the half-made answer
    expect(card.get_by_role("radio", name="Copenhagen")).to_be_focused()
    expect(probe(page, "cities-response")).to_have_text("")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Space")
    expect_probe(page, "cities-values", {"city": "Florence"})
    search.fill("zzz")
    expect(card.locator(".nbacp-cc-status")).to_have_text("No options match. 1 selected option hidden.")
    search.press("Escape")  # clears the filter; the form stays open
    expect(card.locator("[role=radio]:visible")).to_have_count(len(CITIES))
    expect(probe(page, "cities-response")).to_have_text("")
    form.get_by_role("button", name="Accept").click()
    expect_probe(page, "cities-response", {"action": "accept", "content": {"city": "Florence"}})
    expect(results(page)).to_contain_text('-> {"action": "accept", "content": {"city": "Florence"}}')


# The URL consent and permission cards' own browser tests: tests/browser/test_consent_cards_browser.py.


XSS = "<img src=x onerror=window.__xss=1>"
HOSTILE = textwrap.dedent(f"""
    import acp
    from acp.schema import ContentToolCallContent, PermissionOption, TextContentBlock, ToolCallUpdate
    from nbacp.render.turn_record_text import record_markdown, record_text
    from nbacp.client.turns.turn import TurnRecord as Record
    from nbacp.widgets.transcript import Transcript
    X = {XSS!r}
    schema = {{"type": "object", "title": X, "description": X, "properties": {{
        "q": {{"type": "string", "title": X, "description": X,
               "oneOf": [{{"const": "a", "title": X, "description": X}}]}},
        "q_custom": {{"type": "string", "title": X, "description": X}},
        "t": {{"type": "string", "title": X, "description": X, "default": X}},
    }}}}
    text = ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=X))
    call = ToolCallUpdate(tool_call_id="t1", title=X, raw_input={{"x": X}}, content=[text])
    turn = Transcript(prompt=X)
    more = " **bold** [x](javascript:window.__xss=2) <script>window.__xss=3</script>"
    block = lambda t: TextContentBlock(type="text", text=t)  # noqa: E731  (no acp.helpers on SDK 1.x)
    turn.add(acp.schema.AgentMessageChunk(session_update="agent_message_chunk", content=block(X + more)))
    turn.add(acp.schema.AgentThoughtChunk(session_update="agent_thought_chunk", content=block(X)))
    turn.finish("end_turn")
    answers = [("question", X, X), ("permission", X, X)]
    display(Record(record_markdown(X, X, answers, "end_turn"), record_text(X, X, answers, "end_turn")))
    widgets.VBox([
        nbacp.FormCard(X, schema, agent=X),
        UrlConsentCard(X, "https://example.com/?q=" + X, "e1", agent=X),
        UrlConsentCard(X, "https://example.com/" + X.replace(" ", ""), "e2", agent=X),
        PermissionCard(call, [PermissionOption(option_id="o", name=X, kind="allow_once")], agent=X),
        turn,
    ])
""")


def test_agent_text_never_becomes_markup(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    open_cards(lab, page, HOSTILE)
    out = output_area(page, 1)
    expect(out.locator(".nbacp-permission-card")).to_be_visible(timeout=CARD_TIMEOUT)
    expect(out.locator(".nbacp-stop")).to_be_visible(timeout=CARD_TIMEOUT)
    for card in (".nbacp-kind-form", ".nbacp-permission-card", ".nbacp-transcript"):
        expect(out.locator(card)).to_contain_text(XSS)  # shown as the characters it is
    expect(out.locator(".nbacp-url-card").nth(0)).to_contain_text(XSS)
    row = out.locator(".nbacp-cc-row")
    assert row.evaluate("(r) => r.firstChild.textContent") == XSS  # a row's label is its first text node
    expect(row).to_have_attribute("aria-label", XSS)
    expect(out.get_by_role("button", name=XSS)).to_be_visible()
    expect(out.locator(".jp-RenderedMarkdown")).to_contain_text("<img src=x")  # the static record
    # Nothing the agent wrote became an element, a script or a javascript: link.
    assert page.locator(".jp-OutputArea img, .jp-OutputArea script").count() == 0
    assert page.locator(".jp-OutputArea [onerror], .jp-OutputArea a[href^='javascript']").count() == 0
    # An <img src=x> would have failed to load long ago; its handler never ran.
    assert page.evaluate("() => window.__xss") is None
    screenshot(page, tmp_path, "hostile")


def test_edits_reach_the_kernel_while_a_cell_awaits(lab: JupyterServer, page: Page) -> None:
    """The case of every agent turn: the prompting cell awaits while the person edits a card."""
    awaiting = (
        "response = await langs\nprint(json.dumps(response.model_dump(mode='json', exclude_none=True), sort_keys=True))"
    )
    counter = "runs = globals().get('runs', 0) + 1\nprint('runs', runs)"
    open_cards(lab, page, LANGUAGES, awaiting, counter)
    card = form_card(page, "Which languages").locator(".nbacp-cc")
    expect(output_area(page, 2)).to_have_text("")
    card.get_by_role("checkbox", name="Python").click()
    card.get_by_role("checkbox", name="Rust").click()
    card.get_by_role("textbox", name="Other").fill("Go")
    expected = {"question_0": ["Python", "Rust"], "question_0_custom": "Go"}
    expect(probe(page, "langs-values")).to_have_text(json.dumps(expected, sort_keys=True), timeout=10_000)
    # the edits' busy/idle do not flip the status bar: the awaiting cell keeps the kernel "Busy"
    status = page.locator(".jp-StatusBar-TextItem").filter(has_text="ipykernel")
    expect(status).to_contain_text("Busy")
    form_card(page, "Which languages").get_by_role("button", name="Accept").click()
    expect(output_area(page, 2)).to_have_text(json.dumps({"action": "accept", "content": expected}, sort_keys=True))
    expect(output_area(page, 3)).to_have_text("runs 1\n")  # run-all's queue went on
    # the Accept button left with the card's controls: focus went back to the notebook, on the
    # cell that was active before the click into the card, so Shift+Enter runs it
    expect(page.locator(".jp-Notebook.jp-mod-commandMode")).to_have_count(1)
    page.keyboard.press("Shift+Enter")
    expect(output_area(page, 3)).to_have_text("runs 2\n")
    expect(status).to_contain_text("Idle")


BIDI = "\u202ePERMallow"
BIDI_TURN = textwrap.dedent(f"""
    import sys
    sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
    import nbacp
    from support.scripted_agent import ScriptedAgent
    options = [{{"optionId": "ok", "name": {BIDI!r}, "kind": "allow_once"}}]
    call = {{"toolCallId": "c1", "title": "bidi"}}
    agent = ScriptedAgent({{"prompt": [["request", "session/request_permission",
                                       {{"sessionId": "scripted", "toolCall": call, "options": options}}]]}})
    conn = await nbacp.connect(agent)
    session = await conn.new_session('.')
    turn = session.start("go")
""")
BIDI_FINISH = "result = await turn\nprint('DONE', agent.replies)"


def test_answered_permission_card_shows_bidi_marks_not_obeyed(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    """The summary and the record after a click are as safe as the button: U+202E shown, never obeyed."""
    open_notebook(page, lab, lab.write_notebook("bidi.ipynb", [BIDI_TURN, BIDI_FINISH]))
    run_cell(page, 0, timeout_ms=60_000)
    out = output_area(page, 0)
    button = out.locator(".nbacp-permission-card").get_by_role("button")
    expect(button).to_have_text("<U+202E>PERMallow", timeout=CARD_TIMEOUT)
    page.evaluate("() => { window.jupyterapp.shell.currentWidget.content.activeCellIndex = 1; }")
    button.click()
    # The card inside the transcript gave way to its summary line with the button that had the
    # focus: the focus went back to the notebook, on the cell active before the click into the
    # card, so Shift+Enter runs that cell (js/src/base.js, focusKeeper).
    expect(page.locator(".jp-Notebook.jp-mod-commandMode")).to_have_count(1)
    expect(page.locator(".jp-Notebook .jp-Cell").nth(1)).to_have_class(re.compile(r"\bjp-mod-active\b"))
    page.keyboard.press("Shift+Enter")
    expect(output_area(page, 1)).to_contain_text("'optionId': 'ok'", timeout=60_000)
    record = out.locator(".nbacp-record")
    expect(record).to_have_count(1, timeout=CARD_TIMEOUT)
    for text in (out.inner_text(), page.locator(".jp-Notebook").inner_text()):
        assert "\u202e" not in text, "a raw bidi override reached the page"
    expect(record).to_contain_text("Chose: <U+202E>PERMallow (allow_once)")
    screenshot(page, tmp_path, "bidi")
