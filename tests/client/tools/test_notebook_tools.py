"""``notebook_read`` / ``notebook_edit`` through the real MCP server over a real ACP connection.

The agent and the notebook: tests/support/notebook_tools.py. Review cards are answered by
nbacp.answers scripts acting on the real cards. Bad proposals: test_notebook_tools_bad.py.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from support.mcp_acp_agent import McpAcpAgent
from support.memory_notebook import MemoryNotebook, cell
from support.notebook_tools import PATH, edit, failed, notebook, read, run, text_of
from support.sdk_line import HAS_ACP_KIT, NO_ACP_KIT

import nbacp
from nbacp.answers import Script
from nbacp.render.turn_record_text import record_text

pytest.importorskip("mcp")


@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_read_then_insert_accepted_is_in_the_notebook_and_the_record(transport: str) -> None:
    book = notebook()
    script = Script([{"expect": "review", "review": "accept"}])
    (listed, proposed), result = await run(
        book, [read(), edit(cell_id="load", new_source="df.plot()", edit_mode="insert")], script, transport=transport
    )
    view = json.loads(text_of(listed))
    assert view["notebook_path"] == PATH and view["prompt_cell_id"] == "ask"
    assert [(c["id"], c["cell_type"], c.get("prompt_cell", False)) for c in view["cells"]] == [
        ("intro", "markdown", False),
        ("load", "code", False),
        ("ask", "code", True),
    ]
    assert view["cells"][1]["execution_count"] == 1 and "revenue" in view["cells"][1]["outputs"]
    assert not failed(proposed) and text_of(proposed) == "Accepted as cell new-1 after cell load."
    assert book.sources() == [
        ("intro", "# Revenue"),
        ("load", "df = load()"),
        ("new-1", "df.plot()"),
        ("ask", "await session.prompt('add a plot')"),
    ]
    # the person's words name cells by place, execution count and first line; the agent's by id
    line = "Accepted as cell 3 `df.plot()` after cell 2 [1] `df = load()`."
    assert [(a.kind, a.line) for a in result.answers] == [("review", line)]
    assert result.answers[0].value["cell_id"] == "new-1"
    assert "**Outcome:** Accepted as cell 3 \\`df\\.plot\\(\\)\\`" in result.record
    assert "\\+ df\\.plot\\(\\)" in result.record
    record = record_text("p", "", result.answers, "end_turn")
    assert f"Cell edit: notebook_edit: insert after cell 2 [1] `df = load()`\n  Outcome: {line}" in record
    assert "\n    + df.plot()\n" in record
    assert script.remaining == 0


async def test_the_person_edits_and_runs_a_replacement() -> None:
    book = notebook()
    script = Script([{"review": "accept_run", "source": "df = load(cache=True)"}])
    (_, proposed), result = await run(book, [read(), edit(cell_id="load", new_source="df = load(fast=True)")], script)
    assert [a.line for a in result.answers] == [
        "Accepted (edited by the person) as cell 2 [1] `df = load(cache=True)`, and run."
    ]
    text = text_of(proposed)
    assert text.startswith("Accepted as cell load. The person edited it; the cell's source is now:\n")
    assert text.endswith("df = load(cache=True)\nThe person chose to run it.")
    assert book.sources()[1] == ("load", "df = load(cache=True)") and book.ran == ["load"]
    assert book.applied[0].expected_source == "df = load()" and book.applied[0].run


async def test_a_rejected_delete_changes_nothing() -> None:
    book = notebook()
    before = book.sources()
    (_, proposed), result = await run(
        book, [read(), edit(cell_id="intro", edit_mode="delete")], Script([{"review": "reject"}])
    )
    assert failed(proposed) and text_of(proposed) == "Rejected by the person; nothing was changed."
    assert book.sources() == before and book.applied == []
    assert [a.action for a in result.answers] == ["decline"]
    assert result.answers[0].value["diff"] == "- # Revenue"  # the record keeps what was proposed


async def test_an_accepted_delete_reads_back() -> None:
    book = notebook()
    steps = [read(), edit(cell_id="intro", edit_mode="delete")]
    (_, proposed), _ = await run(book, steps, Script([{"review": "accept"}]))
    assert text_of(proposed) == "Accepted: cell intro was deleted."
    assert [c for c, _ in book.sources()] == ["load", "ask"]


async def test_stale_before_the_card_shows_no_card() -> None:
    book = notebook()
    script = Script([{"review": "accept"}])

    async with asyncio.timeout(60):
        async with nbacp.connect(McpAcpAgent(), answers=script) as conn:
            session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}, notebook=book))
            await session.prompt("calls " + json.dumps([read()]))
            book.person_types("load", "df = load('2025')")
            result = await session.prompt("calls " + json.dumps([edit(cell_id="load", new_source="df = 1")]))
    proposed = json.loads(result.text)["results"][0]
    assert failed(proposed) and text_of(proposed).startswith("Stale: cell load changed since you read it")
    assert book.sources()[1] == ("load", "df = load('2025')") and book.applied == []
    assert script.remaining == 1  # no card was shown
    assert [a.line.split(":")[0] for a in result.answers] == ["Stale"]


async def test_stale_while_the_card_is_open_is_refused_by_the_page() -> None:
    book = notebook()

    def person(card: Any) -> None:  # types into the target cell, then accepts the proposal
        book.person_types("load", "df = load('typed meanwhile')")
        card.accept()

    (_, proposed), _ = await run(book, [read(), edit(cell_id="load", new_source="df = 2")], person)
    assert failed(proposed) and text_of(proposed).startswith("Stale: cell load changed since you read it")
    assert book.sources()[1] == ("load", "df = load('typed meanwhile')")


async def test_accept_all_answers_every_open_proposal() -> None:
    book = notebook()
    script = Script([{"skip": True}, {"skip": True}, {"review": "accept_all"}])
    calls = [edit(cell_id="load", new_source=f"step({i})", edit_mode="insert") for i in range(3)]
    (results,), result = await run(book, [calls], script)
    assert sorted(text_of(r) for r in results) == [f"Accepted as cell new-{i} after cell load." for i in (1, 2, 3)]
    assert sorted(s for _, s in book.sources() if s.startswith("step")) == ["step(0)", "step(1)", "step(2)"]
    assert len(result.answers) == 3


async def test_reject_all() -> None:
    book = notebook()
    script = Script([{"skip": True}, {"review": "reject_all"}])
    calls = [edit(cell_id="load", new_source=f"step({i})", edit_mode="insert") for i in range(2)]
    (results,), _ = await run(book, [calls], script)
    assert [text_of(r) for r in results] == ["Rejected by the person; nothing was changed."] * 2
    assert book.applied == []


async def test_the_persons_version_is_not_lost_when_it_cannot_go_in() -> None:
    book = notebook()

    def person(card: Any) -> None:
        book.person_types("load", "df = load('typed meanwhile')")
        card.accept("df = load('my version')")

    (_, proposed), result = await run(book, [read(), edit(cell_id="load", new_source="df = 2")], person)
    assert text_of(proposed).endswith("\nThe person's version, not applied:\ndf = load('my version')")
    assert "+ df = load('my version')" in result.answers[0].value["diff"]


async def test_the_read_is_bounded() -> None:
    from nbacp.client.tools.notebook_texts import MAX_CELL_SOURCE, MAX_READ

    big = "x" * (MAX_CELL_SOURCE + 10)
    cells = [cell(f"c{i}", big) for i in range(MAX_READ // MAX_CELL_SOURCE + 3)]
    book = MemoryNotebook(PATH, cells, "c0")
    (listed,), _ = await run(book, [read()])
    text = text_of(listed)
    rows = json.loads(text)["cells"]
    assert len(rows) == len(cells) and "(10 more characters)" in rows[0]["source"]
    assert "source_omitted" in rows[-1] and len(text) < MAX_READ + 2 * MAX_CELL_SOURCE


async def test_a_link_that_is_not_live_says_so_on_the_card() -> None:
    book = notebook(live=False, why_not_live="No nbacp front-end piece answered (VS Code).")
    seen: list[dict[str, Any]] = []

    def person(card: Any) -> None:
        seen.append(dict(card.spec))
        card.reject()

    await run(book, [edit(cell_id="load", new_source="x", edit_mode="insert")], person)
    assert seen[0]["live"] is False and seen[0]["why_not_live"] == "No nbacp front-end piece answered (VS Code)."
    assert "agent is told exactly what happened" in seen[0]["instead"]


@pytest.mark.skipif(not HAS_ACP_KIT, reason=NO_ACP_KIT)
async def test_over_http_the_same_tools_answer() -> None:
    """The HTTP transport (agents without mcpCapabilities.acp): the demo agent's session, the
    mcp SDK's own streamable HTTP client at the URL and token nbacp passed in session/new."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from nbacp.demo import demo_agent

    book = notebook()
    async with asyncio.timeout(60), nbacp.connect(demo_agent(), answers=Script([{"review": "accept"}])) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}, notebook=book))
        server = session.tools
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {server.token}"}) as http,
            Client(streamable_http_client(server.url, http_client=http)) as client,
        ):
            names = [t.name for t in (await client.list_tools()).tools]
            listed = await client.call_tool("notebook_read", {})
            proposed = await client.call_tool(
                "notebook_edit",
                {"notebook_path": PATH, "cell_id": "load", "new_source": "df.tail()", "edit_mode": "insert"},
            )
    assert names == ["list_variables", "describe", "run_python", "notebook_read", "notebook_edit"]
    assert json.loads(listed.content[0].text)["prompt_cell_id"] == "ask"
    assert not proposed.is_error and proposed.content[0].text == "Accepted as cell new-1 after cell load."
    assert book.sources()[2] == ("new-1", "df.tail()")


async def test_a_call_withdrawn_while_applying_leaves_no_card_applying() -> None:
    class SlowPage(MemoryNotebook):
        def __init__(self) -> None:
            super().__init__(PATH, notebook().cells, "ask")
            self.applying = asyncio.Event()

        async def apply(self, edit: Any) -> Any:
            self.applying.set()
            await asyncio.Event().wait()  # the page never answers; the call is withdrawn meanwhile

    book = SlowPage()
    cards: list[Any] = []

    def person(card: Any) -> None:
        cards.append(card)
        card.accept()

    async with asyncio.timeout(30), nbacp.connect(McpAcpAgent(), answers=person) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}, notebook=book))
        tools = session.tools.notebook
        call = asyncio.ensure_future(tools.edit(edit(cell_id="load", new_source="x", edit_mode="insert")["arguments"]))
        await book.applying.wait()
        assert cards[0].phase == "sent"
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
    assert cards[0].settled and cards[0].summary.startswith("Withdrawn while applying")


async def test_after_an_insert_the_agent_may_still_change_the_cell_it_inserted_after_and_the_new_one() -> None:
    book = notebook()
    steps = [
        read(),
        edit(cell_id="load", new_source="df.plot()", edit_mode="insert"),
        edit(cell_id="load", new_source="df = load(2)"),
        edit(cell_id="new-1", new_source="df.plot(kind='bar')"),
    ]
    (_, _, anchor, inserted), _ = await run(book, steps, Script([{"review": "accept"}] * 3))
    assert text_of(anchor) == "Accepted as cell load." and text_of(inserted) == "Accepted as cell new-1."
    assert book.sources()[1:3] == [("load", "df = load(2)"), ("new-1", "df.plot(kind='bar')")]


class NoPage(MemoryNotebook):
    """A link with no page (as nbacp's set_next_input fallback): it cannot read the notebook, and
    a new cell it takes cannot be read back, so it is never reported as applied."""

    def __init__(self) -> None:
        super().__init__(PATH, [], None, live=False, why_not_live="No page with nbacp's front-end piece answered.")
        self.queued: list[str] = []

    async def read(self) -> Any:
        from support.memory_notebook import NotebookGone

        raise NotebookGone("nbacp cannot read the open notebook: no page answered.")

    async def apply(self, edit: Any) -> Any:
        from nbacp.kernel.notebook_edits import EditResult

        self.queued.append(edit.source)
        return EditResult("not_applied", None, None, "queued below the prompt cell; it cannot be read back")


async def test_without_a_live_page_a_new_cell_still_goes_to_the_link_and_stays_on_the_card() -> None:
    book = NoPage()
    cards: list[Any] = []

    def person(card: Any) -> None:
        cards.append(card)
        card.accept("df.plot()  # mine")

    (listed, inserted, replaced), _ = await run(
        book, [read(), edit(new_source="df.plot()", edit_mode="insert"), edit(cell_id="x", new_source="y")], person
    )
    assert failed(listed) and "no page answered" in text_of(listed)
    assert failed(inserted) and text_of(inserted) == (
        "Not applied: queued below the prompt cell; it cannot be read back.\n"
        "The person's version, not applied:\ndf.plot()  # mine"
    )
    assert book.queued == ["df.plot()  # mine"]
    card = cards[0]
    assert card.spec["live"] is False and card.spec["why_not_live"] == "No page with nbacp's front-end piece answered."
    assert card.spec["header"].endswith("a new code cell below your prompt cell")
    assert card.phase == "sent" and card.spec["copy"] == "df.plot()  # mine" and card.spec["actions"] == []
    assert card.spec["status"].startswith("Not applied: queued below the prompt cell")
    assert failed(replaced) and "cannot be reached" in text_of(replaced) and len(cards) == 1
