"""Fold each choice field's free-text companion into one question, as an *Other* or a *note*.

Agents mark the companion box in several ways; explicit ``_meta`` markers win over naming
conventions, each choice takes at most one companion, and a companion must be a plain string
field. The companion's *role* decides what a single-select sends:

- ``other``: an alternative answer; typed text replaces the pick (the seed rule).
- ``note``: text about the pick; both are sent. Only where the agent declares it: codex's
  ``_meta.codex.role = "user_note"`` (and its ``<id>_note`` name), and claude-agent-acp's
  single-select companion from release 0.78 on, recognised by the description that release
  gives it (it says the text is a note on the chosen option; earlier releases said the text
  is typed "instead of choosing").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from nbacp.form.fields import ChoiceField, CompanionRole, Field, FormItem, FormQuestion, StringField

NBACP_MARKER: Final = "nbacp/customFor"
LEGACY_MARKER: Final = "_askUserQuestionCustomAnswer"
NOTE_ROLE: Final = "user_note"
"""``_meta.codex.role`` of codex-acp's note box."""
NAME_SUFFIXES: Final = (("__other", "other"), ("_custom", "other"), ("_other", "other"), ("_note", "note"))
"""Longest first, so codex's older ``<id>__other`` pairs with ``<id>``, not with ``<id>_``."""
CLAUDE_NOTE_PHRASE: Final = "add a note to the option you chose"
"""From claude-agent-acp 0.78's single-select companion description, "Type your own answer, or
add a note to the option you chose above (optional).": that release keeps the pick and passes
the text as a note. Matched case-insensitively, ignoring punctuation around it."""


def _question_id(marker: Any) -> str | None:
    if (
        isinstance(marker, Mapping)
        and isinstance(marker.get("questionId"), str)
        and marker.get("isCustomAnswer", True) is not False
    ):
        return str(marker["questionId"])
    return None


def _codex_marker(field: Field) -> Mapping[str, Any] | None:
    codex = field.meta.get("codex")
    if isinstance(codex, Mapping) and isinstance(codex.get("questionId"), str):
        return codex
    return None


def marked_choice(field: Field) -> str | None:
    """The choice this field declares itself the companion of, by an explicit marker."""
    meta = field.meta
    own = meta.get(NBACP_MARKER)
    if isinstance(own, str):
        return own
    codex = _codex_marker(field)
    if codex is not None:
        return str(codex["questionId"])
    jetbrains = meta.get("jetbrains")
    air = jetbrains.get("air") if isinstance(jetbrains, Mapping) else None
    found = _question_id(air.get("customAnswer")) if isinstance(air, Mapping) else None
    return found or _question_id(meta.get(LEGACY_MARKER))


def _named(field: Field, choices: Mapping[str, ChoiceField]) -> tuple[str, CompanionRole] | None:
    for suffix, role in NAME_SUFFIXES:
        stem = field.name[: -len(suffix)]
        if field.name.endswith(suffix) and stem and stem in choices:
            return stem, role  # type: ignore[return-value]
    return None


def companion_role(field: StringField, choice: ChoiceField, *, named: CompanionRole | None) -> CompanionRole:
    """What the companion's text means next to a pick; see the module docstring."""
    codex = _codex_marker(field)
    if codex is not None:
        return "note" if codex.get("role") == NOTE_ROLE else "other"
    description = " ".join((field.description or "").lower().split())
    if not choice.multi and CLAUDE_NOTE_PHRASE in description:
        return "note"
    return named or "other"


def pair_questions(fields: Sequence[Field]) -> tuple[tuple[FormItem, ...], dict[str, str]]:
    """Return the form's items in schema order and the map companion name -> choice name."""
    choices = {f.name: f for f in fields if isinstance(f, ChoiceField)}
    companion_of: dict[str, str] = {}
    named_role: dict[str, CompanionRole] = {}
    taken: set[str] = set()
    candidates = [f for f in fields if isinstance(f, StringField)]
    for text in candidates:  # explicit markers first: they decide, even when they point nowhere usable
        target = marked_choice(text)
        if target in choices and target not in taken:
            companion_of[text.name] = target
            taken.add(target)
    for text in candidates:
        if text.name in companion_of or marked_choice(text) is not None:
            continue
        found = _named(text, choices)
        if found is not None and found[0] not in taken:
            companion_of[text.name] = found[0]
            named_role[text.name] = found[1]
            taken.add(found[0])
    by_choice = {choice: name for name, choice in companion_of.items()}
    by_name = {f.name: f for f in fields}
    items: list[FormItem] = []
    for field in fields:
        if field.name in companion_of:
            continue
        if isinstance(field, ChoiceField):
            custom = by_name.get(by_choice.get(field.name, ""))
            if isinstance(custom, StringField):
                role = companion_role(custom, field, named=named_role.get(custom.name))
                items.append(FormQuestion(choice=field, custom=custom, role=role))
            else:
                items.append(FormQuestion(choice=field))
        else:
            items.append(field)
    return tuple(items), companion_of
