"""The person's names for cells (place, execution count, first line) on the card, its summary and
the record; the agent's tool results keep the ids (nbacp/client/tools/notebook_texts.py)."""

from __future__ import annotations

from typing import Any

import pytest
from support.memory_notebook import cell
from support.notebook_tools import edit, notebook, read, run, text_of

pytest.importorskip("mcp")


async def test_the_card_names_the_cell_by_place_count_and_first_line_and_keeps_the_id_in_its_details() -> None:
    book = notebook()
    specs: list[dict[str, Any]] = []

    def person(card: Any) -> None:
        specs.append(dict(card.spec))
        card.reject()

    await run(
        book, [read(), edit(cell_id="load", new_source="df = 2"), edit(cell_id="intro", edit_mode="delete")], person
    )
    assert [s["header"] for s in specs] == [
        "agent proposes to change cell 2 [1] `df = load()`",
        "agent proposes to delete cell 1 `# Revenue`",
    ]
    assert [(s["target"], s["target_line"]) for s in specs] == [("load", "df = load()"), ("intro", "# Revenue")]


async def test_the_summary_names_the_cell_where_it_is_after_the_edit() -> None:
    """The card opened on "cell 2 [1]"; the person put a cell above it before accepting: the
    summary and the record say where the cell is now (a read after the edit), the agent the id."""
    book = notebook()
    lines: list[str] = []

    def person(card: Any) -> None:
        assert card.spec["header"].endswith("change cell 2 [1] `df = load()`")
        book.cells.insert(0, cell("top", "import pandas as pd", count=3))
        card.on_settle(lambda _: lines.append(card.summary))
        card.accept()

    (_, replaced), result = await run(book, [read(), edit(cell_id="load", new_source="df = load(2)")], person)
    assert text_of(replaced) == "Accepted as cell load."
    assert lines == [a.line for a in result.answers] == ["Accepted as cell 3 [1] `df = load(2)`."]
    assert result.answers[0].question == "notebook_edit: replace cell 2 [1] `df = load()`"


async def test_a_stale_proposal_is_told_to_the_person_by_name_and_to_the_agent_by_id() -> None:
    book = notebook()

    def person(card: Any) -> None:
        book.person_types("load", "df = load('typed meanwhile')")
        card.accept()

    (_, proposed), result = await run(book, [read(), edit(cell_id="load", new_source="df = 2")], person)
    assert text_of(proposed).startswith("Stale: cell load changed since you read it (")
    assert result.answers[0].line == (
        "Stale: cell 2 [1] `df = load()` changed since the agent read it "
        "(the cell changed since it was read); nothing was applied."
    )
