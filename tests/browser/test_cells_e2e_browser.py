"""The agent writes into the notebook, end to end, in real JupyterLab 4 and Notebook 7.

The notebook's first cell connects an in-process agent (``notebook_agent``, tests/support: ACP
Kit with a deterministic FunctionModel, its tools calling nbacp's MCP server over HTTP; it keeps
every tool result its model received) with the default ``tools=nbacp.kernel_tools()``; the
second cell is the prompt. The agent reads the notebook (``notebook_read``) and proposes cells
(``notebook_edit``) by the ids it read; the person answers the review cards in the page; the
notebook is then read from the page's own model.
Without nbacp's front-end piece (``bare_lab``) the turn takes the ``set_next_input`` fallback.
"""

from __future__ import annotations

import json
import re
import statistics
from typing import Any

from browser_support import (
    JupyterServer,
    active_plugins,
    cell,
    open_notebook,
    run_all_cells,
    start_cell,
    wait_kernel_idle,
)
from notebook_edit_support import page_cells, run_in_kernel
from playwright.sync_api import Locator, Page, expect
from support import TESTS

CARD_TIMEOUT = 60_000
SETUP = """import sys, json
sys.path.insert(0, {tests!r})
import nbacp
from support.notebook_agent import notebook_agent
received = []
conn = await nbacp.connect(notebook_agent({plan!r}, received))
session = await conn.new_session(tools=nbacp.kernel_tools())"""
PROMPT = "result = await session.prompt('edit the notebook')"
REPORT = "print(json.dumps(received))"


def write(server: JupyterServer, plan: list[dict[str, Any]], cells: list[str]) -> tuple[str, list[str], str]:
    """The notebook [setup, prompt, *cells], the agent's edits ``plan`` (``"cell": <index>`` for
    the cell id it is to take from its read). Returns its path, its cell ids and the setup's source."""
    setup = SETUP.format(tests=str(TESTS), plan=plan)
    path = server.write_notebook("cells.ipynb", [setup, PROMPT, *cells])
    ids = [c["id"] for c in json.loads((server.root / path).read_text())["cells"]]
    return path, ids, setup


def edit(mode: str, cell: int | None, source: str | None = None) -> dict[str, Any]:
    return (
        {"edit_mode": mode}
        | ({"cell": cell} if cell is not None else {})
        | ({"new_source": source} if source is not None else {})
    )


def start(page: Page, server: JupyterServer, path: str) -> None:
    """Open the notebook, run the setup cell to its end, then start the prompt cell."""
    open_notebook(page, server, path)
    start_cell(page, 0)
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells[0].execution_count !== null",
        timeout=CARD_TIMEOUT,
    )
    wait_kernel_idle(page)
    start_cell(page, 1)


def card(page: Page, header: str) -> Locator:
    found = page.locator(".nbacp-review-card").filter(has=page.locator(".nbacp-card-header", has_text=header))
    expect(found.locator(".nbacp-card")).to_have_attribute("data-ready", "true", timeout=CARD_TIMEOUT)
    return found


def press(found: Locator, name: str) -> None:
    found.get_by_role("button", name=name, exact=True).click()


def results(page: Page) -> list[Any]:
    """What the agent's model received: the read's result, then each edit's, in the plan's order."""
    wait_kernel_idle(page)
    found: list[Any] = run_in_kernel(page, REPORT, None)
    return found


def text(result: dict[str, Any]) -> tuple[bool, str]:
    return bool(result["is_error"]), str(result["text"])


def sources(page: Page) -> list[tuple[str, str]]:
    return [(c["id"], c["source"]) for c in page_cells(page)]


def test_insert_edit_reject_then_undo(page: Page, server: JupyterServer) -> None:
    plan = [edit("insert", 1, "total = sum(revenue)"), edit("replace", 2, "revenue = [1, 2, 3, 4]"), edit("delete", 3)]
    path, ids, setup = write(server, plan, ["revenue = [1, 2, 3]", "print('debug')"])
    start(page, server, path)
    assert active_plugins(page, "nbacp:") == ["nbacp:notebook"]
    # the person's names: place, first line as code (no cell ran yet: no count); the id in the details
    insert = card(page, "proposes a new code cell after cell 2 result = await")
    replace = card(page, "proposes to change cell 3 revenue = [1, 2, 3]")
    delete = card(page, "proposes to delete cell 4 print('debug')")
    expect(replace.locator(".nbacp-card-header code")).to_have_text("revenue = [1, 2, 3]")
    expect(replace.locator(".nbacp-review-id")).to_have_text(f"id {ids[2]}")
    expect(insert.locator(".nbacp-review-id")).to_have_text(f"after id {ids[1]}")
    press(insert, "Accept")
    replace.locator("textarea").fill("revenue = [10, 20, 30]")
    press(replace, "Accept")
    press(delete, "Reject")
    read, inserted, replaced, deleted = results(page)

    cells = sources(page)
    new = cells[2][0]
    before = [(ids[0], setup), (ids[1], PROMPT), (ids[2], "revenue = [1, 2, 3]"), (ids[3], "print('debug')")]
    assert cells == [before[0], before[1], (new, "total = sum(revenue)"), (ids[2], "revenue = [10, 20, 30]"), before[3]]
    view = json.loads(text(read)[1])
    assert [c["id"] for c in view["cells"]] == ids and view["prompt_cell_id"] == ids[1]
    assert text(inserted) == (False, f"Accepted as cell {new} after cell {ids[1]}.")
    assert text(replaced) == (
        False,
        f"Accepted as cell {ids[2]}. The person edited it; the cell's source is now:\nrevenue = [10, 20, 30]",
    )
    assert text(deleted) == (True, "Rejected by the person; nothing was changed.")
    # the record's lines (the cards' summaries) name the cells where they are after each edit
    lines = run_in_kernel(page, "print(json.dumps([a.line for a in result.answers]))", None)
    # (the running prompt cell may or may not have its count yet, as the page reports it)
    after = r"after cell 2( \[\d+\])? `result = await session\.prompt\('edit the…`\."
    new_line = next(line for line in lines if "total" in line)  # the answers come in the order they ended
    assert len(lines) == 3 and re.fullmatch(r"Accepted as cell 3 `total = sum\(revenue\)` " + after, new_line), lines
    assert sorted(line for line in lines if line != new_line) == [
        "Accepted (edited by the person) as cell 4 `revenue = [10, 20, 30]`.",
        "Rejected by the person; nothing was changed.",
    ]

    cell(page, 0).locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")  # command mode
    # Ctrl+Z in command mode is the notebook's undo (the piece's shortcut, docs/notebook-edits.md): the replace,
    # then the insert, one per press.
    page.keyboard.press("Control+z")
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells"
        ".some((c) => c.getSource() === 'revenue = [1, 2, 3]')"
    )
    assert sources(page) == [before[0], before[1], (new, "total = sum(revenue)"), before[2], before[3]]
    page.keyboard.press("Control+z")
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells.length === 4")
    assert sources(page) == before


def test_a_stale_proposal_is_refused(page: Page, server: JupyterServer) -> None:
    path, ids, _setup = write(server, [edit("replace", 2, "revenue = [0]")], ["revenue = [1, 2, 3]"])
    start(page, server, path)
    replace = card(page, "proposes to change cell 3 revenue = [1, 2, 3]")
    # the person changes the target cell after the agent read it, while the card is open
    page.evaluate(
        """(id) => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells
        .find((c) => c.id === id).setSource('revenue = [5, 6]')""",
        ids[2],
    )
    press(replace, "Accept")
    _read, refused = results(page)
    failed, said = text(refused)
    assert failed and said.startswith(f"Stale: cell {ids[2]} changed since you read it")
    assert "nothing was applied" in said
    assert sources(page)[2:] == [(ids[2], "revenue = [5, 6]")] and len(page_cells(page)) == 3


def test_without_the_piece_the_fallback_puts_the_cell_below_the_prompt(page: Page, bare_lab: JupyterServer) -> None:
    path, ids, _setup = write(bare_lab, [edit("insert", None, "total = 6")], ["x = 1"])
    start(page, bare_lab, path)
    assert active_plugins(page, "nbacp:") == []
    insert = card(page, "proposes a new code cell")
    expect(insert.locator(".nbacp-review-notlive")).to_contain_text("no nbacp front-end piece")
    press(insert, "Accept")
    read, queued = results(page)
    assert text(read)[0] and "no nbacp front-end piece" in text(read)[1]
    failed, said = text(queued)
    assert (
        failed
        and said.startswith("Not applied: queued as IPython's set_next_input")
        and "no nbacp front-end piece" in said
    )
    cells = sources(page)
    assert [c[1] for c in cells[2:]] == ["total = 6", "x = 1"] and cells[3][0] == ids[2]


def test_accept_to_shown_in_the_page(page: Page, lab: JupyterServer) -> None:
    """Median time from the click on Accept to the new cell shown in the page (reported, never asserted)."""
    markers = [f"shown_{i} = {i}" for i in range(5)]
    path, _ids, _setup = write(lab, [edit("insert", 1, m) for m in markers], [])
    start(page, lab, path)
    times = []
    for marker in markers:
        found = page.locator(".nbacp-review-card").filter(has_text=marker)
        expect(found.locator(".nbacp-card")).to_have_attribute("data-ready", "true", timeout=CARD_TIMEOUT)
        page.evaluate(
            """(marker) => { window.__shown = new Promise((resolve) => {
            const seen = () => [...document.querySelectorAll('.jp-Cell .jp-InputArea-editor')]
              .some((e) => e.textContent.trim() === marker);  // not the prompt cell, which names every marker
            const observer = new MutationObserver(() => {
              if (seen()) { observer.disconnect(); resolve(performance.now()); } });
            observer.observe(document.body, {childList: true, subtree: true, characterData: true}); }); }""",
            marker,
        )
        button = found.get_by_role("button", name="Accept", exact=True)
        button.evaluate("(b) => { window.__clicked = performance.now(); b.click(); }")
        times.append(page.evaluate("async () => (await window.__shown) - window.__clicked"))
    results(page)
    print(f"Accept -> cell shown in the page: median {statistics.median(times):.0f} ms of {[round(t) for t in times]}")
    assert [c["source"] for c in page_cells(page)][2:] == markers[::-1]


def test_the_example_notebook_puts_the_demo_agents_cell_in_live(page: Page, server: JupyterServer) -> None:
    """notebooks/cells.ipynb as a new user runs it: with the piece, the accepted cell is in the notebook
    (its stored outputs, from nbval without a page, show the fallback instead)."""
    open_notebook(page, server, "notebooks/cells.ipynb")
    prompt = [i for i, c in enumerate(page_cells(page)) if c["source"].startswith("result = await session.prompt")]
    run_all_cells(page)
    press(card(page, "proposes a new code cell"), "Accept")
    wait_kernel_idle(page)
    cells = page_cells(page)
    proposed = "# proposed by the nbacp demo agent\nsales.describe()"
    assert cells[prompt[0] + 1]["source"] == proposed
    said = cell(page, prompt[0] + 3).locator(".jp-OutputArea-output").first
    expect(said).to_contain_text(
        f"What happened: Accepted as cell {cells[prompt[0] + 1]['id']} after cell {cells[prompt[0]]['id']}."
    )
