"""The notebook link's side of the protocol, against pages played in this process.

The browser tier (tests/browser/test_notebook_edits_browser.py) runs the real pages; the cases
here are the ones a real page does not produce on demand: pages that answer late, never, with
another notebook, malformed replies. The simulated page speaks the protocol of
docs/notebook-edits.md: it answers ``who`` with ``hello`` and what is addressed to it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import comm
import pytest
from comm.base_comm import BaseComm

from nbacp.errors import NotebookUnavailableError
from nbacp.kernel.next_input import NextInputLink, live_or_fallback
from nbacp.kernel.notebook_edits import CellEdit
from nbacp.kernel.notebook_link import CommNotebookLink
from nbacp.kernel.notebook_wire import LIMITS

CELLS = [
    {
        "id": "p",
        "cell_type": "code",
        "source": "await session.prompt('add a cell')",
        "execution_count": 1,
        "outputs": "",
    },
    {"id": "b", "cell_type": "markdown", "source": "# notes", "execution_count": None, "outputs": ""},
]


@dataclass
class Page:
    """One simulated page: which notebook it shows, whether it holds the prompt cell, what it answers."""

    id: str
    path: str = "work/edits.ipynb"
    holds: bool = True
    answers: bool = True
    refuses: bool = False
    cells: list[dict[str, Any]] = field(default_factory=lambda: list(CELLS))
    edit_reply: dict[str, Any] | None = None
    received: list[dict[str, Any]] = field(default_factory=list)

    def answer(self, data: dict[str, Any]) -> dict[str, Any] | None:
        self.received.append(data)
        base = {"v": 1, "page": self.id, "request": data.get("request")}
        if data["type"] == "who":
            return base | {"type": "hello", "path": self.path, "holds": self.holds, "notebooks": 1}
        if data.get("page") != self.id:
            return None
        if data["type"] == "read":
            return base | {"type": "read_reply", "path": self.path, "cells": self.cells}
        return base | (
            self.edit_reply
            or {"type": "edit_reply", "outcome": "applied", "cell_id": "new", "source": data["source"], "reason": ""}
        )


class PageComms(BaseComm):
    """The kernel's comm; what it publishes reaches the simulated pages, whose answers arrive on
    the loop a moment later, as from the shell channel."""

    pages: list[Page] = []

    def publish_msg(
        self, msg_type: str, data: dict[str, Any] | None = None, metadata: Any = None, buffers: Any = None, **keys: Any
    ) -> None:
        loop = asyncio.get_running_loop()
        for page in self.pages:
            if not page.answers or msg_type == "comm_close":
                continue
            if page.refuses:
                loop.call_soon(self.handle_close, {"content": {"comm_id": self.comm_id, "data": {}}})
                continue
            reply = page.answer(dict(data or {}))
            if reply is not None:
                loop.call_soon(self.handle_msg, {"content": {"comm_id": self.comm_id, "data": reply}})


@pytest.fixture
def pages(monkeypatch: pytest.MonkeyPatch) -> Callable[..., list[Page]]:
    monkeypatch.setenv("JPY_SESSION_NAME", "work/edits.ipynb")  # no server to ask here: the env names it

    def install(*found: Page) -> list[Page]:
        PageComms.pages = list(found)
        monkeypatch.setattr(comm, "create_comm", lambda *a, **k: PageComms(*a, **k))
        return PageComms.pages

    return install


def link() -> CommNotebookLink:
    found = CommNotebookLink(hello_timeout=0.2, reply_timeout=0.5)
    found.note_prompt("p")
    return found


def insert(source: str = "x = 1") -> CellEdit:
    return CellEdit(mode="insert", cell_id="p", source=source, cell_type="code", expected_source=None)


async def test_the_page_that_holds_the_prompt_cell_is_the_one_addressed(pages: Callable[..., list[Page]]) -> None:
    other, right = pages(Page("other", path="other.ipynb", holds=False), Page("right"))
    async with asyncio.timeout(10):
        view = await (the_link := link()).read()
        result = await the_link.apply(insert())
    assert the_link.live and the_link.why_not_live == ""
    assert [c.id for c in view.cells] == ["p", "b"] and view.prompt_cell_id == "p"
    assert (result.outcome, result.cell_id, result.source) == ("applied", "new", "x = 1")
    assert [m["type"] for m in right.received if m.get("page") == "right"] == ["read", "edit"]
    assert not [m for m in other.received if m.get("page") == "other"]


async def test_no_page_then_a_late_one(pages: Callable[..., list[Page]]) -> None:
    (late,) = pages(Page("late", answers=False))
    the_link = link()
    async with asyncio.timeout(10):
        assert await the_link.connect() is False
        assert "no page answered" in the_link.why_not_live
        with pytest.raises(NotebookUnavailableError, match="no page answered"):
            await the_link.read()
        late.answers = True  # the page comes up: its hello makes the link live
        assert (await the_link.apply(insert())).outcome == "applied"
    assert the_link.live


async def test_a_page_without_the_piece_refuses_the_comm(pages: Callable[..., list[Page]]) -> None:
    pages(Page("bare", refuses=True))
    the_link = link()
    async with asyncio.timeout(10):
        assert await the_link.connect() is False
        result = await the_link.apply(insert())
    assert "no nbacp front-end piece" in the_link.why_not_live
    assert result.outcome == "not_applied" and "no nbacp front-end piece" in result.reason


async def test_not_sure_which_notebook_is_refused(
    pages: Callable[..., list[Page]], monkeypatch: pytest.MonkeyPatch
) -> None:
    pages(Page("elsewhere", holds=False))
    async with asyncio.timeout(10):
        with pytest.raises(NotebookUnavailableError, match="notebook holding the prompt cell p answered"):
            await link().read()
        pages(Page("renamed", path="work/renamed.ipynb"))
        with pytest.raises(NotebookUnavailableError, match="cannot confirm that this kernel runs work/renamed"):
            await link().read()
        pages(Page("right"))
        no_cell = CommNotebookLink(hello_timeout=0.2)
        with pytest.raises(NotebookUnavailableError, match="cell id did not come with"):
            await no_cell.read()


async def test_malformed_replies_are_errors_never_results(pages: Callable[..., list[Page]]) -> None:
    (page,) = pages(Page("p1", cells=[CELLS[0], CELLS[0]]))
    the_link = link()
    async with asyncio.timeout(10):
        with pytest.raises(NotebookUnavailableError, match="two cells share an id"):
            await the_link.read()
        page.edit_reply = {"type": "edit_reply", "outcome": "applied", "cell_id": "new", "source": "x", "reason": "?"}
        assert "malformed" in (await the_link.apply(insert())).reason
        page.edit_reply = {"type": "edit_reply", "outcome": "done", "cell_id": None, "source": None, "reason": ""}
        assert (await the_link.apply(insert())).outcome == "not_applied"
        page.edit_reply = {
            "type": "edit_reply",
            "outcome": "stale",
            "cell_id": None,
            "source": None,
            "reason": "cell p changed since it was read: nothing applied",
        }
        assert (await the_link.apply(insert())).outcome == "stale"


async def test_bad_edits_are_refused_before_anything_is_sent(pages: Callable[..., list[Page]]) -> None:
    (page,) = pages(Page("p1"))
    the_link = link()
    async with asyncio.timeout(10):
        too_long = await the_link.apply(insert("x" * (LIMITS.source + 1)))
        no_target = await the_link.apply(CellEdit("delete", None, "", "code", None))
        prompt = await the_link.apply(CellEdit("delete", "p", "", "code", None))
    assert too_long.outcome == no_target.outcome == prompt.outcome == "not_applied"
    assert "at most" in too_long.reason and "needs a cell id" in no_target.reason and "prompt cell" in prompt.reason
    assert not [m for m in page.received if m["type"] == "edit"]


async def test_a_page_that_stops_answering_is_not_an_applied_edit(pages: Callable[..., list[Page]]) -> None:
    (page,) = pages(Page("p1"))
    the_link = link()
    async with asyncio.timeout(10):
        await the_link.connect()
        page.edit_reply = None
        original = page.answer
        page.answer = lambda data: original(data) if data["type"] == "who" else None  # type: ignore[method-assign]
        result = await the_link.apply(insert())
    assert result.outcome == "not_applied" and "may or may not be in the notebook" in result.reason


async def test_the_fallback_when_no_page_answers(pages: Callable[..., list[Page]]) -> None:
    (page,) = pages(Page("p1", answers=False))
    async with asyncio.timeout(10):
        fallback = await live_or_fallback(link())
        assert isinstance(fallback, NextInputLink) and not fallback.live
        assert "no page answered" in fallback.why_not_live
        result = await fallback.apply(insert())
        assert result.outcome == "not_applied" and "not in an IPython kernel" in result.reason
        page.answers = True
        the_link = link()
        assert await live_or_fallback(the_link) is the_link
