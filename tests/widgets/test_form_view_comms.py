"""ElicitationForm driven by simulated front-end comm messages (support/comm_support.py).

Every change arrives the way the JS widget manager delivers it: ``update`` messages with the
synced state (``value``, ``index``, a card's whole ``answer``) and ``custom`` messages for
button clicks and the card's Enter / Escape events.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import ipywidgets as widgets
import pytest
from acp.schema import AcceptElicitationResponse, CancelElicitationResponse
from support.comm_support import RecordingComms
from support.form_view_support import card, every_field, labels, multi_other, single_other, walk

from nbacp.widgets.choice_card import ChoiceCard
from nbacp.widgets.form_card import ElicitationForm

PAYLOAD = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


def sent_content(view: ElicitationForm) -> dict[str, Any]:
    assert isinstance(view.response, AcceptElicitationResponse) and view.response.content is not None
    return view.response.content


def test_every_field_typed_through_the_front_end(comms: RecordingComms) -> None:
    view = ElicitationForm("m", every_field())
    w = view.widget_for
    comms.update(w("name"), value="Ann")
    comms.update(w("notes"), value="two\nlines")
    comms.update(w("email"), value="ann@example.com")
    comms.update(w("code"), value="XYZ")
    comms.update(w("day"), value={"year": 2024, "month": 1, "date": 29})  # JS months are 0-based
    comms.update(w("when"), value={"year": 2024, "month": 6, "date": 1, "hours": 12, "minutes": 30,
                                   "seconds": 0, "milliseconds": 0})
    comms.update(w("count"), value=4)
    comms.update(w("age"), value="33")
    comms.update(w("verbose"), value=False)
    comms.update(w("agree"), index=2)  # selection widgets sync the index: "No"
    comms.update(w("mode"), answer={"picked": ["fast"], "custom": ""})
    comms.click(view.accept_button)
    sent = sent_content(view)
    assert {k: sent[k] for k in ("name", "notes", "email", "code", "day", "count", "age", "verbose", "agree",
                                 "mode")} == {
        "name": "Ann", "notes": "two\nlines", "email": "ann@example.com", "code": "XYZ", "day": "2024-02-29",
        "count": 4, "age": 33, "verbose": False, "agree": False, "mode": "fast",
    }
    assert datetime.fromisoformat(sent["when"]) == datetime.fromisoformat("2024-07-01T12:30:00+00:00")
    assert "site" not in sent and "blob" not in sent


@pytest.mark.parametrize("pick_first", [True, False])
def test_multi_with_other_from_the_front_end(comms: RecordingComms, pick_first: bool) -> None:
    view = ElicitationForm("m", multi_other())
    question = card(view, "question_0")
    steps = [{"picked": ["beta"], "custom": ""}, {"picked": ["beta"], "custom": "teal"}]
    if not pick_first:
        steps = [{"picked": [], "custom": "teal"}, {"picked": ["beta"], "custom": "teal"}]
    for answer in steps:
        comms.update(question, answer=answer)
    comms.click(view.accept_button)
    assert sent_content(view) == {"question_0": ["beta"], "question_0_custom": "teal"}


@pytest.mark.parametrize("pick_first", [True, False])
def test_single_with_other_from_the_front_end(comms: RecordingComms, pick_first: bool) -> None:
    view = ElicitationForm("m", single_other())
    question = card(view, "size")
    steps = [{"picked": ["l"], "custom": ""}, {"picked": ["l"], "custom": "huge"}]
    if not pick_first:
        steps = [{"picked": [], "custom": "huge"}, {"picked": ["l"], "custom": "huge"}]
    for answer in steps:
        comms.update(question, answer=answer)
    comms.custom(question, {"event": "submit"})  # Enter in the card
    assert sent_content(view) == {"size_other": "huge"}


def test_errors_are_pushed_to_the_front_end_and_nothing_resolves(comms: RecordingComms) -> None:
    view = ElicitationForm("m", multi_other(required=True) | {
        "properties": multi_other()["properties"] | {"mail": {"type": "string", "format": "email"}}})
    question = card(view, "question_0")
    comms.update(view.widget_for("mail"), value="nope")
    comms.click(view.accept_button)
    assert not view.done
    assert {"errors": ["An answer is required: pick an option or type your own."]} in comms.state_updates(question)
    assert "Must be an email address." in labels(view)
    comms.update(question, answer={"picked": ["alpha"], "custom": ""})
    comms.update(view.widget_for("mail"), value="a@b.example")
    assert {"errors": []} in comms.state_updates(question) and view.errors == {}
    comms.click(view.accept_button)
    assert sent_content(view) == {"question_0": ["alpha"], "mail": "a@b.example"}


def test_double_click_resolves_once_and_the_front_end_is_frozen(comms: RecordingComms) -> None:
    view = ElicitationForm("m", single_other())
    question = card(view, "size")
    comms.update(question, answer={"picked": ["s"], "custom": ""})
    buttons = (view.accept_button, view.decline_button, view.cancel_button)
    ids = [w.model_id for w in (question, *buttons)]
    comms.click(view.accept_button)
    first = view.response
    # every control's comm is closed: the kernel drops whatever a stale front end still sends
    for widget, model_id in zip((question, *buttons), ids, strict=True):
        assert widget.comm is None
        assert [s.msg_type for s in comms.sent if s.comm_id == model_id][-1] == "comm_close"
    assert view.accept() is False and view.cancel() is False
    assert view.response is first and sent_content(view) == {"size": "s"}
    opened = [s.data["state"] for s in comms.sent_to(view.summary) if s.msg_type == "comm_open"]
    assert opened and opened[0]["value"] == "Accepted: Size = Small"
    assert {"children": [f"IPY_MODEL_{view.summary.model_id}"]} in comms.state_updates(view)


def test_escape_in_a_card_cancels(comms: RecordingComms) -> None:
    view = ElicitationForm("m", multi_other())
    comms.custom(card(view, "question_0"), {"event": "cancel"})
    assert isinstance(view.response, CancelElicitationResponse)


async def test_await_resolved_by_a_front_end_click(comms: RecordingComms) -> None:
    view = ElicitationForm("m", multi_other())
    waiter = asyncio.ensure_future(_wait(view))
    await asyncio.sleep(0)
    assert not waiter.done()
    comms.click(view.decline_button)
    assert (await waiter).action == "decline"
    assert (await view).action == "decline"


async def _wait(view: ElicitationForm) -> Any:
    return await view


# -- agent text is never HTML -------------------------------------------------------------------
def hostile_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "title": PAYLOAD,
        "description": PAYLOAD + " form",
        "properties": {
            "question_0": {"type": "array", "title": PAYLOAD, "description": PAYLOAD,
                           "items": {"anyOf": [{"const": PAYLOAD, "title": PAYLOAD, "description": PAYLOAD}]}},
            "question_0_custom": {"type": "string", "title": PAYLOAD, "description": PAYLOAD},
            "text": {"type": "string", "title": PAYLOAD, "description": PAYLOAD, "pattern": PAYLOAD},
            "flag": {"type": "boolean", "title": PAYLOAD, "default": False},
            PAYLOAD: {"type": PAYLOAD},
        },
        "required": ["text"],
    }


def test_agent_text_never_reaches_an_html_widget(comms: RecordingComms) -> None:
    view = ElicitationForm(PAYLOAD, hostile_schema(), agent=PAYLOAD)
    view.fill("text", "x")
    view.accept()  # fails on the (hostile) pattern: its message names the pattern
    assert any(PAYLOAD in m for m in view.errors["text"])
    view.pick("question_0", PAYLOAD)
    view.fill("question_0_custom", PAYLOAD)
    shown_widgets = list(walk(view))
    view.decline()
    # what the front end received: every HTML-rendering model's value, every description flag
    states = [s.data.get("state", {}) for s in comms.sent if s.msg_type == "comm_open"]
    states += [u for s in comms.sent if s.msg_type == "comm_msg" and s.data.get("method") == "update"
               for u in [s.data["state"]]]
    assert len(shown_widgets) > 20
    assert not [w for w in shown_widgets if isinstance(w, widgets.HTML | widgets.HTMLMath)]
    for state in states:
        assert state.get("description_allow_html", False) is False
        if state.get("_view_name") in ("HTMLView", "HTMLMathView"):
            assert "onerror" not in str(state.get("value"))
    shown = [w.value for w in shown_widgets if isinstance(w, widgets.Label)]
    assert f"{PAYLOAD} asks" in shown and PAYLOAD in shown  # shown verbatim, as text
    assert f"{PAYLOAD}: unsupported field type {PAYLOAD}" in shown
    every_label = [w for w in [*shown_widgets, *walk(view)] if isinstance(w, widgets.Label)]
    assert all("mathjax_ignore" in w._dom_classes for w in every_label)
    choice = next(w for w in shown_widgets if isinstance(w, ChoiceCard))
    assert choice.spec["options"][0]["label"] == PAYLOAD  # the card renders it with textContent
