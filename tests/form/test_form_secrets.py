"""Secret answers and deadlines in the pure form model (docs/agents.md, 'Secret questions and deadlines')."""

from __future__ import annotations

from typing import Any

import pytest

from nbacp.form import Form, StringField, redacted


def codex_secret_schema() -> dict[str, Any]:
    """What codex-acp 2.6.0 sends for request_user_input with one secret free-text question."""
    return {
        "type": "object",
        "required": ["token"],
        "properties": {
            "token": {
                "type": "string",
                "title": "Your deploy token",
                "description": "Token",
                "_meta": {"codex": {"isOther": False, "isSecret": True}},
            },
            "region": {"type": "string", "title": "Region", "_meta": {"codex": {"isOther": False, "isSecret": False}}},
        },
    }


@pytest.mark.parametrize(
    "marker",
    [
        {"_meta": {"codex": {"isSecret": True}}},
        {"writeOnly": True},
        {"format": "password"},
    ],
)
def test_each_known_marker_makes_a_secret_string(marker: dict[str, Any]) -> None:
    form = Form.from_schema({"type": "object", "properties": {"k": {"type": "string", **marker}}})
    field = form.fields["k"]
    assert isinstance(field, StringField) and field.secret
    assert form.secrets == {"k"}


@pytest.mark.parametrize(
    "marker",
    [
        {},
        {"_meta": {"codex": {"isSecret": False}}},
        {"_meta": {"codex": {"isSecret": "yes"}}},
        {"writeOnly": "true"},
        {"format": "email"},
    ],
)
def test_no_marker_no_secret(marker: dict[str, Any]) -> None:
    form = Form.from_schema({"type": "object", "properties": {"k": {"type": "string", **marker}}})
    assert not form.fields["k"].secret and form.secrets == frozenset()


def test_shown_content_redacts_only_secrets() -> None:
    form = Form.from_schema(codex_secret_schema())
    content = form.content({"token": "hunter2-abc", "region": "eu"})
    assert content == {"token": "hunter2-abc", "region": "eu"}  # the agent gets the value
    assert form.shown(content) == {"token": "(secret, 11 characters)", "region": "eu"}
    assert redacted("x") == "(secret, 1 character)"
    assert "hunter2" not in repr(form)


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        ({"codex": {"autoResolutionMs": 30000}}, 30000),
        ({"codex": {"autoResolutionMs": 1500.7}}, 1500),
        ({"codex": {"autoResolutionMs": None}}, None),  # codex waits for the person
        ({"codex": {"autoResolutionMs": -5}}, None),
        ({"codex": {"autoResolutionMs": True}}, None),
        ({"codex": {"autoResolutionMs": float("inf")}}, None),
        ({"codex": "x"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_deadline_from_codex_meta(meta: Any, expected: int | None) -> None:
    assert Form.from_schema(codex_secret_schema(), meta).deadline_ms == expected
