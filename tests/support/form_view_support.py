"""Schemas and widget-tree helpers shared by the ElicitationForm tests (``walk`` is comm_support's)."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
from support.comm_support import walk

from nbacp.widgets.choice_card import ChoiceCard
from nbacp.widgets.form_card import ElicitationForm

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
            "size": {"type": "string", "title": "Size", "oneOf": [{"const": "s", "title": "Small"},
                                                                  {"const": "l", "title": "Large"}]},
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


def labels(view: ElicitationForm) -> list[str]:
    return [w.value for w in walk(view) if isinstance(w, widgets.Label)]


def cards(view: ElicitationForm) -> list[ChoiceCard]:
    return [w for w in walk(view) if isinstance(w, ChoiceCard)]


def card(view: ElicitationForm, name: str) -> ChoiceCard:
    found = view.widget_for(name)
    assert isinstance(found, ChoiceCard)
    return found
