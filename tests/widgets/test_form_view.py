"""ElicitationForm driven through its action API (pick / fill / accept / decline / cancel)."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import ipywidgets as widgets
import pytest
from acp.schema import AcceptElicitationResponse, CancelElicitationResponse, DeclineElicitationResponse
from ipywidgets.widgets.widget import _instances
from support.form_view_support import card, every_field, labels, multi_other, single_other, walk

import nbacp
from nbacp.form import InvalidSchemaError
from nbacp.widgets import shared
from nbacp.widgets.choice_card import ChoiceCard
from nbacp.widgets.form_card import ElicitationForm


def content(view: ElicitationForm) -> dict[str, Any]:
    assert isinstance(view.response, AcceptElicitationResponse)
    assert view.response.content is not None
    return view.response.content


def fill_required(view: ElicitationForm) -> None:
    view.fill("name", "Ann")
    view.fill("agree", True)


# -- what is shown ------------------------------------------------------------------------
def test_exported_from_the_package() -> None:
    assert nbacp.ElicitationForm is ElicitationForm


def test_header_names_the_agent_and_shows_the_message() -> None:
    view = ElicitationForm("Pick your colors", multi_other(), agent="claude")
    assert labels(view)[:2] == ["claude asks", "Pick your colors"]
    assert labels(ElicitationForm("Hi", multi_other()))[0] == "The agent asks"


def test_every_field_type_gets_its_control() -> None:
    view = ElicitationForm("m", every_field())
    expected: dict[str, type] = {
        "name": widgets.Text, "notes": widgets.Textarea, "email": widgets.Text, "site": widgets.Text,
        "code": widgets.Text, "day": widgets.DatePicker, "when": widgets.DatetimePicker,
        "count": widgets.IntSlider, "port": widgets.BoundedIntText, "ratio": widgets.BoundedFloatText,
        "big": widgets.IntText, "temp": widgets.FloatText, "age": widgets.Text,
        "verbose": widgets.Checkbox, "agree": widgets.ToggleButtons, "mode": ChoiceCard,
    }
    for name, kind in expected.items():
        found = view.widget_for(name)
        # exact classes (a Text must not be a Textarea); anywidget subclasses each instance
        assert type(found) is kind or (kind is ChoiceCard and isinstance(found, ChoiceCard)), name
    assert "blob: unsupported field type object" in labels(view)
    assert isinstance(view.widget_for("blob"), widgets.Label)  # shown, never editable


def test_defaults_are_shown_and_nothing_else_is_invented() -> None:
    view = ElicitationForm("m", every_field())
    assert view.widget_for("day").value == dt.date(2024, 5, 6)
    assert view.widget_for("count").value == 2
    assert view.widget_for("ratio").value == 0.5
    assert view.widget_for("verbose").value is True
    assert card(view, "mode").answer == {"picked": ["slow"], "custom": ""}
    assert view.values == {
        "name": None, "notes": None, "email": None, "site": None, "code": None, "day": "2024-05-06",
        "when": None, "count": 2, "port": 8080, "ratio": 0.5, "big": 7, "temp": 1.5, "age": None,
        "verbose": True, "agree": None, "mode": "slow",
    }
    fill_required(view)
    assert view.accept()
    sent = content(view)
    assert "age" not in sent and "when" not in sent and "notes" not in sent  # left empty: not sent
    assert sent["count"] == 2 and sent["mode"] == "slow" and sent["agree"] is True


def test_required_marks_descriptions_and_placeholders() -> None:
    view = ElicitationForm("m", every_field())
    shown = labels(view)
    assert "Name *" in shown and "Agree *" in shown and "Age" in shown and "Age *" not in shown
    assert "Your full name" in shown
    assert view.widget_for("name").placeholder == "Your full name"
    assert "(0 to 150)" in view.widget_for("age").placeholder
    assert card(ElicitationForm("m", multi_other(required=True)), "question_0").spec["required"] is True


def test_optional_boolean_without_default_is_three_way() -> None:
    view = ElicitationForm("m", {"type": "object", "properties": {"b": {"type": "boolean"}}})
    toggle = view.widget_for("b")
    assert toggle.value == "unset" and view.values == {"b": None}
    view.fill("b", False)
    assert view.values == {"b": False}
    view.fill("b", None)
    assert view.accept() and content(view) == {}


def test_every_field_round_trips_to_the_wire() -> None:
    view = ElicitationForm("m", every_field())
    fill_required(view)
    when = dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    for name, value in {"notes": "line 1\nline 2", "email": "a@example.com", "site": "https://example.com/x",
                        "code": "ABC", "day": "2025-12-31", "when": when, "count": 5, "port": "443",
                        "ratio": 0.25, "big": -3, "temp": "2.5", "age": " 42 ", "verbose": False}.items():
        view.fill(name, value)
    view.pick("mode", "fast")
    assert view.accept(), view.errors
    assert content(view) == {
        "name": "Ann", "notes": "line 1\nline 2", "email": "a@example.com", "site": "https://example.com/x",
        "code": "ABC", "day": "2025-12-31", "when": "2024-01-02T03:04:05+02:00", "count": 5, "port": 443,
        "ratio": 0.25, "big": -3, "temp": 2.5, "age": 42, "verbose": False, "agree": True, "mode": "fast",
    }
    assert type(content(view)["age"]) is int


# -- composition through the widget --------------------------------------------------------
@pytest.mark.parametrize("pick_first", [True, False])
def test_multi_with_other_sends_picks_and_text_in_either_order(pick_first: bool) -> None:
    view = ElicitationForm("m", multi_other())
    if pick_first:
        view.pick("question_0", "Alpha", "Beta")
        view.fill("question_0_custom", "  teal ")
    else:
        view.fill("question_0_custom", "  teal ")
        view.pick("question_0", "Alpha", "Beta")
    assert card(view, "question_0").answer == {"picked": ["alpha", "beta"], "custom": "  teal "}
    assert view.accept()
    assert content(view) == {"question_0": ["alpha", "beta"], "question_0_custom": "teal"}
    assert view.summary.value == "Accepted: Color = Alpha, Beta + “teal”"


@pytest.mark.parametrize("pick_first", [True, False])
def test_single_with_other_text_overrides_the_pick_in_either_order(pick_first: bool) -> None:
    view = ElicitationForm("m", single_other())
    if pick_first:
        view.pick("size", "Large")
        view.fill("size_other", "huge")
    else:
        view.fill("size_other", "huge")
        view.pick("size", "Large")
    assert card(view, "size").overridden
    assert view.accept()
    assert content(view) == {"size_other": "huge"}


def test_single_clearing_the_text_restores_the_pending_pick() -> None:
    view = ElicitationForm("m", single_other())
    view.pick("size", "Small")
    view.fill("size_other", "huge")
    view.fill("size_other", "   ")
    assert view.accept()
    assert content(view) == {"size": "s"}
    assert view.summary.value == "Accepted: Size = Small"


def test_untitled_enum_is_picked_by_its_value_and_recommended_suffix_is_optional() -> None:
    schema = {"type": "object", "properties": {
        "e": {"type": "string", "enum": ["red", "blue"]},
        "t": {"type": "string",
              "oneOf": [{"const": "x", "title": "Use X (Recommended)"}, {"const": "y", "title": "Y"}]},
    }}
    view = ElicitationForm("m", schema)
    view.pick("e", "blue")
    view.pick("t", "Use X")
    assert view.values == {"e": "blue", "t": "x"}
    view.pick("t", "Use X (Recommended)")
    assert view.values["t"] == "x"


# -- errors ---------------------------------------------------------------------------------
def test_accept_with_errors_shows_every_message_and_stays_open() -> None:
    view = ElicitationForm("m", every_field())
    assert view.errors == {}
    view.fill("email", "not-an-email")
    view.fill("code", "abc")
    view.fill("age", "200")
    assert view.accept() is False
    assert not view.done and view.response is None
    assert set(view.errors) == {"name", "agree", "email", "code", "age"}
    shown = labels(view)
    for messages in view.errors.values():
        for message in messages:
            assert message in shown
    assert "Must be at most 150." in view.errors["age"]
    assert not view.accept_button.disabled


def test_errors_follow_edits_after_a_failed_accept() -> None:
    view = ElicitationForm("m", multi_other(required=True))
    assert view.accept() is False
    assert card(view, "question_0").errors == ["An answer is required: pick an option or type your own."]
    view.fill("question_0_custom", "teal")
    assert view.errors == {} and card(view, "question_0").errors == []
    assert view.accept()
    assert content(view) == {"question_0_custom": "teal"}


def test_min_items_message_reaches_the_card() -> None:
    schema = multi_other()
    schema["properties"]["question_0"]["minItems"] = 2
    view = ElicitationForm("m", schema)
    view.pick("question_0", "Gamma")
    assert not view.accept()
    assert card(view, "question_0").errors == ["Pick at least 2 options."]


# -- answering exactly once -----------------------------------------------------------------
def test_double_accept_resolves_once() -> None:
    view = ElicitationForm("m", multi_other())
    view.pick("question_0", "Beta")
    assert view.accept() is True
    first = view.response
    with pytest.raises(ValueError, match="already answered"):
        view.pick("question_0", "Alpha")  # the controls are closed: nothing can move any more
    assert view.accept() is False and view.decline() is False and view.cancel() is False
    assert view.response is first and content(view) == {"question_0": ["beta"]}
    with pytest.raises(ValueError, match="already answered"):
        view.values  # noqa: B018  # the draft went with the controls; the response stays


def test_decline_after_a_failed_accept_clears_the_messages() -> None:
    view = ElicitationForm("m", single_other() | {"required": ["size"]})
    assert view.accept() is False and view.errors
    assert view.decline() is True
    assert view.errors == {} and view.children == (view.summary,)


def test_clicks_after_the_answer_change_nothing() -> None:
    view = ElicitationForm("m", multi_other())
    buttons = (view.decline_button, view.accept_button, view.cancel_button)
    for button in buttons:
        button.click()  # the handlers of a closed button still call the card: it ignores them
    assert isinstance(view.response, DeclineElicitationResponse)
    with pytest.raises(ValueError, match="already answered"):
        view.accept_button  # noqa: B018
    assert view.summary.value == "Declined."


@pytest.mark.parametrize("answer", ["accept", "decline", "cancel", "cancel_pending"])
def test_an_answered_card_closes_its_controls_and_keeps_only_its_summary(answer: str) -> None:
    view = ElicitationForm("m", every_field() | {"required": []})
    parts = [w for w in walk(view) if w is not view and not shared.is_shared(w)]
    parts += [getattr(w, "layout", None) for w in parts] + [getattr(w, "style", None) for w in parts]
    own = [w for w in parts if isinstance(w, widgets.Widget) and not shared.is_shared(w)]
    assert len(own) > 40 and all(w.comm is not None for w in own)
    if answer == "cancel_pending":
        view.cancel_pending("the turn ended")
    else:
        assert getattr(view, answer)() is True
    assert view.settled and view.children == (view.summary,)
    assert view.summary.value and view.summary.comm is not None and view.comm is not None
    assert all(w.comm is None for w in own), [type(w).__name__ for w in own if w.comm is not None]
    assert not {w.model_id for w in own if w.comm is not None} & set(_instances)
    assert view.errors == {}  # no validation message outlives the answer


async def test_awaiting_before_and_after_the_answer() -> None:
    view = ElicitationForm("m", single_other())
    waiting = [asyncio.ensure_future(_await(view)) for _ in range(2)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiting)
    view.pick("size", "Small")
    view.accept_button.click()
    results = await asyncio.gather(*waiting)
    assert all(r is view.response for r in results)
    assert await view is view.response and await view is view.response


async def _await(view: ElicitationForm) -> Any:
    return await view


async def test_decline_and_cancel_are_distinct_answers() -> None:
    declined, cancelled = ElicitationForm("m", multi_other()), ElicitationForm("m", multi_other())
    declined.decline()
    cancelled.cancel_pending("the turn ended")
    assert (await declined).action == "decline"
    assert (await cancelled).action == "cancel"
    assert cancelled.summary.value == "Cancelled: the turn ended"


def test_choice_card_enter_accepts_and_escape_cancels() -> None:
    view = ElicitationForm("m", multi_other(required=True))
    question = card(view, "question_0")
    question._route_event(question, {"event": "submit"}, [])
    assert not view.done and view.errors  # Enter with nothing picked: errors, still open
    question.toggle("gamma")
    question._route_event(question, {"event": "submit"}, [])
    assert content(view) == {"question_0": ["gamma"]}
    other = ElicitationForm("m", single_other())
    card(other, "size")._route_event(card(other, "size"), {"event": "cancel"}, [])
    assert isinstance(other.response, CancelElicitationResponse)


# -- misuse ---------------------------------------------------------------------------------
def test_unknown_label_names_the_offered_labels() -> None:
    view = ElicitationForm("m", multi_other())
    with pytest.raises(ValueError, match=r"'Teal' is not an option of 'question_0'.*'Alpha', 'Beta', 'Gamma'"):
        view.pick("question_0", "Alpha", "Teal")
    assert card(view, "question_0").picked == []  # nothing half-applied


@pytest.mark.parametrize(("name", "labels_", "match"), [
    ("question_0_custom", ("Alpha",), "Other box"),
    ("name", ("Alpha",), "not a choice"),
    ("nope", ("Alpha",), "not a field"),
])
def test_pick_refuses_what_is_not_a_choice(name: str, labels_: tuple[str, ...], match: str) -> None:
    schema = multi_other()
    schema["properties"]["name"] = {"type": "string"}
    with pytest.raises(ValueError, match=match):
        ElicitationForm("m", schema).pick(name, *labels_)


def test_single_select_takes_exactly_one_label() -> None:
    view = ElicitationForm("m", single_other())
    with pytest.raises(ValueError, match="exactly one"):
        view.pick("size", "Small", "Large")
    with pytest.raises(ValueError, match="exactly one"):
        view.pick("size")


def test_fill_refuses_wrong_targets_and_types() -> None:
    view = ElicitationForm("m", every_field())
    with pytest.raises(ValueError, match="use pick"):
        view.fill("mode", "fast")
    with pytest.raises(ValueError, match="unsupported type"):
        view.fill("blob", {"a": 1})
    with pytest.raises(ValueError, match="takes a number"):
        view.fill("count", "many")
    with pytest.raises(ValueError, match="from 1 to 65535"):
        view.fill("port", 70000)  # BoundedIntText would clamp to 65535 without a word
    with pytest.raises(ValueError, match="whole number"):
        view.fill("big", 2.5)  # IntText would truncate to 2
    assert view.values["port"] == 8080 and view.values["big"] == 7
    with pytest.raises(ValueError, match="date"):
        view.fill("day", "tomorrow")
    with pytest.raises(ValueError, match="timezone"):
        view.fill("when", dt.datetime(2024, 1, 1))


def test_invalid_schema_raises_from_the_constructor() -> None:
    with pytest.raises(InvalidSchemaError):
        ElicitationForm("m", {"type": "object", "properties": {"c": {"type": "string", "oneOf": [{"title": "x"}]}}})


def test_required_unsupported_field_leaves_only_decline_and_cancel() -> None:
    schema = {"type": "object", "properties": {"file": {"type": "file"}, "n": {"type": "string"}},
              "required": ["file"]}
    view = ElicitationForm("m", schema)
    assert view.accept_button.disabled
    assert not view.decline_button.disabled and not view.cancel_button.disabled
    assert any("Accept is not possible" in text and "file" in text for text in labels(view))
    assert view.accept() is False and not view.done
    assert view.decline() and isinstance(view.response, DeclineElicitationResponse)


def test_lone_untitled_question_has_no_heading_and_a_plain_summary() -> None:
    """A form of one untitled choice: the message is the question, the property name is no heading."""
    schema = {"type": "object", "required": ["choice"],
              "properties": {"choice": {"type": "string", "oneOf": [{"const": "choice_0", "title": "Preview"}]}}}
    view = nbacp.ElicitationForm("Choose a target", schema)
    (choice_card,) = [w for w in walk(view) if isinstance(w, ChoiceCard)]
    assert choice_card.spec["title"] is None
    view.pick("choice", "Preview")
    view.accept()
    assert view.summary.value == "Accepted: Preview"
    titled_choice = {**schema["properties"]["choice"], "title": "Target"}
    titled = nbacp.ElicitationForm("?", {**schema, "properties": {"choice": titled_choice}})
    titled.pick("choice", "Preview")
    titled.accept()
    assert titled.summary.value == "Accepted: Target = Preview"


# -- after the answer -----------------------------------------------------------------------
def test_an_answered_card_keeps_its_pure_form_readable() -> None:
    schema = {"type": "object", "properties": {
        "name": {"type": "string"}, "blob": {"type": "object", "title": "Blob"}}}
    view = ElicitationForm("m", schema)
    view.fill("name", "Ann")
    assert view.accept()
    assert view.settled
    assert set(view.form.fields) == {"name", "blob"}  # raised "its form was released" before
    assert [f.name for f in view.form.unsupported] == ["blob"]
    with pytest.raises(ValueError, match="already answered"):
        view.widget_for("name")  # the widgets are what is released
