"""The review card in a real JupyterLab, driven through the DOM (docs/cards.md, 'The review card').

Next to each card a "probe" label that the KERNEL fills with the card's answer once given, so
an assertion on a probe proves the click (or key) travelled browser -> kernel as the card's
message, with the person's edited source in it. ``NBACP_SCREENSHOTS=<dir>`` also writes the
cards' screenshots, light and dark, there.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from browser_support import JupyterServer, open_notebook, output_area, run_all_cells, save_shot, set_theme
from playwright.sync_api import Locator, Page, expect

CARD_TIMEOUT = 30_000

SETUP = textwrap.dedent("""
    import json, dataclasses
    import ipywidgets as widgets
    from nbacp.render.cell_names import CellName
    from nbacp.widgets.review_card import Proposal, ReviewCard, ReviewGroup

    def probe(card, name):
        label = widgets.Label(value="")
        label.add_class(f"probe-{name}")
        card.on_resolve(lambda answer: setattr(label, "value", json.dumps(dataclasses.asdict(answer), sort_keys=True)))
        return widgets.VBox([card, label])
""")
CARDS = textwrap.dedent("""
    group = ReviewGroup()
    old = "df = load('sales.csv')\\ndf = df.dropna()\\ndf.head()"
    new = "df = load('sales.csv', parse_dates=['month'])\\ndf = df.dropna()\\ndf.groupby('month').revenue.sum().plot()"
    name = CellName.of(4, 5, old)
    replace = ReviewCard(Proposal("replace", "code", "b7c1", old, new, name=name), agent="claude",
                         path="work/sales.ipynb", group=group)
    insert = ReviewCard(Proposal("insert", "markdown", "b7c1", "", "## Revenue by month\\nFrom `sales.csv`.",
                                 name=name), agent="claude", path="work/sales.ipynb", group=group)
    delete = ReviewCard(Proposal("delete", "code", "9f20", "print('debug')", "",
                                 name=CellName.of(7, 6, "print('debug')")), agent="claude",
                        path="work/sales.ipynb", group=group)
    offline = ReviewCard(Proposal("insert", "code", "b7c1", "", "df.describe()", "below your prompt cell"),
                         agent="claude", path="sales.ipynb", live=False,
                         why_not_live="No nbacp front-end piece answered in this page (VS Code).")
    widgets.VBox([probe(replace, "replace"), probe(insert, "insert"), probe(delete, "delete"),
                  probe(offline, "offline")])
""")


def ready(card: Locator) -> Locator:
    root = card.locator(".nbacp-card")
    expect(root).to_have_attribute("data-ready", "true", timeout=CARD_TIMEOUT)
    return root


def expect_probe(page: Page, name: str, wanted: Any) -> None:
    expect(page.locator(f".probe-{name}")).to_have_text(json.dumps(wanted, sort_keys=True), timeout=CARD_TIMEOUT)


def open_cards(lab: JupyterServer, page: Page) -> list[Locator]:
    open_notebook(page, lab, lab.write_notebook("review_cards.ipynb", [SETUP, CARDS]))
    run_all_cells(page)
    cards = page.locator(".nbacp-review-card")
    expect(cards).to_have_count(4, timeout=CARD_TIMEOUT)
    return [ready(cards.nth(i)) for i in range(4)]


@pytest.mark.parametrize("front_end", ["lab", "notebook7"])
def test_the_person_edits_accepts_with_the_keyboard_and_rejects_the_rest(
    front_end: str, request: pytest.FixtureRequest, page: Page
) -> None:
    server: JupyterServer = request.getfixturevalue(front_end)
    replace, insert, delete, offline = open_cards(server, page)
    header = replace.locator(".nbacp-card-header")
    expect(header).to_have_text("claude proposes to change cell 4 [5] df = load('sales.csv')")
    expect(header.locator("code")).to_have_text("df = load('sales.csv')")
    expect(replace.locator(".nbacp-review-id")).to_have_text("id b7c1")
    expect(insert.locator(".nbacp-card-header")).to_have_text(
        "claude proposes a new Markdown cell after cell 4 [5] df = load('sales.csv')"
    )
    expect(insert.locator(".nbacp-review-id")).to_have_text("after id b7c1")
    expect(offline.locator(".nbacp-card-header")).to_have_text("claude proposes a new code cell below your prompt cell")
    expect(offline.locator(".nbacp-review-id")).to_have_count(0)
    expect(replace.locator(".nbacp-diff-size")).to_have_text("+2 \u22122")
    expect(insert.locator(".nbacp-diff-add .nbacp-diff-text")).to_have_text(
        ["## Revenue by month", "From `sales.csv`."]
    )
    struck = delete.locator("del.nbacp-diff-text")
    expect(struck).to_have_text("print('debug')")
    assert "line-through" in struck.evaluate("(e) => getComputedStyle(e).textDecorationLine")
    expect(delete.locator("textarea")).to_have_count(0)
    expect(offline.locator(".nbacp-review-notlive")).to_contain_text("VS Code")
    expect(offline.locator(".nbacp-review-all")).to_have_count(0)  # not in the group
    expect(replace.locator('[data-event="accept_all"]')).to_have_text("Accept all (3)")

    box = replace.locator("textarea")
    box.fill("df = load('sales.csv')\ndf.groupby('month').revenue.sum().plot()")
    expect(replace.locator("label .nbacp-badge")).to_have_text("edited")
    box.press("Enter")  # a new line in the source: neither an answer nor the notebook's Enter
    box.press("Control+Enter")  # Accept
    expect_probe(
        page,
        "replace",
        {
            "action": "accept",
            "edited": True,
            "run": False,
            "source": "df = load('sales.csv')\ndf.groupby('month').revenue.sum().plot()\n",
        },
    )
    expect(replace.locator(".nbacp-card-status")).to_have_text("Applying…")
    expect(insert.locator('[data-event="accept_all"]')).to_have_text("Accept all (2)")
    insert.locator('[data-event="reject_all"]').click()
    for name in ("insert", "delete"):
        expect_probe(page, name, {"action": "reject", "edited": False, "run": False, "source": None})
    expect(page.locator(".probe-offline")).to_have_text("")
    offline.get_by_role("button", name="Reject", exact=True).focus()
    page.keyboard.press("Enter")  # Enter on a button presses it
    expect_probe(page, "offline", {"action": "reject", "edited": False, "run": False, "source": None})


def test_light_and_dark_and_no_card_wider_than_the_output(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    cards = open_cards(lab, page)
    area = output_area(page, 1)
    try:
        for theme in ("JupyterLab Light", "JupyterLab Dark"):
            set_theme(page, theme)
            for width in (1280, 640):
                page.set_viewport_size({"width": width, "height": 900})
                wide = area.evaluate(
                    "(a) => [...a.querySelectorAll('.nbacp-card, .nbacp-card *')].filter("
                    "(e) => e.getBoundingClientRect().right > a.getBoundingClientRect().right + 1).length"
                )
                assert wide == 0, (theme, width)
            page.set_viewport_size({"width": 1280, "height": 900})
            colours = (
                cards[0]
                .locator(".nbacp-diff-line")
                .evaluate_all("(rows) => rows.map((r) => [r.dataset.tag, getComputedStyle(r).backgroundColor])")
            )
            added = {c for tag, c in colours if tag == "+"}
            removed = {c for tag, c in colours if tag == "-"}
            assert len(added) == len(removed) == 1 and added != removed, colours
            suffix = "dark" if "Dark" in theme else "light"
            save_shot(cards[0], tmp_path, f"review-replace-{suffix}")
            save_shot(cards[3], tmp_path, f"review-not-live-{suffix}")
    finally:
        set_theme(page, "JupyterLab Light")
