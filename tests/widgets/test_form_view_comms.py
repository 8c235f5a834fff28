"""FormCard driven by simulated front-end comm messages (support/comm_support.py).

Every change arrives as the card's page sends it (docs/cards.md): ``update`` messages with the
whole ``draft``, and custom messages for actions, ``{"event": "accept", "seq", "draft"}``
carrying the page's draft at the click. On a slow link the page's draft updates are held by
ipywidgets while the action is not, so updates can arrive late, or never: the answer must not
depend on them.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp.schema import AcceptElicitationResponse, CancelElicitationResponse
from support.comm_support import RecordingComms
from support.form_view_support import every_field, multi_other, single_other

from nbacp.widgets.form_card import FormCard

PAYLOAD = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


def sent_content(view: FormCard) -> dict[str, Any]:
    assert isinstance(view.response, AcceptElicitationResponse) and view.response.content is not None
    return view.response.content


def test_every_field_typed_through_the_front_end(comms: RecordingComms) -> None:
    view = FormCard("m", every_field())
    draft = {
        **view.draft,
        "name": "Ann",
        "notes": "two\nlines",
        "email": "ann@example.com",
        "code": "XYZ",
        "day": "2024-02-29",
        "when": "2024-07-01T12:30:00+00:00",
        "count": "4",
        "age": "33",
        "verbose": False,
        "agree": False,
        "mode": ["fast"],
    }
    comms.update(view, draft=draft)
    comms.custom(view, {"event": "accept", "seq": 1, "draft": draft})
    sent = sent_content(view)
    assert {
        k: sent[k]
        for k in ("name", "notes", "email", "code", "day", "when", "count", "age", "verbose", "agree", "mode")
    } == {
        "name": "Ann",
        "notes": "two\nlines",
        "email": "ann@example.com",
        "code": "XYZ",
        "day": "2024-02-29",
        "when": "2024-07-01T12:30:00+00:00",
        "count": 4,
        "age": 33,
        "verbose": False,
        "agree": False,
        "mode": "fast",
    }
    assert "site" not in sent and "blob" not in sent


def test_the_answer_is_the_accept_messages_draft_when_updates_were_held(comms: RecordingComms) -> None:
    """The slow-link case: only the first edit reached the kernel, the click carries the rest.
    (With the answer read from the synced state, this sent ["beta"] alone.)"""
    view = FormCard("m", multi_other())
    comms.update(view, draft={"question_0": ["beta"], "question_0_custom": ""})  # the one update sent
    shown = {"question_0": ["alpha", "beta"], "question_0_custom": "teal"}  # still held by the page
    comms.custom(view, {"event": "accept", "seq": 1, "draft": shown})
    assert sent_content(view) == {"question_0": ["alpha", "beta"], "question_0_custom": "teal"}
    comms.update(view, draft=shown)  # the held update, one round trip later: ignored
    assert sent_content(view) == {"question_0": ["alpha", "beta"], "question_0_custom": "teal"}
    assert view.phase == "answered" and view.draft == {}


def test_the_kernel_never_writes_the_draft_in_reply_to_an_action(comms: RecordingComms) -> None:
    """A draft write racing the page's own held update could put an older value under the cursor."""
    view = FormCard("m", multi_other(required=True))
    before = len(comms.state_updates(view))
    comms.custom(view, {"event": "accept", "seq": 1, "draft": {"question_0": [], "question_0_custom": ""}})
    replies = comms.state_updates(view)[before:]
    assert replies == [
        {"errors": {"question_0": ["An answer is required: pick an option or type your own."]}, "handled": 1}
    ]  # one message: errors and handled together, no draft


@pytest.mark.parametrize("pick_first", [True, False])
def test_single_with_other_from_the_front_end(comms: RecordingComms, pick_first: bool) -> None:
    view = FormCard("m", single_other())
    steps = [{"size": ["l"], "size_other": ""}, {"size": ["l"], "size_other": "huge"}]
    if not pick_first:
        steps = [{"size": [], "size_other": "huge"}, {"size": ["l"], "size_other": "huge"}]
    for draft in steps:
        comms.update(view, draft=draft)
    comms.custom(view, {"event": "accept", "seq": 1, "draft": steps[-1]})  # Enter in the card
    assert sent_content(view) == {"size_other": "huge"}


def test_a_refused_accept_sets_errors_and_the_next_one_answers(comms: RecordingComms) -> None:
    schema = multi_other(required=True)
    schema["properties"]["mail"] = {"type": "string", "format": "email"}
    view = FormCard("m", schema)
    bad = {"question_0": [], "question_0_custom": "", "mail": "nope"}
    comms.custom(view, {"event": "accept", "seq": 1, "draft": bad})
    assert not view.done and view.handled == 1
    assert view.errors == {
        "question_0": ["An answer is required: pick an option or type your own."],
        "mail": ["Must be an email address."],
    }
    comms.update(view, draft={**bad, "question_0": ["alpha"]})  # live: fixing a field clears its message
    assert view.errors == {"mail": ["Must be an email address."]}
    good = {"question_0": ["alpha"], "question_0_custom": "", "mail": "a@b.example"}
    comms.custom(view, {"event": "accept", "seq": 2, "draft": good})
    assert sent_content(view) == {"question_0": ["alpha"], "mail": "a@b.example"}


def test_double_click_and_late_messages_resolve_once(comms: RecordingComms) -> None:
    view = FormCard("m", single_other())
    draft = {"size": ["s"], "size_other": ""}
    comms.custom(view, {"event": "accept", "seq": 1, "draft": draft})
    first = view.response
    comms.custom(view, {"event": "accept", "seq": 2, "draft": {"size": ["l"], "size_other": ""}})
    comms.custom(view, {"event": "cancel", "seq": 3})
    comms.update(view, draft={"size": ["l"], "size_other": "late"})
    assert view.response is first and sent_content(view) == {"size": "s"}
    assert view.summary == "Accepted: Size = Small" and view.phase == "answered"
    assert view.accept() is False and view.cancel() is False


def test_two_views_the_first_accept_wins_and_a_stale_view_changes_nothing(comms: RecordingComms) -> None:
    """Two pages show one card (a second tab, a reloaded page): one model, one answer (docs/cards.md)."""
    view = FormCard("m", multi_other())
    first = {"question_0": ["alpha"], "question_0_custom": "mine"}
    comms.custom(view, {"event": "accept", "seq": 1, "draft": first})  # the first page
    state = (view.phase, view.summary, view.handled, view.draft, view.errors)
    # the second page had not seen the answer yet: its Accept, Decline and a held edit
    comms.custom(view, {"event": "accept", "seq": 1, "draft": {"question_0": ["beta"], "question_0_custom": ""}})
    comms.custom(view, {"event": "decline", "seq": 2})
    comms.update(view, draft={"question_0": ["beta"], "question_0_custom": "theirs"})
    assert sent_content(view) == {"question_0": ["alpha"], "question_0_custom": "mine"}
    assert (view.phase, view.summary, view.handled, view.draft, view.errors) == state  # what both pages show
    assert view.phase == "answered" and view.draft == {}


@pytest.mark.parametrize(
    "content",
    [
        None,
        "accept",
        [],
        {"event": 3},
        {"event": "accept", "draft": "x"},
        {"event": "accept", "draft": {"size": {"bad": 1}}},
        {"event": "nope"},
    ],
)
def test_malformed_messages_never_answer_nor_raise(comms: RecordingComms, content: Any) -> None:
    view = FormCard("m", single_other() | {"required": ["size"]})
    comms.custom(view, content)
    assert not view.done


def test_escape_in_the_card_cancels(comms: RecordingComms) -> None:
    view = FormCard("m", multi_other())
    comms.custom(view, {"event": "cancel", "seq": 1})
    assert isinstance(view.response, CancelElicitationResponse)


async def test_await_resolved_by_a_front_end_click(comms: RecordingComms) -> None:
    view = FormCard("m", multi_other())
    waiter = asyncio.ensure_future(_wait(view))
    await asyncio.sleep(0)
    assert not waiter.done()
    comms.custom(view, {"event": "decline", "seq": 1})
    assert (await waiter).action == "decline"
    assert (await view).action == "decline"


async def _wait(view: FormCard) -> Any:
    return await view


def test_policy_pick_and_fill_reach_the_page(comms: RecordingComms) -> None:
    view = FormCard("m", multi_other())
    view.pick("question_0", "Gamma")
    view.fill("question_0_custom", "teal")
    assert comms.state_updates(view)[-1] == {"draft": {"question_0": ["gamma"], "question_0_custom": "teal"}}


# -- agent text is never HTML -------------------------------------------------------------------
def hostile_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "title": PAYLOAD,
        "description": PAYLOAD + " form",
        "properties": {
            "question_0": {
                "type": "array",
                "title": PAYLOAD,
                "description": PAYLOAD,
                "items": {"anyOf": [{"const": PAYLOAD, "title": PAYLOAD, "description": PAYLOAD}]},
            },
            "question_0_custom": {"type": "string", "title": PAYLOAD, "description": PAYLOAD},
            "text": {"type": "string", "title": PAYLOAD, "description": PAYLOAD, "pattern": PAYLOAD},
            "flag": {"type": "boolean", "title": PAYLOAD, "default": False},
            PAYLOAD: {"type": PAYLOAD},
        },
        "required": ["text"],
    }


def test_agent_text_goes_to_the_page_as_plain_text_in_the_spec(comms: RecordingComms) -> None:
    view = FormCard(PAYLOAD, hostile_schema(), agent=PAYLOAD)
    view.fill("text", "x")
    view.accept()  # fails on the (hostile) pattern: its message names the pattern
    assert any(PAYLOAD in m for m in view.errors["text"])
    opened = [s.data["state"] for s in comms.sent_to(view) if s.msg_type == "comm_open"]
    spec = opened[0]["spec"]
    assert spec["header"] == f"{PAYLOAD} asks" and spec["message"] == PAYLOAD  # shown verbatim, as text
    choice = next(f for f in spec["fields"] if f["kind"] == "choice")
    assert choice["options"][0]["label"] == PAYLOAD  # the page renders it with textContent
    assert any(PAYLOAD in f.get("note", "") for f in spec["fields"])
    # only spec/draft/errors/summary state: no model the front end would render as HTML
    assert not [
        s
        for s in comms.sent
        if s.msg_type == "comm_open" and s.data["state"].get("_model_name") in ("HTMLModel", "HTMLMathModel")
    ]
