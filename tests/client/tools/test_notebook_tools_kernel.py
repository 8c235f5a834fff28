"""A real kernel: a cell's agent proposes cells; the test answers the review cards as the page would.

The test speaks only the widget comm protocol (a state update while the person types, the
Accept / Reject messages with their draft: docs/cards.md, 'The review card'). The agent is
``McpAcpAgent`` in the kernel, the notebook the in-memory ``MemoryNotebook``
(tests/support/memory_notebook.py says why a stand-in).
"""

from __future__ import annotations

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
    from support.memory_notebook import MemoryNotebook, cell
    book = MemoryNotebook("a.ipynb", [cell("load", "df = load()"), cell("ask", "prompt")], "ask")
    conn = await nbacp.connect(McpAcpAgent())
    session = await conn.new_session(tools=nbacp.kernel_tools(namespace={{}}, notebook=book))
""")


def review_cards(kernel: KernelHarness, count: int) -> list[dict[str, Any]]:
    def find() -> list[dict[str, Any]] | None:
        cards = [
            c
            for c in kernel.comm_opens()
            if not c["closed"]
            and (kernel.widget_state(c["comm_id"]).get("spec") or {}).get("kind") == "review"
            and kernel.widget_state(c["comm_id"]).get("phase") == "open"
        ]
        return cards if len(cards) >= count else None

    return kernel.wait_for(find, 30, f"{count} review card(s)")


def test_the_person_edits_one_proposal_and_rejects_another(kernel: KernelHarness) -> None:
    kernel.run(SETUP)
    steps = [
        {"name": "notebook_read"},
        [
            {
                "name": "notebook_edit",
                "arguments": {
                    "notebook_path": "a.ipynb",
                    "cell_id": "load",
                    "new_source": "df.plot()",
                    "edit_mode": "insert",
                },
            },
            {
                "name": "notebook_edit",
                "arguments": {"notebook_path": "a.ipynb", "cell_id": "load", "new_source": "df = 2"},
            },
        ],
    ]
    cell = kernel.execute(
        f"result = await session.prompt('calls ' + json.dumps({steps!r}))\nprint('RESULT', result.text)"
    )
    cards = review_cards(kernel, 2)
    kernel.wait_for(
        lambda: all(kernel.widget_state(c["comm_id"]).get("pending") == 2 for c in cards) or None,
        10,
        "both cards to count two open proposals",
    )
    by_mode = {kernel.widget_state(c["comm_id"])["spec"]["mode"]: c["comm_id"] for c in cards}
    kernel.send_update(by_mode["insert"], draft={"source": "df.plot(kind='bar')"})  # the person types
    kernel.send_custom(by_mode["insert"], {"event": "accept", "seq": 1, "draft": {"source": "df.plot(kind='bar')"}})
    kernel.send_custom(by_mode["replace"], {"event": "reject", "seq": 1})
    kernel.wait_idle(cell, timeout=30)
    assert kernel.error(cell) is None, kernel.error(cell)
    report = json.loads(kernel.stream_text(cell).split("RESULT ", 1)[1])
    inserted, replaced = (r["result"] for r in report["results"][1])
    assert inserted["content"][0]["text"] == (
        "Accepted as cell new-1 after cell load. The person edited it; the cell's source is now:\ndf.plot(kind='bar')"
    )
    assert replaced["isError"] and replaced["content"][0]["text"] == "Rejected by the person; nothing was changed."
    assert kernel.run("print(book.sources())") == (
        "[('load', 'df = load()'), ('new-1', \"df.plot(kind='bar')\"), ('ask', 'prompt')]\n"
    )
    # both cards gave their place to their outcome line and closed
    kernel.wait_for(lambda: all(kernel.comms[c["comm_id"]]["closed"] for c in cards) or None, 10, "the cards to close")
    answered = kernel.run("print([a.line for a in result.answers])")
    assert "Accepted (edited by the person) as cell 2 `df.plot(kind='bar')` after cell 1 `df = load()`." in answered
    assert "Rejected by the person" in answered
