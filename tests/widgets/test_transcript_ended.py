"""An ended turn's live view shows its record in its own model (docs/reload.md): a page that
re-read the model (reloaded, reopened, a second tab) sees the record take the live view's place,
and nothing rendered afterwards brings the blocks back."""

from __future__ import annotations

import ipywidgets as widgets
from acp import schema
from support.comm_support import walk

from nbacp.client.sessions.controls import SessionControls
from nbacp.widgets import shared
from nbacp.widgets.transcript import Transcript

CHUNK = schema.AgentMessageChunk(
    session_update="agent_message_chunk", content=schema.TextContentBlock(type="text", text="hi $x$")
)


def ended(prompt: str = "p") -> tuple[Transcript, list[widgets.Widget]]:
    view = Transcript(prompt=prompt)
    view.add(CHUNK)
    view.finish("end_turn")
    blocks = [w for w in walk(view) if w is not view and not shared.is_shared(w)]
    view.show_record(view.record_html())
    return view, blocks


def test_the_model_shows_the_record_and_closes_the_blocks() -> None:
    view, blocks = ended()
    style, record = view.children
    assert shared.is_shared(style)  # the stylesheet that wraps long words, shared by every transcript
    assert isinstance(record, widgets.HTML) and record.value == view.record_html()
    assert "nbacp-record" in record.value and "Stop reason: end_turn" in record.value
    assert "tex2jax_ignore" in record._dom_classes  # never typeset (docs/security.md)
    assert "nbacp-transcript" not in view._dom_classes and "nbacp-ended" in view._dom_classes
    assert blocks and all(w.comm is None for w in blocks)  # the live blocks are closed
    assert view.comm is not None and record.comm is not None  # what pages re-read stays


def test_nothing_renders_over_the_record() -> None:
    view, _ = ended()
    shown = view.children
    view.add(CHUNK)  # a late update (the log goes on): no frame brings the pages back
    view.note_line("late", "late line")
    view.flush()
    assert view.children == shown


class Owner(SessionControls):
    def __init__(self) -> None:
        self._ended = []


def test_ended_views_close_when_the_session_is_settled() -> None:
    owner = Owner()
    first, _ = ended()
    owner.keep_ended(first)
    assert first.comm is not None
    owner.settle_toolbar()
    assert first.comm is None and first.children[1].comm is None
    late, _ = ended()  # a turn that ends after the session was settled: closed at once
    owner.keep_ended(late)
    assert late.comm is None
