"""Defaults are sanitized like Zed does: the form never starts from a draft it could not send."""

from __future__ import annotations

from typing import Any

import pytest

from nbacp.form import Form


def default_of(prop: dict[str, Any], *, required: bool = False) -> Any:
    form = Form.from_schema({"properties": {"f": prop}, "required": ["f"] if required else []})
    return form.fields["f"].default


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "string", "maxLength": 3, "default": "toolong"},
        {"type": "string", "minLength": 3, "default": "ab"},
        {"type": "string", "pattern": "^x", "default": "abc"},
        {"type": "string", "format": "email", "default": "not-an-email"},
        {"type": "string", "format": "date", "default": "2023-02-29"},
        {"type": "string", "default": 5},
        {"type": "string", "default": ""},
        {"type": "number", "minimum": 0, "default": -1},
        {"type": "number", "maximum": 1, "default": 1.5},
        {"type": "number", "default": "abc"},
        {"type": "number", "default": True},
        {"type": "number", "default": float("nan")},
        {"type": "integer", "default": 2.5},
        {"type": "integer", "minimum": 3, "default": 2},
        {"type": "boolean", "default": "true"},
        {"type": "boolean", "default": 0},
        {"type": "string", "enum": ["a", "b"], "default": "c"},
        {"type": "string", "oneOf": [{"const": "a", "title": "A"}], "default": "A"},
        {"type": "string", "enum": ["a", "b"], "default": ["a", "b"]},
        {"type": "array", "items": {"enum": ["a", "b"]}, "default": ["z"]},
        {"type": "array", "items": {"enum": ["a", "b"]}, "default": "a"},
        {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 2, "default": ["a", "z"]},
        {"type": "array", "items": {"enum": ["a", "b", "c"]}, "maxItems": 1, "default": ["a", "b"]},
        {"type": "_x-foo", "default": "anything"},
    ],
)
def test_invalid_default_is_dropped(prop: dict[str, Any]) -> None:
    assert default_of(prop) is None


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"type": "string", "maxLength": 3, "default": "abc"}, "abc"),
        ({"type": "string", "format": "color", "default": "not checked"}, "not checked"),
        ({"type": "number", "minimum": 0, "maximum": 1, "default": 1}, 1),
        ({"type": "number", "default": "2.5"}, 2.5),
        ({"type": "integer", "default": 3.0}, 3),
        ({"type": "boolean", "default": False}, False),
        ({"type": "string", "enum": ["a", "b"], "default": "b"}, "b"),
        ({"type": "array", "items": {"enum": ["a", "b", "c"]}, "default": ["c", "z", "a", "c", 3]}, ["c", "a"]),
    ],
)
def test_valid_default_is_kept_normalized(prop: dict[str, Any], expected: Any) -> None:
    default = default_of(prop)
    assert default == expected and type(default) is type(expected)


def test_required_field_with_invalid_default_starts_empty_and_asks() -> None:
    form = Form.from_schema(
        {"properties": {"f": {"type": "string", "maxLength": 1, "default": "ab"}}, "required": ["f"]}
    )
    assert form.defaults() == {}
    assert form.validate(form.defaults()) == {"f": ["This field is required."]}


def test_defaults_draft_only_misses_required_fields_without_a_default() -> None:
    form = Form.from_schema(
        {
            "properties": {
                "s": {"type": "string", "default": "ok"},
                "bad": {"type": "string", "pattern": "^\\d+$", "default": "x"},
                "n": {"type": "integer", "default": 4},
                "c": {"type": "string", "enum": ["a"], "default": "a"},
                "c_custom": {"type": "string", "default": "typed"},
                "m": {"type": "array", "items": {"enum": ["x", "y"]}, "default": ["y"]},
                "need": {"type": "boolean"},
            },
            "required": ["need", "s", "bad"],
        }
    )
    assert form.defaults() == {"s": "ok", "n": 4, "c": "a", "c_custom": "typed", "m": ["y"]}
    assert form.validate(form.defaults()) == {"bad": ["This field is required."], "need": ["This field is required."]}
    assert form.content({**form.defaults(), "need": True, "bad": "12"}) == {
        "s": "ok",
        "n": 4,
        "c_custom": "typed",
        "m": ["y"],
        "need": True,
        "bad": "12",
    }


def test_a_pydantic_schema_default_goes_through_the_same_sanitizing() -> None:
    from acp.schema import ElicitationSchema, ElicitationStringPropertySchema

    schema = ElicitationSchema(
        properties={"f": ElicitationStringPropertySchema(type="string", max_length=2, default="long")}
    )
    assert Form.from_schema(schema).defaults() == {}


def test_default_of_the_wrong_shape_is_dropped_not_coerced() -> None:
    """A single-select default must be one string, a multi-select default a list."""
    assert default_of({"type": "string", "enum": ["a"], "default": ["a"]}) is None
    assert default_of({"type": "array", "items": {"enum": ["a"]}, "default": "a"}) is None
    for default in ({"x": 1}, [[1]], object(), b"a", 1):
        assert default_of({"type": "string", "enum": ["a"], "default": default}) is None
        assert default_of({"type": "array", "items": {"enum": ["a"]}, "default": default}) is None
