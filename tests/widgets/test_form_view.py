"""FormCard driven through its action API (pick / fill / accept / decline / cancel).

The card is one model (docs/cards.md): these tests read what the page is given (``spec``),
the draft both sides edit (``draft``) and what the kernel answers (``errors``, ``summary``,
``response``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from typing import Any

import pytest
from acp.schema import AcceptElicitationResponse, CancelElicitationResponse, DeclineElicitationResponse
from ipywidgets.widgets.widget import _instances
from support.form_view_support import every_field, field, kinds, multi_other, single_other

import nbacp
from nbacp.form import InvalidSchemaError
from nbacp.widgets.form_card import FormCard


def content(view: FormCard) -> dict[str, Any]:
    assert isinstance(view.response, AcceptElicitationResponse)
    assert view.response.content is not None
    return view.response.content


def fill_required(view: FormCard) -> None:
    view.fill("name", "Ann")
    view.fill("agree", True)


# -- what is shown ------------------------------------------------------------------------
def test_exported_from_the_package() -> None:
    assert FormCard is nbacp.FormCard is nbacp.widgets.FormCard


def test_header_names_the_agent_and_shows_the_message() -> None:
    view = FormCard("Pick your colors", multi_other(), agent="claude")
    assert (view.spec["header"], view.spec["message"]) == ("claude asks", "Pick your colors")
    assert FormCard("Hi", multi_other()).spec["header"] == "The agent asks"


def test_every_field_type_gets_its_native_input_and_no_slider() -> None:
    view = FormCard("m", every_field())
    assert kinds(view) == {
        "name": "text",
        "notes": "textarea",
        "email": "email",
        "site": "url",
        "code": "text",
        "day": "date",
        "when": "datetime",
        "count": "integer",
        "port": "integer",
        "ratio": "number",
        "big": "integer",
        "temp": "number",
        "age": "integer",
        "verbose": "boolean",
        "agree": "tristate",
        "mode": "choice",
        "blob": "unsupported",
    }
    assert (field(view, "count")["min"], field(view, "count")["max"]) == (1, 5)  # a number box with bounds
    assert "object" in field(view, "blob")["note"]


def test_buttons_are_the_same_three_actions_and_accept_carries_the_draft() -> None:
    actions = FormCard("m", multi_other()).spec["actions"]
    assert [(a["event"], a["label"], a["style"]) for a in actions] == [
        ("accept", "Accept", "primary"),
        ("decline", "Decline", "default"),
        ("cancel", "Cancel", "default"),
    ]
    assert actions[0]["draft"] is True and actions[0]["default"] is True
    assert not any(a.get("draft") for a in actions[1:])


def test_defaults_are_shown_and_nothing_else_is_invented() -> None:
    view = FormCard("m", every_field())
    assert view.draft == {
        "name": "",
        "notes": "",
        "email": "",
        "site": "",
        "code": "",
        "day": "2024-05-06",
        "when": "",
        "count": "2",
        "port": "8080",
        "ratio": "0.5",
        "big": "7",
        "temp": "1.5",
        "age": "",
        "verbose": True,
        "agree": None,
        "mode": ["slow"],
    }
    assert view.values == {
        "name": None,
        "notes": None,
        "email": None,
        "site": None,
        "code": None,
        "day": "2024-05-06",
        "when": None,
        "count": 2,
        "port": 8080,
        "ratio": 0.5,
        "big": 7,
        "temp": 1.5,
        "age": None,
        "verbose": True,
        "agree": None,
        "mode": "slow",
    }
    fill_required(view)
    assert view.accept()
    sent = content(view)
    assert "age" not in sent and "when" not in sent and "notes" not in sent  # left empty: not sent
    assert sent["count"] == 2 and sent["mode"] == "slow" and sent["agree"] is True


def test_one_required_marker_and_each_description_once() -> None:
    view = FormCard("m", every_field())
    name, age = field(view, "name"), field(view, "age")
    assert name["required"] is True and name["title"] == "Name"  # the page adds the one red marker
    assert name["description"] == "Your full name" and "placeholder" not in name  # not twice
    assert age["placeholder"] == "a whole number, 0 to 150" and age["description"] is None
    assert field(FormCard("m", multi_other(required=True)), "question_0")["required"] is True


def test_other_box_says_what_it_does_in_one_line() -> None:
    single = FormCard(
        "m",
        single_other()
        | {
            "properties": {
                **single_other()["properties"],
                "size_other": {"type": "string", "title": "Your own answer to: Size"},
            }
        },
    )
    custom = field(single, "size")["custom"]
    assert (custom["title"], custom["description"], custom["mode"]) == ("Other (replaces your choice)", None, "other")
    assert field(FormCard("m", multi_other()), "question_0")["custom"]["title"] == "Other"


def test_optional_boolean_without_default_is_three_way() -> None:
    view = FormCard("m", {"type": "object", "properties": {"b": {"type": "boolean"}}})
    assert view.draft == {"b": None} and view.values == {"b": None}
    view.fill("b", False)
    assert view.values == {"b": False}
    view.fill("b", None)
    assert view.accept() and content(view) == {}


def test_every_field_round_trips_to_the_wire() -> None:
    view = FormCard("m", every_field())
    fill_required(view)
    when = dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    for name, value in {
        "notes": "line 1\nline 2",
        "email": "a@example.com",
        "site": "https://example.com/x",
        "code": "ABC",
        "day": "2025-12-31",
        "when": when,
        "count": 5,
        "port": "443",
        "ratio": 0.25,
        "big": -3,
        "temp": "2.5",
        "age": " 42 ",
        "verbose": False,
    }.items():
        view.fill(name, value)
    view.pick("mode", "fast")
    assert view.accept(), view.errors
    assert content(view) == {
        "name": "Ann",
        "notes": "line 1\nline 2",
        "email": "a@example.com",
        "site": "https://example.com/x",
        "code": "ABC",
        "day": "2025-12-31",
        "when": "2024-01-02T03:04:05+02:00",
        "count": 5,
        "port": 443,
        "ratio": 0.25,
        "big": -3,
        "temp": 2.5,
        "age": 42,
        "verbose": False,
        "agree": True,
        "mode": "fast",
    }
    assert type(content(view)["age"]) is int


# -- composition through the card -----------------------------------------------------------
@pytest.mark.parametrize("pick_first", [True, False])
def test_multi_with_other_sends_picks_and_text_in_either_order(pick_first: bool) -> None:
    view = FormCard("m", multi_other())
    if pick_first:
        view.pick("question_0", "Alpha", "Beta")
        view.fill("question_0_custom", "  teal ")
    else:
        view.fill("question_0_custom", "  teal ")
        view.pick("question_0", "Beta", "Alpha")  # stored in option order, as the page does
    assert view.draft == {"question_0": ["alpha", "beta"], "question_0_custom": "  teal "}
    assert view.accept()
    assert content(view) == {"question_0": ["alpha", "beta"], "question_0_custom": "teal"}
    assert view.summary == "Accepted: Color = Alpha, Beta + “teal”"


@pytest.mark.parametrize("pick_first", [True, False])
def test_single_with_other_text_overrides_the_pick_in_either_order(pick_first: bool) -> None:
    view = FormCard("m", single_other())
    if pick_first:
        view.pick("size", "Large")
        view.fill("size_other", "huge")
    else:
        view.fill("size_other", "huge")
        view.pick("size", "Large")
    assert view.accept()
    assert content(view) == {"size_other": "huge"}


def test_single_clearing_the_text_restores_the_pending_pick() -> None:
    view = FormCard("m", single_other())
    view.pick("size", "Small")
    view.fill("size_other", "huge")
    view.fill("size_other", "   ")
    assert view.accept()
    assert content(view) == {"size": "s"}
    assert view.summary == "Accepted: Size = Small"


def test_untitled_enum_is_picked_by_its_value_and_recommended_suffix_is_optional() -> None:
    schema = {
        "type": "object",
        "properties": {
            "e": {"type": "string", "enum": ["red", "blue"]},
            "t": {
                "type": "string",
                "oneOf": [{"const": "x", "title": "Use X (Recommended)"}, {"const": "y", "title": "Y"}],
            },
        },
    }
    view = FormCard("m", schema)
    view.pick("e", "blue")
    view.pick("t", "Use X")
    assert view.values == {"e": "blue", "t": "x"}
    view.pick("t", "Use X (Recommended)")
    assert view.values["t"] == "x"


# -- errors ---------------------------------------------------------------------------------
def test_accept_with_errors_marks_every_field_and_stays_open() -> None:
    view = FormCard("m", every_field())
    assert view.errors == {}
    view.fill("email", "not-an-email")
    view.fill("code", "abc")
    view.fill("age", "200")
    assert view.accept() is False
    assert not view.done and view.response is None and view.phase == "open"
    assert set(view.errors) == {"name", "agree", "email", "code", "age"}  # each beside its field
    assert "Must be at most 150." in view.errors["age"]
    assert not view.spec["actions"][0]["disabled"]


def test_errors_follow_edits_after_a_failed_accept() -> None:
    view = FormCard("m", multi_other(required=True))
    assert view.accept() is False
    assert view.errors == {"question_0": ["An answer is required: pick an option or type your own."]}
    view.fill("question_0_custom", "teal")
    assert view.errors == {}
    assert view.accept()
    assert content(view) == {"question_0_custom": "teal"}


def test_min_items_message_is_on_the_question() -> None:
    schema = multi_other()
    schema["properties"]["question_0"]["minItems"] = 2
    view = FormCard("m", schema)
    view.pick("question_0", "Gamma")
    assert not view.accept()
    assert view.errors == {"question_0": ["Pick at least 2 options."]}


def test_input_the_browser_could_not_read_is_never_sent_as_empty() -> None:
    view = FormCard("m", every_field() | {"required": []})
    view.draft = {**view.draft, "age": {"bad_input": True}, "day": {"bad_input": True}}  # what the page sends
    assert view.accept() is False
    assert view.errors == {
        "age": ["Not a whole number as typed: check the box."],
        "day": ["Not a complete date: check the box."],
    }


# -- answering exactly once -----------------------------------------------------------------
def test_double_accept_resolves_once() -> None:
    view = FormCard("m", multi_other())
    view.pick("question_0", "Beta")
    assert view.accept() is True
    first = view.response
    with pytest.raises(ValueError, match="already answered"):
        view.pick("question_0", "Alpha")
    assert view.accept() is False and view.decline() is False and view.cancel() is False
    assert view.response is first and content(view) == {"question_0": ["beta"]}
    with pytest.raises(ValueError, match="already answered"):
        view.values  # noqa: B018  # the draft went with the answer; the response stays


def test_decline_after_a_failed_accept_clears_the_messages() -> None:
    view = FormCard("m", single_other() | {"required": ["size"]})
    assert view.accept() is False and view.errors
    assert view.decline() is True
    assert view.errors == {} and view.summary == "Declined."


@pytest.mark.parametrize("answer", ["accept", "decline", "cancel", "cancel_pending"])
def test_an_answered_card_is_one_model_that_keeps_only_its_summary(answer: str) -> None:
    before = set(_instances)
    view = FormCard("m", every_field() | {"required": []})
    assert len(set(_instances) - before) <= 2  # the card (+ the shared code model, once per kernel)
    if answer == "cancel_pending":
        view.cancel_pending("the turn ended")
    else:
        assert getattr(view, answer)() is True
    assert view.settled and view.phase == "answered" and view.summary
    assert (view.spec, view.draft, view.errors) == ({"kind": "form"}, {}, {})  # the page shows the summary only
    assert view.comm is not None and view.form.fields  # still the same model; the form stays readable


def test_a_secret_is_never_in_the_synced_state_nor_in_the_summary() -> None:
    view = FormCard(
        "m",
        {
            "type": "object",
            "properties": {"token": {"type": "string", "writeOnly": True}, "user": {"type": "string"}},
            "required": ["token"],
        },
    )
    assert view.spec["secret"] == ["token"] and "token" not in view.draft
    assert field(view, "token")["kind"] == "secret"
    view.fill("token", "s3cr3t")
    view.fill("user", "ann")
    assert "token" not in view.draft and view.values["token"] == "s3cr3t"
    assert view.accept()
    # card.response keeps the secret redacted (the agent gets it: tests/client/test_client_secrets.py)
    assert content(view) == {"token": "(secret, 6 characters)", "user": "ann"}
    assert "s3cr3t" not in view.summary and view.draft == {}


def test_a_deadline_becomes_a_countdown_for_the_page() -> None:
    assert "deadline_at" not in FormCard("m", multi_other()).spec
    view = FormCard("m", multi_other(), meta={"codex": {"autoResolutionMs": 30_000}})
    now = dt.datetime.now(dt.UTC).timestamp() * 1000
    assert now + 25_000 < view.spec["deadline_at"] <= now + 30_000


async def test_awaiting_before_and_after_the_answer() -> None:
    view = FormCard("m", single_other())
    waiting = [asyncio.ensure_future(_await(view)) for _ in range(2)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiting)
    view.pick("size", "Small")
    view.accept()
    results = await asyncio.gather(*waiting)
    assert all(r is view.response for r in results)
    assert await view is view.response and await view is view.response


async def test_an_answer_from_another_thread_wakes_the_awaiting_cell() -> None:
    """ipykernel 7.4 runs card messages on a subshell thread (docs/kernels.md, 'Subshells')."""
    view = FormCard("m", single_other())
    waiter = asyncio.ensure_future(_await(view))
    await asyncio.sleep(0)
    thread = threading.Thread(target=view.decline)
    thread.start()
    thread.join()
    assert (await asyncio.wait_for(waiter, 5)).action == "decline"


async def _await(view: FormCard) -> Any:
    return await view


async def test_decline_and_cancel_are_distinct_answers() -> None:
    declined, cancelled = FormCard("m", multi_other()), FormCard("m", multi_other())
    declined.decline()
    cancelled.cancel_pending("the turn ended")
    assert (await declined).action == "decline"
    assert (await cancelled).action == "cancel"
    assert cancelled.summary == "Cancelled: the turn ended"
    assert isinstance(cancelled.response, CancelElicitationResponse)


# -- misuse ---------------------------------------------------------------------------------
def test_unknown_label_names_the_offered_labels() -> None:
    view = FormCard("m", multi_other())
    with pytest.raises(ValueError, match=r"'Teal' is not an option of 'question_0'.*'Alpha', 'Beta', 'Gamma'"):
        view.pick("question_0", "Alpha", "Teal")
    assert view.draft["question_0"] == []  # nothing half-applied


@pytest.mark.parametrize(
    ("name", "labels_", "match"),
    [
        ("question_0_custom", ("Alpha",), "Other box"),
        ("name", ("Alpha",), "not a choice"),
        ("nope", ("Alpha",), "not a field"),
    ],
)
def test_pick_refuses_what_is_not_a_choice(name: str, labels_: tuple[str, ...], match: str) -> None:
    schema = multi_other()
    schema["properties"]["name"] = {"type": "string"}
    with pytest.raises(ValueError, match=match):
        FormCard("m", schema).pick(name, *labels_)


def test_single_select_takes_exactly_one_label() -> None:
    view = FormCard("m", single_other())
    with pytest.raises(ValueError, match="exactly one"):
        view.pick("size", "Small", "Large")
    with pytest.raises(ValueError, match="exactly one"):
        view.pick("size")


def test_fill_refuses_wrong_targets_and_types() -> None:
    view = FormCard("m", every_field())
    with pytest.raises(ValueError, match="use pick"):
        view.fill("mode", "fast")
    with pytest.raises(ValueError, match="unsupported type"):
        view.fill("blob", {"a": 1})
    with pytest.raises(ValueError, match="takes a number"):
        view.fill("count", "many")
    with pytest.raises(ValueError, match="takes a number"):
        view.fill("count", True)
    with pytest.raises(ValueError, match="date"):
        view.fill("day", "tomorrow")
    with pytest.raises(ValueError, match="timezone"):
        view.fill("when", dt.datetime(2024, 1, 1))
    with pytest.raises(ValueError, match="True, False or None"):
        view.fill("verbose", "yes")
    view.fill("port", 70000)  # a number box holds it; the form says why it cannot be sent
    fill_required(view)
    assert not view.accept() and view.errors == {"port": ["Must be at most 65535."]}


def test_invalid_schema_raises_from_the_constructor() -> None:
    with pytest.raises(InvalidSchemaError):
        FormCard("m", {"type": "object", "properties": {"c": {"type": "string", "oneOf": [{"title": "x"}]}}})


def test_required_unsupported_field_leaves_only_decline_and_cancel() -> None:
    schema = {"type": "object", "properties": {"file": {"type": "file"}, "n": {"type": "string"}}, "required": ["file"]}
    view = FormCard("m", schema)
    accept, decline, cancel = view.spec["actions"]
    assert accept["disabled"] and not decline.get("disabled") and not cancel.get("disabled")
    assert any("Accept is not possible" in text and "file" in text for text in view.spec["notes"])
    assert view.accept() is False and not view.done
    assert view.decline() and isinstance(view.response, DeclineElicitationResponse)


def test_lone_untitled_question_has_no_heading_and_a_plain_summary() -> None:
    """A form of one untitled choice: the message is the question, the property name is no heading."""
    schema = {
        "type": "object",
        "required": ["choice"],
        "properties": {"choice": {"type": "string", "oneOf": [{"const": "choice_0", "title": "Preview"}]}},
    }
    view = nbacp.FormCard("Choose a target", schema)
    assert field(view, "choice")["title"] is None
    view.pick("choice", "Preview")
    view.accept()
    assert view.summary == "Accepted: Preview"
    titled_choice = {**schema["properties"]["choice"], "title": "Target"}
    titled = nbacp.FormCard("?", {**schema, "properties": {"choice": titled_choice}})
    titled.pick("choice", "Preview")
    titled.accept()
    assert titled.summary == "Accepted: Target = Preview"


# -- after the answer -----------------------------------------------------------------------
def test_an_answered_card_keeps_its_pure_form_readable() -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "blob": {"type": "object", "title": "Blob"}}}
    view = FormCard("m", schema)
    view.fill("name", "Ann")
    assert view.accept()
    assert view.settled
    assert set(view.form.fields) == {"name", "blob"}  # raised "its form was released" before
    assert [f.name for f in view.form.unsupported] == ["blob"]
    with pytest.raises(ValueError, match="already answered"):
        view.fill("name", "Bo")  # the draft is what is released
