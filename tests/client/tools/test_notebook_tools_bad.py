"""Bad proposals to ``notebook_edit``: a clear tool error, no card, nothing applied, nothing lost.

Through the real MCP server over a real ACP connection (tests/support/notebook_tools.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.memory_notebook import cell
from support.notebook_tools import PATH, edit, failed, notebook, read, run, text_of

from nbacp.answers import Script
from nbacp.render.cells import MAX_SOURCE

pytest.importorskip("mcp")


BAD = [
    (edit(cell_id="nope", new_source="x"), "No cell has the id 'nope'"),
    (edit(cell_id="ask", edit_mode="delete"), "holds the person's running prompt"),
    (edit(cell_id="ask", new_source="x"), "holds the person's running prompt"),
    (edit(cell_id="load", new_source="x" * (MAX_SOURCE + 1), edit_mode="insert"), f"at most {MAX_SOURCE:,}"),
    (edit(cell_id="load", new_source="a\x00b", edit_mode="insert"), "U+0000 on line 1: a control character"),
    (edit(cell_id="load", new_source="ok\nif a\u202e:", edit_mode="insert"), "U+202E on line 2: a bidi control"),
    (edit(cell_id="load", new_source="x", edit_mode="move"), "edit_mode must be insert, replace or delete"),
    (edit(cell_id="load", new_source="x", cell_type="raw"), "cell_type must be code or markdown"),
    (edit(cell_id="load", edit_mode="replace"), "needs new_source"),
    (edit(new_source="x"), "needs the cell_id"),
    (
        {
            "name": "notebook_edit",
            "arguments": {"notebook_path": "other.ipynb", "new_source": "x", "edit_mode": "insert"},
        },
        "only to the notebook the prompt came from",
    ),
    (edit(cell_id="load", new_source=3), "'new_source' must be a string"),
    (edit(cell_id="load", new_source="x", index=2), "never by index"),
    (edit(new_source="x", cell_number=2, edit_mode="insert"), "never by index"),
    (edit(cell_id="load", new_source="x", other=1), "Unknown argument(s) 'other'"),
]


@pytest.mark.parametrize(("call", "message"), BAD, ids=[m for _, m in BAD])
async def test_bad_proposals_are_tool_errors_and_change_nothing(call: dict[str, Any], message: str) -> None:
    book = notebook()
    before = book.sources()
    script = Script([{"review": "accept"}])
    (_, proposed), _ = await run(book, [read(), call], script)
    assert failed(proposed) and message in text_of(proposed)
    assert book.sources() == before and book.applied == [] and script.remaining == 1


async def test_a_cell_not_read_cannot_be_replaced() -> None:
    book = notebook()
    (proposed,), _ = await run(book, [edit(cell_id="load", new_source="x")], Script([{"review": "accept"}]))
    assert failed(proposed) and "Read cell load with notebook_read before changing it" in text_of(proposed)


async def test_duplicate_ids_are_marked_and_refused() -> None:
    book = notebook()
    book.cells.append(cell("load", "again"))
    (listed, proposed), _ = await run(book, [read(), edit(cell_id="load", new_source="x", edit_mode="insert")])
    assert [c.get("duplicate_id", False) for c in json.loads(text_of(listed))["cells"]] == [False, True, False, True]
    assert failed(proposed) and "2 cells have the id 'load'" in text_of(proposed)


async def test_a_closed_notebook_is_a_tool_error() -> None:
    book = notebook()
    book.closed = True
    (listed, proposed), _ = await run(book, [read(), edit(cell_id="load", new_source="x", edit_mode="insert")])
    assert failed(listed) and "work/analysis.ipynb was closed" in text_of(listed)
    assert failed(proposed) and "Nothing was applied" in text_of(proposed)


async def test_closed_while_the_card_is_open_is_not_applied() -> None:
    book = notebook()

    def person(card: Any) -> None:
        book.closed = True
        card.accept()

    (proposed,), _ = await run(book, [edit(cell_id="load", new_source="x", edit_mode="insert")], person)
    assert failed(proposed) and text_of(proposed) == ("Not applied: work/analysis.ipynb was closed.")
    assert book.applied == []


async def test_the_agent_cannot_ask_to_run_the_cell() -> None:
    book = notebook()
    (proposed,), _ = await run(
        book, [edit(cell_id="load", new_source="x", edit_mode="insert", run=True)], Script([{"review": "accept"}])
    )
    assert failed(proposed) and "Unknown argument(s) 'run'" in text_of(proposed) and book.ran == []


def test_which_paths_name_the_prompts_notebook() -> None:
    from nbacp.client.tools.notebook_args import same_notebook

    windows = "C:\\u\\work\\analysis.ipynb"
    for given in (PATH, "/" + PATH, f"/home/me/{PATH}", "analysis.ipynb", "./analysis.ipynb", windows):
        assert same_notebook(given, PATH), given
    for given in ("other.ipynb", "/analysis.ipynb", "/home/me/other/analysis.ipynb", "../analysis.ipynb", "", "/"):
        assert not same_notebook(given, PATH), given
