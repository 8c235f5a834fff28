"""The parsed form: one immutable field per schema property, plus questions that fold an Other box.

Everything here is plain data so that the widget layer can render it and the validator can
check drafts without either knowing the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

FieldKind = Literal["string", "number", "integer", "boolean", "choice", "unsupported"]
CompanionRole = Literal["other", "note"]
"""What a choice's text box means: ``other`` replaces a single-select's pick, ``note`` is sent with it."""


@dataclass(frozen=True)
class ChoiceOption:
    """One offered choice. ``value`` goes on the wire; ``label`` is what a person reads."""

    value: str
    label: str
    title: str
    description: str | None = None
    preview: str | None = None
    recommended: bool = False

    def matches(self, label: str) -> bool:
        """Match what a person would type or click: the shown label or the agent's full title."""
        return label in (self.label, self.title)


@dataclass(frozen=True)
class Field:
    name: str
    kind: FieldKind
    title: str | None = None
    description: str | None = None
    required: bool = False
    default: Any = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    secret: bool = False
    """The agent marked the answer secret (docs/agents.md, 'Secret questions and deadlines'): a masked
    input for text, and the value goes to the agent only; everything else shows ``redacted(value)``."""

    @property
    def label(self) -> str:
        return self.title or self.name


@dataclass(frozen=True)
class StringField(Field):
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    format: str | None = None
    pattern_warning: str | None = None
    """Set when the agent's pattern cannot be checked: the field then accepts any text, and says so."""


@dataclass(frozen=True)
class NumberField(Field):
    """``kind`` is "integer" or "number"; bounds are inclusive."""

    minimum: float | None = None
    maximum: float | None = None


@dataclass(frozen=True)
class BooleanField(Field):
    pass


@dataclass(frozen=True)
class ChoiceField(Field):
    options: tuple[ChoiceOption, ...] = ()
    multi: bool = False
    min_items: int | None = None
    max_items: int | None = None

    def option(self, value: str) -> ChoiceOption | None:
        return self._by_value.get(value) if isinstance(value, str) else None

    def option_by_label(self, label: str) -> ChoiceOption | None:
        """The first option whose label or title is ``label`` (what a person clicks or types)."""
        return self._by_label.get(label) if isinstance(label, str) else None

    # Looked up per pick, per check and per summary line of every card of the form: made once.
    @cached_property
    def _by_value(self) -> dict[str, ChoiceOption]:
        by_value: dict[str, ChoiceOption] = {}
        for option in self.options:
            by_value.setdefault(option.value, option)
        return by_value

    @cached_property
    def _by_label(self) -> dict[str, ChoiceOption]:
        by_label: dict[str, ChoiceOption] = {}
        for option in self.options:
            by_label.setdefault(option.label, option)
            by_label.setdefault(option.title, option)
        return by_label


@dataclass(frozen=True)
class UnsupportedField(Field):
    """A property type this client does not know (``_``-prefixed extension or a future type).

    It is kept so that nothing the agent sent is lost from view, but it is never edited
    and never appears in content.
    """

    type_name: str = ""
    schema: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class FormQuestion:
    """A choice field and, optionally, the free-text companion folded into it.

    ``role`` says what the companion's text means on a single-select: ``"other"`` (the text
    is the answer instead of the pick) or ``"note"`` (the text annotates the pick; both are
    sent). Multi-selects send picks and text together either way.
    """

    choice: ChoiceField
    custom: StringField | None = None
    role: CompanionRole = "other"

    @property
    def is_note(self) -> bool:
        return self.custom is not None and self.role == "note"

    @property
    def exclusive(self) -> bool:
        """Typed text replaces the pick: a single-select whose companion is an Other box."""
        return self.custom is not None and not self.choice.multi and self.role == "other"

    @property
    def name(self) -> str:
        return self.choice.name

    @property
    def multi(self) -> bool:
        return self.choice.multi

    @property
    def required(self) -> bool:
        return self.choice.required or (self.custom is not None and self.custom.required)


FormItem = Field | FormQuestion


def redacted(value: Any) -> str:
    """What records, summaries, logs and reprs show instead of a secret answer."""
    size = len(value) if isinstance(value, str) else len(str(value))
    return f"(secret, {size} character{'' if size == 1 else 's'})"
