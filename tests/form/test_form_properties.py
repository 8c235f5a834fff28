"""Hypothesis: whatever an agent sends and whatever a person types, the model only ever
returns a Form, errors, or wire content; it raises only InvalidSchemaError / FormValidationError."""

from __future__ import annotations

import math
from typing import Any

from acp.schema import AcceptElicitationResponse, ElicitationContentValue
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nbacp.form import Form, FormValidationError, InvalidSchemaError

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

KEYS = st.sampled_from(
    [
        "type",
        "properties",
        "required",
        "enum",
        "oneOf",
        "anyOf",
        "items",
        "const",
        "title",
        "description",
        "default",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "enumNames",
        "_meta",
        "questionId",
        "isCustomAnswer",
        "jetbrains",
        "air",
        "customAnswer",
        "q",
        "q_custom",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.integers(-5, 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(
        [
            "string",
            "number",
            "integer",
            "boolean",
            "array",
            "object",
            "_x-foo",
            "email",
            "date",
            "uri",
            "date-time",
            "^a",
            "(a|aa)+$",
            "(",
            "a{3}",
        ]
    ),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=4), inner, max_size=5),
    max_leaves=25,
)

PLAUSIBLE = st.one_of(
    st.text(max_size=6),
    st.integers(-6, 6),
    st.floats(-6, 6),
    st.booleans(),
    st.none(),
    st.lists(st.text(max_size=3), max_size=3),
    st.sampled_from(["a", "b", "", "  ", "3", "2.5", "a@example.com", "2024-01-01", "https://x.y", "aaa!"]),
)
DEFAULT = PLAUSIBLE | JSON
OPTION = st.fixed_dictionaries(
    {"const": st.text(max_size=4), "title": st.text(max_size=6)}, optional={"description": st.text(max_size=6)}
)
STRING_PROP = st.fixed_dictionaries(
    {"type": st.just("string")},
    optional={
        "minLength": st.integers(0, 4),
        "maxLength": st.integers(0, 6),
        "title": st.text(max_size=5),
        "pattern": st.sampled_from(["^a", "b$", "[0-9]", "(a|aa)+$", "("]),
        "format": st.sampled_from(["email", "uri", "date", "date-time", "color"]),
        "default": JSON,
    },
)
NUMBER_PROP = st.fixed_dictionaries(
    {"type": st.sampled_from(["number", "integer"])},
    optional={"minimum": st.integers(-5, 5) | st.floats(-5, 5), "maximum": st.integers(-5, 5), "default": DEFAULT},
)
SINGLE_PROP = st.fixed_dictionaries({"type": st.just("string")}, optional={"default": DEFAULT}).flatmap(
    lambda base: st.one_of(
        st.lists(st.text(max_size=4), max_size=4, unique=True).map(lambda e: {**base, "enum": e}),
        st.lists(OPTION, max_size=4, unique_by=lambda o: o["const"]).map(lambda o: {**base, "oneOf": o}),
    )
)
MULTI_PROP = st.fixed_dictionaries(
    {
        "type": st.just("array"),
        "items": st.lists(st.text(max_size=3), max_size=4, unique=True).map(lambda e: {"type": "string", "enum": e}),
    },
    optional={"minItems": st.integers(0, 3), "maxItems": st.integers(0, 3), "default": DEFAULT},
)
PROP = st.one_of(
    STRING_PROP, NUMBER_PROP, SINGLE_PROP, MULTI_PROP, st.just({"type": "boolean"}), st.just({"type": "_x-foo"}), JSON
)
NAMES = st.sampled_from(["q", "q_custom", "q_other", "a", "b", "free"])
CHOICE_PROP = st.one_of(SINGLE_PROP, MULTI_PROP)
QUESTION_PROPERTIES = st.fixed_dictionaries(
    {"q": CHOICE_PROP, "q_custom": STRING_PROP}, optional={"a": PROP, "b": CHOICE_PROP, "b_other": STRING_PROP}
)
SCHEMA = st.fixed_dictionaries(
    {"type": st.just("object"), "properties": st.dictionaries(NAMES, PROP, max_size=5) | QUESTION_PROPERTIES},
    optional={"required": st.lists(NAMES, max_size=3)},
)


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """A valid-looking schema with one part replaced by arbitrary JSON."""
    schema: dict[str, Any] = draw(SCHEMA)
    target = draw(st.sampled_from(["root", "properties", "property", "key"]))
    junk = draw(JSON)
    if target == "root":
        return junk
    if target == "properties":
        return {**schema, "properties": junk}
    props = dict(schema["properties"])
    if not props:
        return {**schema, draw(KEYS): junk}
    name = draw(st.sampled_from(sorted(props)))
    props[name] = (
        junk if target == "property" else ({**props[name], draw(KEYS): junk} if isinstance(props[name], dict) else junk)
    )
    return {**schema, "properties": props}


ANY_SCHEMA = st.one_of(SCHEMA, mutated(), JSON)
VALUES = st.dictionaries(NAMES | st.text(max_size=3), PLAUSIBLE | JSON, max_size=6)


def is_wire(value: Any) -> bool:
    if isinstance(value, list):
        return all(type(v) is str for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return type(value) in (str, int, float, bool)


def form_or_none(schema: Any) -> Form | None:
    try:
        form = Form.from_schema(schema)
    except InvalidSchemaError as error:
        assert str(error)
        return None
    assert isinstance(form, Form)
    return form


def check_answers(form: Form, values: Any) -> None:
    errors = form.validate(values)
    assert isinstance(errors, dict)
    assert all(
        isinstance(k, str) and isinstance(v, list) and v and all(isinstance(m, str) for m in v)
        for k, v in errors.items()
    )
    try:
        content = form.content(values)
    except FormValidationError as error:
        assert errors and error.errors == errors
        return
    assert errors == {}
    assert all(name in form.fields and is_wire(value) for name, value in content.items())
    assert not any(form.fields[name].kind == "unsupported" for name in content)
    for value in content.values():
        ElicitationContentValue.model_validate(value)
    response = AcceptElicitationResponse(action="accept", content=content)
    again = AcceptElicitationResponse.model_validate_json(response.model_dump_json(by_alias=True))
    assert again.content == content


@SETTINGS
@given(ANY_SCHEMA, VALUES)
def test_any_schema_any_values(schema: Any, values: Any) -> None:
    form = form_or_none(schema)
    if form is not None:
        check_answers(form, values)


@SETTINGS
@given(SCHEMA, st.data())
def test_valid_schemas_with_values_drawn_from_their_own_options(schema: dict[str, Any], data: st.DataObject) -> None:
    form = form_or_none(schema)
    if form is None:
        return
    values: dict[str, Any] = {}
    for name, field in form.fields.items():
        options = [o.value for o in getattr(field, "options", ())]
        if options:
            values[name] = data.draw(st.lists(st.sampled_from(options), max_size=3) | st.sampled_from(options))
        else:
            values[name] = data.draw(PLAUSIBLE)
    check_answers(form, values)
    errors = form.validate(values)
    kept = {name: value for name, value in values.items() if name not in errors}
    check_answers(form, kept)  # mostly a valid draft: its content must reach the wire intact


@SETTINGS
@given(ANY_SCHEMA)
def test_defaults_never_start_a_draft_with_errors(schema: Any) -> None:
    form = form_or_none(schema)
    if form is None:
        return
    draft = form.defaults()
    errors = form.validate(draft)
    missing = {name for name, f in form.fields.items() if f.required and f.default is None}
    questions = {q.name for q in form.questions}
    assert set(errors) <= missing | questions
    for name, messages in errors.items():
        assert name not in draft or name in questions
        assert all("required" in m or m.startswith("Pick") for m in messages), messages
    check_answers(form, draft)
