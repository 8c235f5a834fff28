"""The Form: parse once, then validate drafts and compose wire content by the answer rule.

Composition (docs/design.md, 'Answer composition'): a multi-select question may send its picks AND
its trimmed custom text; a single-select or optionless question with an *Other* box is
exclusive, so non-empty custom text overrides the pick and only the custom property is sent.
A *note* box (declared by the agent, see ``pairing``) annotates the pick: both are sent.

Each validation is one pass of the pattern budget (``patterns.PatternPass``): all of a
form's agent patterns share one time bound per keystroke or Accept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from nbacp.errors import FormValidationError
from nbacp.form.checks import ABSENT, check_custom, check_field, check_picks
from nbacp.form.fields import ChoiceField, Field, FormItem, FormQuestion, StringField, UnsupportedField, redacted
from nbacp.form.pairing import pair_questions
from nbacp.form.parse import deadline_ms, parse_schema
from nbacp.form.patterns import PatternPass

WireValue = str | int | float | bool | list[str]


@dataclass(frozen=True)
class Form:
    """An elicitation form read from the agent's ``requestedSchema``."""

    fields: dict[str, Field]
    items: tuple[FormItem, ...]
    companions: dict[str, str]
    title: str | None = None
    description: str | None = None
    deadline_ms: int | None = None
    """When the agent withdraws the question unanswered, in ms after it asked (None: it waits)."""

    @classmethod
    def from_schema(cls, schema: Any, meta: Mapping[str, Any] | None = None) -> Form:
        """Parse an ``acp.schema.ElicitationSchema`` or a plain dict; raises InvalidSchemaError.

        ``meta`` is the request's ``_meta`` (a deadline: ``deadline_ms``).
        """
        raw, fields = parse_schema(schema)
        items, companions = pair_questions(fields)
        title = raw.get("title")
        description = raw.get("description")
        return cls(
            fields={f.name: f for f in fields},
            items=items,
            companions=companions,
            title=title if isinstance(title, str) else None,
            description=description if isinstance(description, str) else None,
            deadline_ms=deadline_ms(meta),
        )

    # -- shape ------------------------------------------------------------------------
    # Worked out once per form (the fields never change): a client asks one form's questions
    # of every card made from it, and one form serves every request with its schema
    # (nbacp.form.cache).
    @cached_property
    def questions(self) -> tuple[FormQuestion, ...]:
        return tuple(item for item in self.items if isinstance(item, FormQuestion))

    def question(self, name: str) -> FormQuestion | None:
        """The question that a choice or its companion belongs to."""
        name = self.companions.get(name, name)
        return next((q for q in self.questions if q.name == name), None)

    @cached_property
    def unsupported(self) -> tuple[UnsupportedField, ...]:
        return tuple(f for f in self.fields.values() if isinstance(f, UnsupportedField))

    @property
    def warnings(self) -> dict[str, list[str]]:
        """Things the person should know that do not block an answer (a pattern that cannot be checked)."""
        return {
            f.name: [f.pattern_warning]
            for f in self.fields.values()
            if isinstance(f, StringField) and f.pattern_warning is not None
        }

    @cached_property
    def secrets(self) -> frozenset[str]:
        """The names of the fields whose answers are secret."""
        return frozenset(n for n, f in self.fields.items() if f.secret)

    def shown(self, content: Mapping[str, Any]) -> dict[str, Any]:
        """``content`` with every secret answer replaced by ``redacted(value)``: what may be kept or shown."""
        secrets = self.secrets
        if not secrets:
            return dict(content)
        return {k: redacted(v) if k in secrets else v for k, v in content.items()}

    @cached_property
    def can_accept(self) -> bool:
        """False when a required field cannot be answered here: only decline or cancel remain."""
        return not any(f.required for f in self.unsupported)

    def defaults(self) -> dict[str, Any]:
        """The starting draft: every sanitized default, nothing else."""
        return {name: f.default for name, f in self.fields.items() if f.default is not None}

    # -- answers ----------------------------------------------------------------------
    def validate(self, values: Mapping[str, Any]) -> dict[str, list[str]]:
        """Every message for every field at once; ``{}`` when the draft can be sent."""
        return self._compose(values)[1]

    def content(self, values: Mapping[str, Any]) -> dict[str, WireValue]:
        """The wire content for ``values``; raises FormValidationError with ``.errors``."""
        content, errors = self._compose(values)
        if errors:
            raise FormValidationError(errors)
        return content

    def check(self, values: Mapping[str, Any]) -> tuple[dict[str, WireValue], dict[str, list[str]]]:
        """``(content(values), validate(values))`` in one pass: the content counts only when there
        are no messages (an Accept validates and composes what it sends at once)."""
        return self._compose(values)

    def _compose(self, values: Mapping[str, Any]) -> tuple[dict[str, WireValue], dict[str, list[str]]]:
        if not isinstance(values, Mapping):
            return {}, {"": [f"The answer must be a mapping of field name to value, not {type(values).__name__}."]}
        content: dict[str, WireValue] = {}
        errors: dict[str, list[str]] = {}
        patterns = PatternPass()

        def add(name: str, messages: list[str]) -> None:
            if messages:
                errors.setdefault(name, []).extend(messages)

        for key in values:
            if key not in self.fields:
                add(str(key), [f"{key!r} is not a field of this form."])
        for item in self.items:
            if isinstance(item, FormQuestion):
                self._compose_question(item, values, content, add, patterns)
                continue
            value, messages = check_field(item, values.get(item.name), patterns)
            add(item.name, messages)
            if value is ABSENT:
                if item.required and not messages:
                    add(item.name, [_required_message(item)])
            else:
                content[item.name] = value
        return content, errors

    def _compose_question(
        self,
        question: FormQuestion,
        values: Mapping[str, Any],
        content: dict[str, WireValue],
        add: Any,
        patterns: PatternPass,
    ) -> None:
        choice = question.choice
        picks, pick_errors = check_picks(choice, values.get(choice.name))
        add(choice.name, pick_errors)
        custom: Any = ABSENT
        if question.custom is not None:
            custom, custom_errors = check_custom(question.custom, values.get(question.custom.name), patterns)
            add(question.custom.name, custom_errors)
        has_custom = custom is not ABSENT
        if not picks and not has_custom:
            if question.required and not pick_errors:
                own_answer = question.custom is not None and not question.is_note  # a note alone is no answer
                add(choice.name, [_required_message(choice, with_custom=own_answer)])
            return
        if has_custom and question.is_note and not picks and choice.required and not pick_errors:
            add(choice.name, ["Pick an option: the note is sent with your choice, not instead of it."])
            return
        if has_custom:
            content[question.custom.name] = custom  # type: ignore[union-attr]
            if question.exclusive:
                return  # exclusive: the typed answer overrides the pick
        if picks:
            content[choice.name] = picks if choice.multi else picks[0]


def _required_message(field: Field, *, with_custom: bool = False) -> str:
    if isinstance(field, ChoiceField):
        if with_custom:
            return "An answer is required: pick an option or type your own."
        return "Pick at least one option." if field.multi else "Pick an option."
    return "This field is required."
