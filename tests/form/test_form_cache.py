"""nbacp.form.cache: one parsed Form per schema text, bounded, never a stale or a refused one."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from nbacp.form import Form, InvalidSchemaError
from nbacp.form.cache import FormCache


def schema(*names: str, title: str = "Pick") -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "title": title, "enum": ["a", "b"]} for name in names},
    }


def test_the_same_schema_text_gives_the_same_form_as_parsing_it() -> None:
    cache = FormCache()
    first = cache.form(schema("x", "y"))
    again = cache.form(schema("x", "y"))  # a new dict with the same JSON text, as each request brings
    assert again is first and len(cache) == 1
    assert first == Form.from_schema(schema("x", "y"))
    assert cache.form(schema("x", "y", title="Other")) is not first


def test_property_order_is_part_of_the_key() -> None:
    cache = FormCache()
    assert [i.name for i in cache.form(schema("x", "y")).items] == ["x", "y"]
    assert [i.name for i in cache.form(schema("y", "x")).items] == ["y", "x"]
    assert len(cache) == 2


def test_a_deadline_is_kept_with_its_form() -> None:
    cache = FormCache()
    meta = {"codex": {"autoResolutionMs": 30_000}}
    timed = cache.form(schema("x"), meta)
    assert timed.deadline_ms == 30_000
    assert cache.form(schema("x")).deadline_ms is None
    assert cache.form(schema("x"), copy.deepcopy(meta)) is timed


def test_a_kept_form_is_parsed_from_its_own_copy() -> None:
    cache = FormCache()
    sent = schema("x")
    sent["properties"]["x"]["_meta"] = {"agent": {"note": "first"}}
    form = cache.form(sent)
    sent["properties"]["x"]["_meta"]["agent"]["note"] = "changed later"  # e.g. an in-process agent's object
    assert form.fields["x"].meta == {"agent": {"note": "first"}}
    assert Form.from_schema(sent).fields["x"].meta == {"agent": {"note": "changed later"}}


def test_a_refused_schema_is_refused_each_time_and_never_kept() -> None:
    cache = FormCache()
    bad = {"type": "object", "properties": {"x": {"type": "string", "enum": []}}}
    for _ in range(2):
        with pytest.raises(InvalidSchemaError):
            cache.form(bad)
    assert len(cache) == 0


def test_bounded_least_recently_used_first() -> None:
    cache = FormCache(size=2)
    a, b = cache.form(schema("a")), cache.form(schema("b"))
    assert cache.form(schema("a")) is a  # a is now the most recently used
    cache.form(schema("c"))
    assert len(cache) == 2
    assert cache.form(schema("a")) is a
    assert cache.form(schema("b")) is not b  # b went first, and was parsed again


def test_large_or_non_json_schemas_are_parsed_each_time() -> None:
    cache = FormCache(max_chars=200)
    big = schema(*(f"field_{i}" for i in range(20)))
    assert cache.form(big) is not cache.form(big) and len(cache) == 0
    odd: dict[str, Any] = {"type": "object", "properties": {"x": {"type": "string", "examples": {"a", "b"}}}}
    assert cache.form(odd).fields["x"].kind == "string" and len(cache) == 0  # a set is no JSON


def test_a_circular_schema_is_parsed_each_time() -> None:
    cache = FormCache()
    looped: dict[str, Any] = schema("x")
    looped["properties"]["x"]["_meta"] = {"self": looped}
    assert cache.form(looped).fields["x"].kind == "choice" and len(cache) == 0
