"""The kernel's side of the ``nbacp:turns`` comm (docs/reload.md, 'The front-end contract').

The browser tier (tests/browser/test_reload_browser.py) runs real pages; here a real kernel
with a page played over the kernel protocol, then the cases a real page does not produce on
demand: malformed and oversized hellos, many pages, a record too large to send (the page's comm
a recording object with the methods the module uses).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from support.kernel_support import FORMATS_SETUP as SETUP
from support.kernel_support import KernelHarness, accept, question_card

from nbacp.kernel.notebook_wire import LIMITS
from nbacp.kernel.turn_pages import MAX_PAGES, RECORD_CHARS, TARGET, TurnPages, parse_hello

MODEL = "0123456789abcdef0123456789abcdef"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@dataclass
class PageComm:
    comm_id: str
    sent: list[dict[str, Any]] = field(default_factory=list)
    closed: bool = False
    on_message: Any = None
    on_closed: Any = None

    def send(self, data: dict[str, Any]) -> None:
        self.sent.append(data)

    def close(self) -> None:
        self.closed = True

    def on_msg(self, callback: Any) -> None:
        self.on_message = callback

    def on_close(self, callback: Any) -> None:
        self.on_closed = callback


def hello(*cells: Any) -> dict[str, Any]:
    return {"v": 1, "type": "hello", "cells": list(cells)}


@pytest.mark.kernel
def test_a_page_that_arrives_while_a_cell_awaits_gets_the_turn_and_its_end(kernel: KernelHarness) -> None:
    """The comm is opened while the prompt cell awaits the person (the kernel's shell is held):
    the page is told the turn's cell and model, answers the card, and gets the record."""
    kernel.run(
        SETUP + "agent = SchemaAgent(message, schema)\nconn = await nbacp.connect(agent)\n"
        "session = await conn.new_session('.')",
        timeout=60,
    )
    cell = kernel.execute("result = await session.prompt('go')", cell_id="prompt-cell")
    card = question_card(kernel)
    elsewhere = kernel.open_comm(TARGET, hello("other-cell"))
    page = kernel.open_comm(TARGET, hello("other-cell", "prompt-cell"))
    shown = kernel.wait_for(lambda: kernel.comm_data(page), 30, "show_turn")
    view = next(
        m["content"]["data"][WIDGET_VIEW]["model_id"]
        for m in kernel.messages(cell, "display_data")
        if WIDGET_VIEW in m["content"]["data"] and "nbacp turn" in m["content"]["data"]["text/plain"]
    )
    assert shown == [
        {"v": 1, "type": "show_turn", "prompt_cell_id": "prompt-cell", "model_id": view, "label": "<nbacp turn: 'go'>"}
    ]
    accept(kernel, card["comm_id"], {"question_0": ["CSV"], "question_0_custom": "Avro"})
    kernel.wait_idle(cell, timeout=30)
    assert kernel.error(cell) is None, kernel.error(cell)
    ended = kernel.wait_for(lambda: kernel.comm_data(page)[1:], 30, "end_turn")
    assert [m["type"] for m in ended] == ["end_turn"]
    assert ended[0]["model_id"] == view and "Avro" in ended[0]["bundle"]["text/html"]
    assert "Stop reason: end_turn" in ended[0]["bundle"]["text/plain"]
    assert [m["type"] for m in kernel.comm_data(elsewhere)] == ["end_turn"]  # told of the end, never shown it


def test_a_page_holding_the_prompt_cell_is_told_where_the_turn_is() -> None:
    pages = TurnPages()
    pages.started(MODEL, "<nbacp turn: 'quick'>", cell_id="p")
    pages.started("f" * 32, "<nbacp turn: 'other'>", cell_id="q")
    holder, other = PageComm("a"), PageComm("b")
    pages.opened(holder, hello("x", "p"))
    pages.opened(other, hello("x", "y"))
    assert holder.sent == [
        {"v": 1, "type": "show_turn", "prompt_cell_id": "p", "model_id": MODEL, "label": "<nbacp turn: 'quick'>"}
    ]
    assert other.sent == []
    other.on_message({"content": {"data": hello("q")}})  # a later hello on the same comm (cells added)
    assert [m["model_id"] for m in other.sent] == ["f" * 32]


def test_the_end_goes_to_every_page_that_said_hello_once() -> None:
    pages = TurnPages()
    pages.started(MODEL, "turn", cell_id="p")
    first, second, gone = PageComm("a"), PageComm("b"), PageComm("c")
    for comm in (first, second, gone):
        pages.opened(comm, hello("p"))
    gone.on_closed({})
    pages.ended(MODEL, lambda: ("<div>record</div>", "record"))
    pages.ended(MODEL, lambda: ("<div>record</div>", "record"))  # ended twice: told once
    for comm in (first, second):
        assert comm.sent[-1] == {
            "v": 1,
            "type": "end_turn",
            "prompt_cell_id": "p",
            "model_id": MODEL,
            "bundle": {"text/html": "<div>record</div>", "text/plain": "record"},
        }
        assert [m["type"] for m in comm.sent] == ["show_turn", "end_turn"]
    assert [m["type"] for m in gone.sent] == ["show_turn"]
    late = PageComm("d")
    pages.opened(late, hello("p"))
    assert late.sent == []  # an ended turn is not shown again


def test_with_no_page_listening_the_record_is_not_built() -> None:
    pages = TurnPages()
    pages.started(MODEL, "turn", cell_id="p")
    built: list[int] = []
    pages.ended(MODEL, lambda: (built.append(1), ("<div>record</div>", "record"))[1])
    assert built == []
    page = PageComm("a")
    pages.opened(page, hello("p"))
    assert [m["type"] for m in page.sent] == []  # the ended turn is not shown to a later page either


def test_a_record_too_large_is_not_sent() -> None:
    pages = TurnPages()
    pages.started(MODEL, "turn", cell_id="p")
    page = PageComm("a")
    pages.opened(page, hello("p"))
    pages.ended(MODEL, lambda: ("x" * RECORD_CHARS, "y"))
    assert page.sent[-1]["bundle"] is None


def test_malformed_hellos_are_ignored() -> None:
    assert parse_hello(hello("p")) == frozenset({"p"})
    for bad in (
        None,
        [],
        "hello",
        {"v": 2, "type": "hello", "cells": []},
        {"v": 1, "type": "edit", "cells": []},
        {"v": 1, "type": "hello"},
        hello(1),
        hello(""),
        hello("x" * (LIMITS.id + 1)),
        hello(*[f"c{i}" for i in range(LIMITS.cells + 1)]),
    ):
        assert isinstance(parse_hello(bad), str), bad
    pages = TurnPages()
    pages.started(MODEL, "turn", cell_id="p")
    page = PageComm("a")
    pages.opened(page, {"v": 1, "type": "hello", "cells": ["p", 3]})
    page.on_message({"content": "not a dict"})
    page.on_message({})
    assert page.sent == []


def test_pages_kept_are_bounded() -> None:
    pages = TurnPages()
    comms = [PageComm(str(i)) for i in range(MAX_PAGES + 2)]
    for comm in comms:
        pages.opened(comm, hello())
    assert [c.closed for c in comms[:3]] == [True, True, False]


def test_no_cell_id_no_running_turn() -> None:
    pages = TurnPages()
    assert pages.started(MODEL, "turn") is None  # outside an execute request (plain Python here)
    assert pages.running == ()
