"""Every field type and constraint of the ACP elicitation schema, read and checked by nbacp.form."""

from __future__ import annotations

import math
from typing import Any

import pytest

from nbacp.form import (
    BooleanField,
    ChoiceField,
    Form,
    FormValidationError,
    NumberField,
    StringField,
    UnsupportedField,
)


def one(prop: dict[str, Any], *, required: bool = False) -> Form:
    return Form.from_schema({"type": "object", "properties": {"f": prop}, "required": ["f"] if required else []})


def errors_of(prop: dict[str, Any], value: Any, *, required: bool = False) -> list[str]:
    return one(prop, required=required).validate({"f": value}).get("f", [])


def content_of(prop: dict[str, Any], value: Any) -> Any:
    return one(prop).content({"f": value}).get("f")


# -- common attributes ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("prop", "cls"),
    [
        ({"type": "string", "default": "x"}, StringField),
        ({"type": "number", "default": 1.5}, NumberField),
        ({"type": "integer", "default": 2}, NumberField),
        ({"type": "boolean", "default": True}, BooleanField),
        ({"type": "string", "enum": ["a", "b"], "default": "a"}, ChoiceField),
        ({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": ["b"]}, ChoiceField),
    ],
)
def test_title_description_required_default_on_each_type(prop: dict[str, Any], cls: type) -> None:
    form = one({**prop, "title": "The title", "description": "Why we ask"}, required=True)
    field = form.fields["f"]
    assert isinstance(field, cls)
    assert (field.title, field.description, field.required, field.label) == (
        "The title",
        "Why we ask",
        True,
        "The title",
    )
    assert field.default == prop["default"]
    assert form.validate({}) == {"f": form.validate({})["f"]} and form.validate({})["f"]
    assert form.validate(form.defaults()) == {}


def test_label_falls_back_to_name_and_non_string_text_is_ignored() -> None:
    field = one({"type": "string", "title": 3, "description": ["x"]}).fields["f"]
    assert (field.title, field.description, field.label, field.required) == (None, None, "f", False)


def test_missing_type_and_properties_are_tolerated() -> None:
    assert Form.from_schema({}).fields == {}
    assert Form.from_schema({"properties": {"a": {"type": "string"}}}).content({"a": "x"}) == {"a": "x"}


# -- strings -------------------------------------------------------------------------


def test_length_counts_code_points_not_bytes_or_utf16_units() -> None:
    prop = {"type": "string", "minLength": 2, "maxLength": 3}
    assert errors_of(prop, "😀😀😀") == []  # 3 code points, 12 UTF-8 bytes, 6 UTF-16 units
    assert errors_of(prop, "é") == ["Must be at least 2 characters."]
    assert errors_of(prop, "abcd") == ["Must be at most 3 characters."]
    assert errors_of(prop, "ab") == errors_of(prop, "abc") == []


def test_empty_string_means_not_answered() -> None:
    assert errors_of({"type": "string", "minLength": 3}, "") == []
    assert one({"type": "string"}).content({"f": ""}) == {}
    assert errors_of({"type": "string"}, "", required=True) == ["This field is required."]


def test_pattern_is_an_unanchored_search() -> None:
    prop = {"type": "string", "pattern": "[0-9]{3}"}
    assert errors_of(prop, "abc123def") == []
    assert errors_of(prop, "12a") == ["Must match the pattern [0-9]{3}."]
    anchored = {"type": "string", "pattern": "^[0-9]{3}$"}
    assert errors_of(anchored, "abc123def") and errors_of(anchored, "123") == []


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        (
            "email",
            ["a@example.com", "first.last+tag@sub.example.org"],
            ["nope", "a@", "@example.com", "a b@example.com"],
        ),
        (
            "uri",
            ["https://example.com/x?y=1", "urn:isbn:0451450523", "mailto:a@example.com"],
            ["example.com", "/relative/path", "http://exa mple.com"],
        ),
        (
            "date",
            ["2024-02-29", "1999-12-31"],
            ["2023-02-29", "2024-13-01", "24-01-01", "2024-1-1", "2024-01-01T00:00:00Z"],
        ),
        (
            "date-time",
            ["2024-01-01T12:30:00Z", "2024-01-01T12:30:00.5+02:00"],
            ["2024-01-01", "2024-01-01 12:30", "2024-02-30T00:00:00Z", "2024-01-01T25:00:00Z"],
        ),
    ],
)
def test_known_formats(fmt: str, good: list[str], bad: list[str]) -> None:
    prop = {"type": "string", "format": fmt}
    for text in good:
        assert errors_of(prop, text) == [], text
    for text in bad:
        messages = errors_of(prop, text)
        assert len(messages) == 1 and messages[0].startswith("Must be "), text


@pytest.mark.parametrize("fmt", ["color", "hostname", "uuid", "password", "", "EMAIL"])
def test_unknown_formats_are_annotations_never_rejected(fmt: str) -> None:
    assert errors_of({"type": "string", "format": fmt}, "anything at all") == []
    assert one({"type": "string", "format": fmt}).fields["f"].format == fmt  # type: ignore[attr-defined]


def test_a_string_field_wants_text() -> None:
    assert errors_of({"type": "string"}, 5) == ["Must be text."]
    assert errors_of({"type": "string"}, ["a"]) == ["Must be text."]


def test_every_string_message_at_once() -> None:
    messages = errors_of({"type": "string", "maxLength": 2, "pattern": "^x", "format": "email"}, "abc")
    assert len(messages) == 3


# -- numbers -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["number", "integer"])
@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, "inf", "nan", "-Infinity", "1e400"])
def test_numbers_are_finite_only(kind: str, value: Any) -> None:
    assert errors_of({"type": kind}, value) != []


def test_integers_must_be_integral() -> None:
    prop = {"type": "integer"}
    assert content_of(prop, 3.0) == 3 and type(content_of(prop, 3.0)) is int
    assert content_of(prop, "3.0") == 3 and type(content_of(prop, "3.0")) is int
    assert errors_of(prop, 2.5) == ["Must be a whole number."]
    assert errors_of(prop, "2.5") == ["Must be a whole number."]
    assert errors_of(prop, "two") == ["Must be a whole number."]


def test_bounds_are_inclusive() -> None:
    prop = {"type": "number", "minimum": 1.5, "maximum": 10}
    assert errors_of(prop, 1.5) == errors_of(prop, 10) == []
    assert errors_of(prop, 1.4999) == ["Must be at least 1.5."]
    assert errors_of(prop, 10.0001) == ["Must be at most 10."]
    iprop = {"type": "integer", "minimum": 0, "maximum": 3}
    assert errors_of(iprop, 0) == errors_of(iprop, 3) == []
    assert errors_of(iprop, -1) and errors_of(iprop, 4)


@pytest.mark.parametrize("kind", ["number", "integer"])
def test_bool_is_not_a_number(kind: str) -> None:
    assert errors_of({"type": kind}, True) == ["Must be a number."]
    assert errors_of({"type": kind}, False) == ["Must be a number."]


def test_numeric_strings_are_parsed_to_wire_numbers() -> None:
    assert content_of({"type": "number"}, " 2.5 ") == 2.5
    assert content_of({"type": "number"}, "1e3") == 1000.0
    assert content_of({"type": "integer"}, " 42 ") == 42
    assert one({"type": "number"}).content({"f": "  "}) == {}
    assert errors_of({"type": "number"}, "12abc") == ["Must be a number."]
    assert errors_of({"type": "number"}, [1]) == ["Must be a number."]


def test_number_keeps_int_and_float_wire_types() -> None:
    assert type(content_of({"type": "number"}, 7)) is int
    assert type(content_of({"type": "number"}, 7.25)) is float


# -- booleans ------------------------------------------------------------------------


def test_boolean() -> None:
    assert content_of({"type": "boolean"}, False) is False
    assert content_of({"type": "boolean"}, True) is True
    assert errors_of({"type": "boolean"}, "true") == ["Must be true or false."]
    assert errors_of({"type": "boolean"}, 1) == ["Must be true or false."]
    assert errors_of({"type": "boolean"}, None, required=True) == ["This field is required."]


# -- single and multi select ---------------------------------------------------------


def test_single_select_untitled_enum() -> None:
    field = one({"type": "string", "enum": ["red", "green"]}).fields["f"]
    assert isinstance(field, ChoiceField) and not field.multi
    assert [(o.value, o.label) for o in field.options] == [("red", "red"), ("green", "green")]
    assert content_of({"type": "string", "enum": ["red", "green"]}, "green") == "green"
    assert errors_of({"type": "string", "enum": ["red", "green"]}, "blue") == [
        "'blue' is not one of the offered options."
    ]


def test_single_select_titled_one_of_and_enum_names() -> None:
    titled = {
        "type": "string",
        "oneOf": [{"const": "r", "title": "Red", "description": "warm"}, {"const": "g", "title": "Green"}],
    }
    field = one(titled).fields["f"]
    assert isinstance(field, ChoiceField)
    assert [(o.value, o.label, o.description) for o in field.options] == [("r", "Red", "warm"), ("g", "Green", None)]
    assert field.option_by_label("Green") is field.options[1]
    assert content_of(titled, "r") == "r"
    assert errors_of(titled, "Red") != []  # the wire carries the const, not the title
    named = one({"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]}).fields["f"]
    assert [o.label for o in named.options] == ["Red", "Green"]  # type: ignore[attr-defined]


def test_an_option_is_found_by_its_value_or_by_the_first_label_or_title_that_reads_so() -> None:
    field = one(
        {
            "type": "string",
            "oneOf": [
                {"const": "a", "title": "Fast (Recommended)"},  # label "Fast", title "Fast (Recommended)"
                {"const": "b", "title": "Fast"},
                {"const": "c", "title": "Slow"},
            ],
        }
    ).fields["f"]
    assert isinstance(field, ChoiceField)
    assert field.option_by_label("Fast") is field.option_by_label("Fast (Recommended)") is field.options[0]
    assert field.option_by_label("Slow") is field.option("c") is field.options[2]
    assert field.option("Slow") is None and field.option_by_label("c") is None
    assert field.option(["a"]) is None and field.option_by_label(None) is None  # type: ignore[arg-type]


def test_single_select_never_sends_more_than_one_value() -> None:
    prop = {"type": "string", "enum": ["a", "b"]}
    assert errors_of(prop, ["a", "b"]) == ["Pick only one option."]
    assert content_of(prop, ["a"]) == "a"


@pytest.mark.parametrize(
    "items",
    [
        {"type": "string", "enum": ["a", "b", "c"]},
        {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}, {"const": "c", "title": "C"}]},
    ],
)
def test_multi_select(items: dict[str, Any]) -> None:
    prop = {"type": "array", "items": items, "minItems": 2, "maxItems": 2}
    field = one(prop).fields["f"]
    assert isinstance(field, ChoiceField) and field.multi and (field.min_items, field.max_items) == (2, 2)
    assert content_of(prop, ["c", "a"]) == ["c", "a"]
    assert errors_of(prop, ["a"]) == ["Pick at least 2 options."]
    assert errors_of(prop, ["a", "b", "c"]) == ["Pick at most 2 options."]
    assert [m.endswith("is picked more than once.") for m in errors_of(prop, ["a", "a"])] == [True]
    assert errors_of(prop, ["a", "z"]) == ["'z' is not one of the offered options."]
    assert errors_of(prop, 5) == ["Must be a list of options."]
    assert one(prop).content({"f": []}) == {}


# -- option metadata -----------------------------------------------------------------


def test_option_descriptions_previews_and_recommended() -> None:
    form = one(
        {
            "type": "string",
            "oneOf": [
                {"const": "a", "title": "Alpha", "description": "from the spec"},
                {"const": "b", "title": "Beta", "_meta": {"acpkit.dev/choice-description": "from ACP Kit"}},
                {
                    "const": "c",
                    "title": "Gamma (Recommended)",
                    "_meta": {"_claude/askUserQuestionOption": {"preview": "# code"}},
                },
                {"const": "d", "title": "(Recommended)"},
                {"const": "e", "title": "Epsilon", "_meta": {"_claude/askUserQuestionOption": "not a mapping"}},
            ],
        }
    )
    a, b, c, d, e = form.fields["f"].options  # type: ignore[attr-defined]
    assert (a.description, b.description, c.description) == ("from the spec", "from ACP Kit", None)
    assert (c.label, c.title, c.recommended, c.preview) == ("Gamma", "Gamma (Recommended)", True, "# code")
    assert c.matches("Gamma") and c.matches("Gamma (Recommended)")
    assert (d.label, d.recommended) == ("(Recommended)", False)
    assert not a.recommended and a.preview is None and e.preview is None
    assert form.content({"f": "c"}) == {"f": "c"}


# -- unsupported ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "_x-foo"},
        {"type": "color"},
        {"type": "array", "items": {"type": "number", "enum": [1, 2]}},
        {"type": "array", "items": {"type": "_x-color", "anyOf": [{"const": "r", "title": "Red"}]}},
        {"type": "object"},
        {},
    ],
)
def test_unsupported_fields_are_kept_and_never_in_content(prop: dict[str, Any]) -> None:
    schema = {"properties": {"u": {**prop, "default": "x"}, "s": {"type": "string"}}}
    form = Form.from_schema(schema)
    field = form.fields["u"]
    assert isinstance(field, UnsupportedField) and form.unsupported == (field,)
    assert field.default is None and "u" not in form.defaults()
    assert form.can_accept
    assert form.content({"s": "ok"}) == {"s": "ok"}
    assert "u" in form.validate({"u": "x", "s": "ok"})


def test_required_unsupported_field_blocks_accept() -> None:
    form = Form.from_schema({"properties": {"u": {"type": "_x-foo"}, "s": {"type": "string"}}, "required": ["u"]})
    assert not form.can_accept
    for values in ({}, {"u": None}, {"u": "anything"}, {"u": 1, "s": "x"}, form.defaults()):
        assert "u" in form.validate(values)
        with pytest.raises(FormValidationError) as caught:
            form.content(values)
        assert "u" in caught.value.errors


# -- wire types ----------------------------------------------------------------------


def test_wire_types_of_content() -> None:
    form = Form.from_schema(
        {
            "properties": {
                "s": {"type": "string"},
                "i": {"type": "integer"},
                "n": {"type": "number"},
                "b": {"type": "boolean"},
                "m": {"type": "array", "items": {"enum": ["x", "y"]}},
                "c": {"type": "string", "enum": ["p"]},
            }
        }
    )
    content = form.content({"s": "t", "i": "4", "n": "0.5", "b": False, "m": ("y", "x"), "c": "p"})
    assert content == {"s": "t", "i": 4, "n": 0.5, "b": False, "m": ["y", "x"], "c": "p"}
    assert [type(content[k]) for k in "sinbmc"] == [str, int, float, bool, list, str]


def test_unknown_keys_are_errors() -> None:
    assert Form.from_schema({"properties": {}}).validate({"ghost": 1}) == {
        "ghost": ["'ghost' is not a field of this form."]
    }


def test_huge_integer_bounds_are_finite_bounds_not_a_crash() -> None:
    """JSON allows integers beyond float range; math.isfinite() on them raised OverflowError."""
    form = Form.from_schema(
        {"properties": {"n": {"type": "integer", "minimum": 10**400}, "x": {"type": "number", "maximum": -(10**400)}}}
    )
    errors = form.validate({"n": 5, "x": 1.0})
    assert errors == {"n": [f"Must be at least {10**400}."], "x": [f"Must be at most {-(10**400)}."]}
    # ... but an answer past int64 is one the agent cannot decode (see test_form_spec_points)
    assert "n" in form.validate({"n": 10**400 + 1})
