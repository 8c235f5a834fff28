"""Fold each choice field's free-text companion into one question.

Agents mark the "Other" box in several ways; explicit markers win over naming conventions,
each choice takes at most one companion, and a companion must be a plain string field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nbacp.form.fields import ChoiceField, Field, FormItem, Question, StringField

NBACP_MARKER = "nbacp/customFor"
LEGACY_MARKER = "_askUserQuestionCustomAnswer"
NAME_SUFFIXES = ("_custom", "_other")


def _question_id(marker: Any) -> str | None:
    if (
        isinstance(marker, Mapping)
        and isinstance(marker.get("questionId"), str)
        and marker.get("isCustomAnswer", True) is not False
    ):
        return str(marker["questionId"])
    return None


def marked_choice(field: Field) -> str | None:
    """The choice this field declares itself the custom answer of, by an explicit marker."""
    meta = field.meta
    own = meta.get(NBACP_MARKER)
    if isinstance(own, str):
        return own
    jetbrains = meta.get("jetbrains")
    air = jetbrains.get("air") if isinstance(jetbrains, Mapping) else None
    found = _question_id(air.get("customAnswer")) if isinstance(air, Mapping) else None
    return found or _question_id(meta.get(LEGACY_MARKER))


def _named_choice(field: Field) -> str | None:
    for suffix in NAME_SUFFIXES:
        if field.name.endswith(suffix) and len(field.name) > len(suffix):
            return field.name[: -len(suffix)]
    return None


def _is_companion_shape(field: Field) -> bool:
    return isinstance(field, StringField)


def pair_questions(fields: Sequence[Field]) -> tuple[tuple[FormItem, ...], dict[str, str]]:
    """Return the form's items in schema order and the map companion name -> choice name."""
    choices = {f.name: f for f in fields if isinstance(f, ChoiceField)}
    companion_of: dict[str, str] = {}
    taken: set[str] = set()
    candidates = [f for f in fields if _is_companion_shape(f)]
    for finder in (marked_choice, _named_choice):
        for field in candidates:
            if field.name in companion_of:
                continue
            if finder is _named_choice and marked_choice(field) is not None:
                continue  # an explicit marker decides, even when it points nowhere usable
            target = finder(field)
            if target in choices and target not in taken:
                companion_of[field.name] = target
                taken.add(target)
    by_choice = {choice: name for name, choice in companion_of.items()}
    by_name = {f.name: f for f in fields}
    items: list[FormItem] = []
    for field in fields:
        if field.name in companion_of:
            continue
        if isinstance(field, ChoiceField):
            custom = by_name.get(by_choice.get(field.name, ""))
            items.append(Question(choice=field, custom=custom if isinstance(custom, StringField) else None))
        else:
            items.append(field)
    return tuple(items), companion_of
