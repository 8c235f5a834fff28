"""Schemas and spec helpers shared by the form card tests (the card is one model: docs/cards.md)."""

from __future__ import annotations

from typing import Any

from nbacp.widgets.form_card import FormCard

COLORS = [{"const": v, "title": v.title()} for v in ("alpha", "beta", "gamma")]


def multi_other(required: bool = False) -> dict[str, Any]:
    """claude-agent-acp's shape: question_0 (multi) + question_0_custom."""
    return {
        "type": "object",
        "properties": {
            "question_0": {"type": "array", "title": "Color", "items": {"anyOf": COLORS}},
            "question_0_custom": {"type": "string", "title": "Other"},
        },
        "required": ["question_0"] if required else [],
    }


def single_other() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "size": {
                "type": "string",
                "title": "Size",
                "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
            },
            "size_other": {"type": "string", "title": "Other size"},
        },
    }


def every_field() -> dict[str, Any]:
    """One property of every kind the form renders."""
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "maxLength": 40, "description": "Your full name"},
            "notes": {"type": "string", "title": "Notes"},
            "email": {"type": "string", "format": "email", "title": "Email"},
            "site": {"type": "string", "format": "uri"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 500},
            "day": {"type": "string", "format": "date", "default": "2024-05-06"},
            "when": {"type": "string", "format": "date-time"},
            "count": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
            "port": {"type": "integer", "minimum": 1, "maximum": 65535, "default": 8080},
            "ratio": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5},
            "big": {"type": "integer", "default": 7},
            "temp": {"type": "number", "default": 1.5},
            "age": {"type": "integer", "minimum": 0, "maximum": 150, "title": "Age"},
            "verbose": {"type": "boolean", "default": True, "title": "Verbose"},
            "agree": {"type": "boolean", "title": "Agree"},
            "mode": {"type": "string", "enum": ["fast", "slow"], "default": "slow"},
            "blob": {"type": "object", "title": "Blob"},
        },
        "required": ["name", "agree"],
    }


def field(view: FormCard, name: str) -> dict[str, Any]:
    """The spec the page renders for field (or choice question) ``name``."""
    found = [f for f in view.spec["fields"] if f["name"] == name]
    assert len(found) == 1, f"{name} not in {[f['name'] for f in view.spec['fields']]}"
    return found[0]


def kinds(view: FormCard) -> dict[str, str]:
    return {f["name"]: f["kind"] for f in view.spec["fields"]}


def texts(view: FormCard) -> list[str]:
    """Every text the page is given to show (header, message, notes, titles, descriptions, warnings)."""
    spec = view.spec
    out = [spec.get("header", ""), spec.get("message", ""), *spec.get("notes", [])]
    for f in spec.get("fields", []):
        out += [f.get(k) or "" for k in ("title", "description", "warning", "note", "placeholder")]
        if f.get("custom"):
            out += [f["custom"].get(k) or "" for k in ("title", "description", "placeholder")]
    return [t for t in out if t]
