"""An ended turn's live view shows its record in its own model (docs/reload.md): a page that
re-read the model (reloaded, reopened, a second tab) sees the record take the live view's place,
and nothing rendered afterwards brings the blocks back."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from acp import schema
from ipywidgets.widgets.widget import _instances
from support.comm_support import RecordingComms, answered_lines, walk

from nbacp.client.sessions.controls import ENDED_VIEWS, SessionControls
from nbacp.render.html_tree import html_tree
from nbacp.widgets import FormCard
from nbacp.widgets.card import Card
from nbacp.widgets.transcript import Transcript, nodes

CHUNK = schema.AgentMessageChunk(
    session_update="agent_message_chunk", content=schema.TextContentBlock(type="text", text="hi $x$")
)


def ended(prompt: str = "p", card: Any = None) -> tuple[Transcript, list[Any]]:
    view = Transcript(prompt=prompt)
    view.add(CHUNK)
    if card is not None:
        view.add_card(card)
    view.finish("end_turn")
    blocks = [w for w in walk(view) if w is not view and w is not view.root]
    view.show_record()
    return view, blocks


def test_the_model_shows_the_record_and_closes_the_blocks(comms: RecordingComms) -> None:
    card = FormCard("Name it", {"type": "object", "properties": {"x": {"type": "string"}}})
    view, blocks = ended(card=card)
    assert view.ended  # the model's own state: every view asks for the record
    assert "nbacp-record" in view.record_html() and "Stop reason: end_turn" in view.record_html()
    assert "nbacp-transcript" not in view._dom_classes and "nbacp-ended" in view._dom_classes
    assert card in blocks and card.comm is None  # the turn's cards are closed with the live view
    assert not any(b.attached for b in blocks if isinstance(b, nodes.Node))  # the nodes left the page
    assert view.comm is not None  # what pages re-read stays: one model
    before = len(comms.sent_to(view))
    comms.custom(view, {"type": "sync"})  # a late view asks: it gets the record, built then, not the tree
    reply = comms.sent_to(view)[before:]
    assert [m.data["content"] for m in reply] == [{"type": "record", "tree": html_tree(view.record_html())}]


def test_nothing_renders_over_the_record(comms: RecordingComms) -> None:
    view, _ = ended()
    before = len(comms.sent_to(view))
    view.add(CHUNK)  # a late update (the log goes on): no frame brings the pages back
    view.note_line("late", "late line")
    view.flush()
    assert len(comms.sent_to(view)) == before


class Owner(SessionControls):
    def __init__(self) -> None:
        self._ended = []


def test_ended_views_close_when_the_session_is_settled() -> None:
    owner = Owner()
    first, _ = ended()
    owner.keep_ended(first)
    assert first.comm is not None
    owner.settle_toolbar()
    assert first.comm is None
    late, _ = ended()  # a turn that ends after the session was settled: closed at once
    owner.keep_ended(late)
    assert late.comm is None


def test_a_session_keeps_only_its_last_ended_views() -> None:
    owner = Owner()
    views = [ended(f"turn {i}")[0] for i in range(ENDED_VIEWS + 3)]
    for view in views:
        owner.keep_ended(view)
    assert [v.comm is None for v in views] == [True] * 3 + [False] * ENDED_VIEWS  # the oldest closed
    assert owner._ended == views[3:]
    owner.settle_toolbar()
    assert all(v.comm is None for v in views)


def test_an_ended_view_keeps_its_record_not_its_tree() -> None:
    card = FormCard("Name it", {"type": "object", "properties": {"x": {"type": "string"}}})
    view, blocks = ended(card=card)
    assert blocks and view.shown == () and view.root.children == ()  # the nodes are let go
    # what the client reads of an ended turn stays exact
    assert view.text == "hi $x$" and view.stop_reason == "end_turn"
    assert "hi $x$" in view.record_text() and view.record_tree() == html_tree(view.record_html())
    assert view.get_state()["ended"] is True and "record" not in view.get_state()  # no tree in the model


def test_a_turn_of_a_thousand_questions_holds_no_answered_card(comms: RecordingComms) -> None:
    """Every card answered in a turn leaves only its line (a node) and its answer: no Card object
    stays, and ipywidgets' registry holds no card model, while the turn runs and after it."""
    view = Transcript(prompt="many")  # with the kernel's shared models (the code, one layout)
    registry = len(_instances)
    alive = _cards_alive()  # other tests' cards their modules still hold
    refs = []
    for i in range(1_000):
        card = FormCard(f"Question {i}", {"type": "object", "properties": {"x": {"type": "string"}}})
        view.add_card(card)
        card.fill("x", f"answer {i}")
        assert card.accept()
        view.note_answers(card.recorded_answers("question", f"Question {i}"))
        refs.append(weakref.ref(card))
    del card
    gc.collect()
    assert sum(ref() is not None for ref in refs) == 0
    assert _cards_alive() == alive
    assert len(_instances) == registry  # no card model is left registered
    lines = [line for _, line in answered_lines(view)]
    assert lines == [f"Accepted: x = answer {i}" for i in range(1_000)]  # each card's summary, in place
    assert [str(a) for a in view.answers] == [f"Accepted: answer {i}" for i in range(1_000)]
    view.finish("end_turn")
    view.show_record()
    assert "**Answer:** answer 999" in view.record_markdown()
    assert len(_instances) == registry


def _cards_alive() -> int:
    gc.collect()
    return sum(isinstance(o, Card) for o in gc.get_objects())
