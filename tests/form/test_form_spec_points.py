"""ACP's smaller reader rules (docs/protocol.md, 'Elicitation spec points'), each with its test.

- unknown item types are kept and shown as unsupported, never rendered as a known control;
- a missing, null or malformed top-level ``type`` is read as "object";
- a known type in a broken shape (an array without ``items``, an array of free text) is an
  InvalidSchemaError, as the SDK's parser and ACP's reference crate treat it;
- ``minLength`` / ``maxLength`` past uint32 are an InvalidSchemaError;
- integer answers outside int64 are a validation error;
- an empty ``enum`` (or ``oneOf`` / ``anyOf``) is an InvalidSchemaError;
- ``date-time`` is RFC 3339 exactly.
"""

from __future__ import annotations

from typing import Any

import pytest
from acp import RequestError
from acp.schema import ElicitationFormSessionMode, ElicitationSchema
from support.form_view_support import kinds, texts
from support.peers import HoldingAgent

import nbacp
from nbacp.form import Form, InvalidSchemaError, UnsupportedField
from nbacp.widgets import FormCard

# -- unknown item types ------------------------------------------------------------------

COLOR_ITEMS = {"type": "_x-color", "anyOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]}


def test_an_unknown_item_type_with_options_is_kept_and_unsupported() -> None:
    form = Form.from_schema({"properties": {"c": {"type": "array", "items": COLOR_ITEMS}, "s": {"type": "string"}}})
    field = form.fields["c"]
    assert isinstance(field, UnsupportedField) and field.type_name == "array of _x-color"
    assert field.schema["items"] == COLOR_ITEMS  # preserved as the agent sent it
    assert form.questions == () and form.content({"s": "x"}) == {"s": "x"}
    assert "c" in form.validate({"c": ["r"]})


def test_an_unknown_item_type_is_shown_as_unsupported_not_as_a_multi_select() -> None:
    view = FormCard("?", {"properties": {"c": {"type": "array", "items": COLOR_ITEMS}}})
    assert any("unsupported field type array of _x-color" in text for text in texts(view))
    assert kinds(view) == {"c": "unsupported"}


# -- the top-level type --------------------------------------------------------------------


@pytest.mark.parametrize("top", [{}, {"type": None}, {"type": 5}, {"type": "array"}, {"type": ["object"]}])
def test_a_missing_null_or_malformed_top_level_type_reads_as_object(top: dict[str, Any]) -> None:
    form = Form.from_schema({**top, "properties": {"name": {"type": "string"}}, "required": ["name"]})
    assert list(form.fields) == ["name"] and form.content({"name": "Ada"}) == {"name": "Ada"}


# -- known types in broken shapes ----------------------------------------------------------


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "array"},
        {"type": "array", "items": None},
        {"type": "array", "items": [{"enum": ["a"]}]},
        {"type": "array", "items": {"type": "string"}},
        {"type": "array", "items": {}},
        {"type": "array", "items": {"type": "string", "minLength": 2}},
    ],
)
def test_an_array_without_options_is_an_invalid_schema(prop: dict[str, Any]) -> None:
    with pytest.raises(InvalidSchemaError, match="'tags'"):
        Form.from_schema({"properties": {"tags": prop}})


# -- wire ranges -------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["minLength", "maxLength"])
def test_string_lengths_past_uint32_are_an_invalid_schema(key: str) -> None:
    assert Form.from_schema({"properties": {"s": {"type": "string", key: 2**32 - 1}}})
    with pytest.raises(InvalidSchemaError, match=f"'s'.*'{key}' must be at most 4294967295"):
        Form.from_schema({"properties": {"s": {"type": "string", key: 2**32}}})


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 10**30, "9223372036854775808", 1e19, -1e19])
def test_integer_answers_outside_int64_are_a_validation_error(value: Any) -> None:
    form = Form.from_schema({"properties": {"n": {"type": "integer"}}})
    (message,) = form.validate({"n": value})["n"]
    assert "between -9223372036854775808 and 9223372036854775807" in message


@pytest.mark.parametrize("value", [2**63 - 1, -(2**63), 0, "9223372036854775807"])
def test_integer_answers_at_the_int64_edges_are_sent(value: Any) -> None:
    form = Form.from_schema({"properties": {"n": {"type": "integer"}}})
    assert form.content({"n": value}) == {"n": int(value)}


def test_a_number_field_is_not_limited_to_int64() -> None:
    assert Form.from_schema({"properties": {"x": {"type": "number"}}}).content({"x": 1e300}) == {"x": 1e300}


# -- empty option lists ------------------------------------------------------------------


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "string", "enum": []},
        {"type": "string", "oneOf": []},
        {"type": "array", "items": {"type": "string", "enum": []}},
        {"type": "array", "items": {"anyOf": []}},
    ],
)
def test_an_empty_option_list_is_an_invalid_schema(prop: dict[str, Any]) -> None:
    with pytest.raises(InvalidSchemaError, match="'pick'.*no options"):
        Form.from_schema({"properties": {"pick": prop}})


async def test_an_empty_enum_is_answered_with_invalid_params_over_acp() -> None:
    agent = HoldingAgent()
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session(".")
        bad = ElicitationSchema.model_validate({"properties": {"pick": {"type": "string", "enum": []}}})
        mode = ElicitationFormSessionMode(session_id=session.id, requested_schema=bad)
        with pytest.raises(RequestError) as info:
            await agent.conn.create_elicitation(message="?", mode=mode)
        assert info.value.code == -32602 and "pick" in str(info.value.data)
        assert conn.client.open_cards() == []


# -- date-time is RFC 3339 exactly --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("1985-04-12T23:20:50.52Z", True),
        ("1985-04-12t23:20:50.52z", True),  # RFC 3339 5.6: "T" and "Z" may be lowercase
        ("1996-12-19T16:39:57-08:00", True),
        ("1990-12-31T23:59:60Z", True),  # a leap second, UTC
        ("1990-12-31T15:59:60-08:00", True),  # the same leap second in an offset
        ("1985-04-12T23:20:50Z\n", False),  # a trailing newline
        ("1985-04-12 23:20:50Z", False),  # a space is ISO 8601's, not RFC 3339's date-time
        ("1985-04-12T23:20:50", False),  # no offset
        ("1985-04-12T23:20:50+01", False),
        ("1985-04-12T22:59:60Z", False),  # a leap second at the wrong minute
        ("1985-02-29T10:00:00Z", False),
        ("1985-04-12T24:00:00Z", False),
        ("1985-04-12T23:20:50+24:00", False),
        ("1985-04-1\u09e8T23:20:50Z", False),  # a Bengali digit
    ],
)
def test_date_time_is_rfc3339_exactly(text: str, valid: bool) -> None:
    form = Form.from_schema({"properties": {"at": {"type": "string", "format": "date-time"}}})
    assert (form.validate({"at": text}) == {}) is valid
