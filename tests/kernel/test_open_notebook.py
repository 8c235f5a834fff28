"""The default notebook tools in a real kernel (nbacp/kernel/open_notebook.py): ``kernel_tools()``
gives a session ``notebook_read`` / ``notebook_edit``, and without nbacp's front-end piece (no
page at all here: the harness is the only client) each turn takes IPython's ``set_next_input``.

The agent is ``McpAcpAgent`` in the kernel; the test answers the review card as the page would
(the widget comm protocol, docs/cards.md). The live way, through a page with the piece, is
tests/browser/test_cells_e2e_browser.py.
"""

from __future__ import annotations

import asyncio
import json
import textwrap
from typing import Any

import pytest
from support import TESTS
from support.kernel_support import KernelHarness

pytestmark = pytest.mark.kernel
pytest.importorskip("mcp")

SETUP = textwrap.dedent(f"""
    import sys, json
    sys.path.insert(0, {str(TESTS)!r})
    import nbacp
    from support.mcp_acp_agent import McpAcpAgent
    conn = await nbacp.connect(McpAcpAgent())
""")
INSERT = {
    "name": "notebook_edit",
    "arguments": {"notebook_path": "analysis.ipynb", "new_source": "df.plot()", "edit_mode": "insert"},
}


def prompt(steps: list[Any]) -> str:
    return f"result = await session.prompt('calls ' + json.dumps({steps!r}))\nprint('RESULT', result.text)"


def report(kernel: KernelHarness, cell: str) -> list[Any]:
    kernel.wait_idle(cell, timeout=60)
    assert kernel.error(cell) is None, kernel.error(cell)
    results: list[Any] = json.loads(kernel.stream_text(cell).split("RESULT ", 1)[1])["results"]
    return results


def test_the_default_gives_the_notebook_tools_and_none_means_none(kernel: KernelHarness) -> None:
    kernel.run(
        SETUP
        + textwrap.dedent("""
        default = await conn.new_session(tools=nbacp.kernel_tools(namespace={}))
        without = await conn.new_session(tools=nbacp.kernel_tools(namespace={}, notebook=None))
    """)
    )
    ask = [{"name": "no_such_tool"}]
    for name, tools in (
        ("default", "list_variables, describe, run_python, notebook_read, notebook_edit"),
        ("without", "list_variables, describe, run_python"),
    ):
        [result] = report(kernel, kernel.execute(prompt(ask).replace("session.", f"{name}.")))
        assert result["result"]["content"][0]["text"] == f"Unknown tool 'no_such_tool'; the tools are {tools}."


def accept_the_card(kernel: KernelHarness, why: str) -> None:
    def card() -> str | None:
        for c in kernel.comm_opens():
            state = kernel.widget_state(c["comm_id"])
            if not c["closed"] and (state.get("spec") or {}).get("kind") == "review" and state.get("phase") == "open":
                return str(c["comm_id"])
        return None

    found = kernel.wait_for(card, 30, "the review card")
    spec = kernel.widget_state(found)["spec"]
    assert spec["live"] is False and why in spec["why_not_live"]
    kernel.send_custom(found, {"event": "accept", "seq": 1, "draft": {"source": "df.plot()"}})


@pytest.mark.parametrize(
    ("cell_id", "why"),
    [
        ("prompt-cell", "no page answered within 3 s"),  # JupyterLab's request, but no page with the piece
        (None, "carried no cell id"),  # nbclient, VS Code, Colab: no cellId
    ],
)
def test_without_the_piece_the_turn_takes_the_fallback(kernel: KernelHarness, cell_id: str | None, why: str) -> None:
    kernel.run(SETUP + "session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}))\n")
    cell = kernel.execute(prompt([{"name": "notebook_read"}, INSERT]), cell_id=cell_id)
    accept_the_card(kernel, why)
    read, edit = report(kernel, cell)
    assert read["result"]["isError"] and why in read["result"]["content"][0]["text"]
    text = edit["result"]["content"][0]["text"]
    assert edit["result"]["isError"] and text.startswith("Not applied: queued as IPython's set_next_input")
    assert why in text
    assert kernel.reply(cell)["content"]["payload"] == [
        {"source": "set_next_input", "text": "df.plot()", "replace": False}
    ]


def test_outside_a_kernel_the_default_has_no_notebook_tools() -> None:
    import nbacp

    assert nbacp.kernel_tools().notebook is None


async def test_one_decision_per_turn_shared_by_concurrent_calls() -> None:
    """Outside a kernel there is no prompt cell id: each turn decides for the fallback, at once."""
    from nbacp.kernel.next_input import NextInputLink
    from nbacp.kernel.open_notebook import NO_CELL_ID, OpenNotebook

    book = OpenNotebook()
    book.turn_started()
    assert book.chosen is None
    first, again = await asyncio.gather(book.link(), book.link())
    assert first is again and book.chosen is first and isinstance(first, NextInputLink)
    assert not book.live and book.why_not_live == NO_CELL_ID
    book.turn_started()
    assert book.chosen is None and await book.link() is not first
