"""Structurally broken schemas raise InvalidSchemaError (a ValueError) naming what is wrong."""

from __future__ import annotations

from typing import Any

import pytest

from nbacp.form import Form, InvalidSchemaError


def test_invalid_schema_error_is_a_value_error() -> None:
    assert issubclass(InvalidSchemaError, ValueError)


@pytest.mark.parametrize("schema", [None, "object", 3, ["properties"], b"{}"])
def test_not_an_object(schema: Any) -> None:
    with pytest.raises(InvalidSchemaError, match="must be an object"):
        Form.from_schema(schema)


@pytest.mark.parametrize(
    ("schema", "names"),
    [
        ({"type": "object", "properties": ["a", "b"]}, "'properties'"),
        ({"properties": "a"}, "'properties'"),
        ({"properties": {}, "required": "a"}, "'required'"),
        ({"properties": {}, "required": [1]}, "'required'"),
        ({"properties": {"the_prop": 5}}, "'the_prop'"),
        ({"properties": {"the_prop": ["string"]}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "string", "oneOf": [{"title": "no const"}]}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "string", "oneOf": [{"const": 1, "title": "x"}]}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "string", "oneOf": "ab"}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "string", "enum": [1, 2]}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "string", "enum": "ab"}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "string", "enum": ["a", "a"]}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "array", "items": {"anyOf": [{"title": "x"}]}}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "array", "items": {"enum": [None]}}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "string", "minLength": -1}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "string", "maxLength": "3"}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "string", "minLength": True}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "string", "pattern": 5}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "number", "minimum": "0"}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "integer", "maximum": float("inf")}}}, "'the_prop'"),
        ({"properties": {"the_prop": {"type": "array", "items": {"enum": ["a"]}, "minItems": -2}}}, "'the_prop'"),
    ],
)
def test_broken_structure_names_the_problem(schema: dict[str, Any], names: str) -> None:
    with pytest.raises(InvalidSchemaError) as caught:
        Form.from_schema(schema)
    assert names in str(caught.value)


def test_tolerated_oddities_are_not_errors() -> None:
    form = Form.from_schema(
        {
            "type": None,
            "properties": {
                "a": {"type": "string", "format": 5, "title": 1, "_meta": "not a mapping"},
                "b": {"type": ["string", "null"]},
                "c": {"type": "string", "enum": ["x"], "enumNames": "bad"},
            },
            "required": ["a", "nope"],
        }
    )
    assert set(form.fields) == {"a", "b", "c"} and form.fields["a"].required
    assert form.fields["b"].kind == "unsupported"
