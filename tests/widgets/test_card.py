"""The card base (``card.py`` on ``card_model.py``): one model per card, and what an answered card costs."""

from __future__ import annotations

import asyncio
import sys
import threading
import types

import pytest
from acp.schema import PermissionOption, ToolCallUpdate
from anywidget.experimental import command
from support.comm_support import RecordingComms, Sent, answered_lines, kids_sent, turn_ops

from nbacp.widgets import card_code, card_model, shared
from nbacp.widgets.auth_card import AuthCard
from nbacp.widgets.form_card import FormCard
from nbacp.widgets.permission_card import PermissionCard
from nbacp.widgets.transcript import Transcript
from nbacp.widgets.url_card import UrlConsentCard

SCHEMA = {"type": "object", "properties": {"x": {"type": "string", "title": "X"}}}


def _cards() -> list[object]:
    option = PermissionOption(option_id="ok", name="Allow", kind="allow_once")
    return [
        FormCard("Name it", SCHEMA),
        PermissionCard(ToolCallUpdate(tool_call_id="t1", title="ls"), [option]),
        UrlConsentCard("Sign in", "https://example.com/login", "e1"),
        AuthCard([]),
    ]


def test_a_card_is_an_instance_of_its_own_class_not_of_a_class_made_for_it() -> None:
    """anywidget adds ``_esm``/``_css``/``_anywidget_id`` with ``add_traits``, which would make a
    class per card (about 8 KB kept for as long as the card lives); a card declares them once."""
    for card, cls in zip(_cards(), (FormCard, PermissionCard, UrlConsentCard, AuthCard), strict=True):
        assert type(card) is cls
        assert card._anywidget_id == f"{cls.__module__}.{cls.__name__}"  # type: ignore[attr-defined]
        assert card._esm == card_code.card_module()  # type: ignore[attr-defined]


def test_a_card_skips_anywidgets_init_only_where_it_would_add_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """``AnyWidget.__init__`` makes three trait objects per instance for traits a card declares on
    its class; a card made through it (Colab, or a class with anywidget commands) has the same state."""
    quick = [FormCard("Name it", SCHEMA), PermissionCard(ToolCallUpdate(tool_call_id="t1", title="ls"), [])]
    monkeypatch.setattr(card_model, "_anywidget_init_needed", lambda cls: True)
    full = [FormCard("Name it", SCHEMA), PermissionCard(ToolCallUpdate(tool_call_id="t1", title="ls"), [])]
    for made, through in zip(quick, full, strict=True):
        assert type(made) is type(through)
        assert made.get_state() == through.get_state()  # type: ignore[attr-defined]
        assert made.get_state()["code"] == f"anywidget:{card_code.card_code().model_id}"  # type: ignore[attr-defined]
        assert made.get_state()["layout"] == f"IPY_MODEL_{shared.layout().model_id}"  # type: ignore[attr-defined]
    monkeypatch.undo()

    class Commanded(FormCard):
        @command
        def ping(self, msg: object, buffers: list[bytes]) -> tuple[str, list[bytes]]:
            return "pong", []

    assert card_model._anywidget_init_needed(Commanded) and not card_model._anywidget_init_needed(FormCard)
    monkeypatch.setitem(sys.modules, "google.colab.output", types.ModuleType("google.colab.output"))
    assert card_model._anywidget_init_needed(FormCard)
    for card in quick + full:
        card.close()  # type: ignore[attr-defined]


def _updates(comms: RecordingComms, widget: object, comm_id: str | None = None) -> list[dict[str, object]]:
    """The state updates Python sent ``widget``'s page model (``comm_id``: once it is closed)."""
    comm_id = comm_id or widget.comm.comm_id  # type: ignore[attr-defined]
    return [
        m.data["state"]
        for m in comms.sent
        if m.comm_id == comm_id and m.msg_type == "comm_msg" and m.data.get("method") == "update"
    ]


def _children_updates(comms: RecordingComms) -> int:
    return len(kids_sent(comms.sent))


FORM_LINE = ("nbacp-card", "nbacp-kind-form", "nbacp-form", "nbacp-answered")
"""An answered form card's line: the classes of the card's element as its page drew it (js/src/base.js)."""


async def test_an_answered_card_in_a_transcript_becomes_its_line_and_its_model_closes(comms: RecordingComms) -> None:
    view = Transcript(prompt="go")
    card = FormCard("Name it", SCHEMA)
    view.add_card(card)
    assert card in view.shown
    card_id = card.comm.comm_id  # type: ignore[union-attr]
    card.fill("x", "pipeline")
    sent = len(_updates(comms, card))
    # the answer arrives on another thread (a kernel subshell): the line is placed on the loop's
    thread = threading.Thread(target=card.accept)
    thread.start()
    thread.join()
    assert card.settled
    for _ in range(3):
        await asyncio.sleep(0)
    view.flush()
    (answered,) = _updates(comms, card, card_id)[sent:]  # the card's page saw its answer first
    assert answered["phase"] == "answered" and answered["summary"] == "Accepted: X = pipeline"
    # then the turn's patch put the line in its place, and only after it the card's model closed
    order = [(m.msg_type, m.comm_id == card_id, bool(turn_ops(m))) for m in comms.sent]
    patch = max(i for i, (kind, _, ops) in enumerate(order) if ops)
    assert order.index(("comm_close", True, False)) > patch
    ops = turn_ops(comms.sent[patch])
    assert ["x", 0, [card_id]] in ops  # the page forgets the card's element
    assert answered_lines(view) == [(FORM_LINE, "Accepted: X = pipeline")]
    assert card not in view.shown and card.comm is None
    assert (card.summary, card.response) == ("Accepted: X = pipeline", card.response)  # held by the caller only


def test_without_a_running_loop_an_answered_card_becomes_its_line_at_once() -> None:
    view = Transcript(prompt="go")
    card = FormCard("Name it", SCHEMA)
    view.add_card(card)
    card.decline()
    assert card.settled and card.summary == "Declined." and card.comm is None
    assert answered_lines(view) == [(FORM_LINE, "Declined.")]


async def test_a_card_answered_before_it_is_placed_reaches_the_page_only_as_its_line(comms: RecordingComms) -> None:
    view = Transcript(prompt="go")
    card = FormCard("Name it", SCHEMA, opened=False)  # as the client makes it, to offer it to a policy first
    with card.hold_sync():
        card.fill("x", "pipeline")
        assert card.accept()
    pages, framed, flush = _children_updates(comms), asyncio.Event(), view.flush

    def frame() -> None:
        flush()
        framed.set()

    view.flush = frame  # type: ignore[method-assign]  # the frames run the instance's flush
    view.add_card(card)
    assert _children_updates(comms) == pages  # nobody waits for an answered card: it goes with the next frame
    async with asyncio.timeout(5):
        await framed.wait()
    assert _children_updates(comms) == pages + 1 and answered_lines(view) == [(FORM_LINE, "Accepted: X = pipeline")]
    assert card.comm is None and not [m for m in comms.sent if m.msg_type == "comm_open" and _is_card(m)]


def _is_card(sent: Sent) -> bool:
    return str(sent.data.get("state", {}).get("_anywidget_id", "")).startswith("nbacp.widgets.form_card")


def test_a_card_still_waiting_keeps_its_place_until_it_settles(comms: RecordingComms) -> None:
    """A URL card consented to waits for the agent's completion with its own buttons: it stays a
    card (the person can still act on it) until it settles."""
    view = Transcript(prompt="go")
    card = UrlConsentCard("Sign in", "https://example.com/login", "e1")
    view.add_card(card)
    card.consent()
    assert card.phase == "sent" and view.shown[-1] is card and card.comm is not None
    card.complete()
    assert card.settled and card.comm is None and view.shown[-1] is not card
    assert answered_lines(view) == [
        (("nbacp-card", "nbacp-kind-url", "nbacp-url-card", "nbacp-answered"), card.summary)
    ]


def test_a_card_made_unopened_opens_when_first_shown_and_never_once_closed(comms: RecordingComms) -> None:
    card = FormCard("Name it", SCHEMA, opened=False)
    assert card.comm is None
    view = Transcript(prompt="go")
    view.add_card(card)  # an open card is placed at once: the page needs its id, which opens it
    assert card.comm is not None and view.shown[-1] is card
    assert [m.msg_type for m in comms.sent if m.comm_id == card.comm.comm_id] == ["comm_open"]
    closed = FormCard("Name it", SCHEMA, opened=False)
    closed.close()
    with pytest.raises(AttributeError):
        closed.model_id  # noqa: B018
    assert closed.comm is None


def test_a_view_that_arrives_after_the_answer_gets_the_line_not_the_card(comms: RecordingComms) -> None:
    """A reloaded page or a second tab asks for the tree: it names no closed card, only its line."""
    view = Transcript(prompt="go")
    card = FormCard("Name it", SCHEMA)
    view.add_card(card)
    card_id = card.comm.comm_id  # type: ignore[union-attr]
    card.fill("x", "pipeline")
    assert card.accept()
    before = len(comms.sent)
    comms.custom(view, {"type": "sync"})
    (snapshot,) = [m.data["content"] for m in comms.sent[before:] if "snap" in m.data.get("content", {})]
    kids = [kid for op in snapshot["snap"] if op[0] == "n" for kid in op[2].get("k", [])]
    assert card_id not in kids and not [kid for kid in kids if isinstance(kid, str)]
    texts = [op[2].get("v") for op in snapshot["snap"] if op[0] == "n" and op[2].get("t") == "text"]
    assert "Accepted: X = pipeline" in texts
