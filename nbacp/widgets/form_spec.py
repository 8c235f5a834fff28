"""What the form card's front end is given, and how its draft is read back: pure functions.

``form_spec`` turns a parsed ``Form`` into the card's ``spec`` (plain JSON, agent text made
safe for display, never HTML); ``starting_draft`` is the draft its defaults give; and
``read_draft`` turns a draft, as the page holds it (numbers as the text typed, dates as ISO
text, picks as lists), into the values ``Form.validate`` / ``Form.content`` take. The field
kinds and draft shapes are the front-end contract of docs/cards.md ('The form card').
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nbacp.form import BooleanField, ChoiceField, Field, Form, FormQuestion, NumberField, StringField, UnsupportedField
from nbacp.render.page_text import PageText, page_safe
from nbacp.widgets.text import visible_controls

TEXTAREA_ABOVE = 200
"""A string whose maxLength is above this (or absent) gets a multi-line box."""

FORMAT_KINDS = {"date": "date", "date-time": "datetime", "email": "email", "uri": "url"}
BAD_INPUT_MESSAGES = {
    "number": "Not a number as typed: check the box.",
    "integer": "Not a whole number as typed: check the box.",
    "date": "Not a complete date: check the box.",
    "datetime": "Not a complete date and time: check the box.",
}


def shown(text: Any) -> Any:
    """Text the card shows (never values it sends back): safe Unicode, bidi marks and controls visible."""
    return page_safe(text) if isinstance(text, str) else text


def is_secret(field: Field) -> bool:
    """A secret string field is never synced (docs/agents.md, 'Secret questions and deadlines')."""
    return isinstance(field, StringField) and field.secret


class FormPage:
    """A form's property names and values as the page holds them, and the way back.

    Names share one table, each field's values have their own (two options of one choice must
    stay apart, a name and a value need not). Strings the page made up (typed text) go back as
    they are.
    """

    def __init__(self) -> None:
        self.names = PageText()
        self._values: dict[str, PageText] = {}

    def copy(self) -> FormPage:
        """The same names and values, in tables of its own (a card's typed text goes only to its own)."""
        page = FormPage()
        page.names = self.names.copy()
        page._values = {name: table.copy() for name, table in self._values.items()}
        return page

    def name(self, name: str) -> str:
        return self.names.page(name)

    def value(self, name: str, value: Any) -> Any:
        """A draft or option value of field ``name`` as the page holds it (lists item by item)."""
        if isinstance(value, str):
            return self._values.setdefault(name, PageText()).page(value)
        if isinstance(value, list):
            return [self.value(name, item) for item in value]
        return value

    def draft(self, draft: Mapping[str, Any]) -> dict[str, Any]:
        """A draft by original names and values, as the page holds it."""
        return {self.name(name): self.value(name, value) for name, value in draft.items()}

    def read(self, draft: Mapping[str, Any]) -> dict[str, Any]:
        """The page's draft with the original names and values back (a half-typed input stays as sent)."""
        out: dict[str, Any] = {}
        for key, value in draft.items():
            name = self.names.original(key) if isinstance(key, str) else key
            table = self._values.get(name)
            if table is not None and isinstance(value, str):
                value = table.original(value)
            elif table is not None and isinstance(value, list):
                value = [table.original(v) if isinstance(v, str) else v for v in value]
            out[name] = value
        return out

    def errors(self, errors: Mapping[str, list[str]]) -> dict[str, list[str]]:
        """Messages keyed by the page's names, their text safe to show (they may quote a value)."""
        return {
            (self.name(name) if name else name): [visible_controls(m) for m in messages]
            for name, messages in errors.items()
        }


def field_kind(field: Field) -> str:
    """The front end's input kind for a plain field (docs/cards.md, 'The form card')."""
    if isinstance(field, StringField):
        if is_secret(field):
            return "secret"
        if field.format in FORMAT_KINDS:
            return FORMAT_KINDS[field.format]
        long_text = field.max_length is None or field.max_length > TEXTAREA_ABOVE
        return "textarea" if long_text and field.format is None and field.pattern is None else "text"
    if isinstance(field, NumberField):
        return field.kind  # "integer" or "number": a number box with min/max/step, never a slider
    if isinstance(field, BooleanField):
        # a default gives a checkbox; no default: Yes / No with nothing chosen (no false invented)
        return "boolean" if isinstance(field.default, bool) else "tristate"
    return "unsupported"


def _bound(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else str(value)


def field_spec(field: Field, page: FormPage | None = None) -> dict[str, Any]:
    page = page or FormPage()
    kind = field_kind(field)
    spec: dict[str, Any] = {
        "name": page.name(field.name),
        "kind": kind,
        "title": shown(field.label),
        "description": shown(field.description),
        "required": field.required,
    }
    if isinstance(field, StringField):
        spec.update(min_length=field.min_length, max_length=field.max_length, warning=shown(field.pattern_warning))
    elif isinstance(field, NumberField):
        spec.update(min=field.minimum, max=field.maximum)
        if field.description is None and (field.minimum is not None or field.maximum is not None):
            what = "a whole number" if kind == "integer" else "a number"
            spec["placeholder"] = f"{what}, {_bound(field.minimum) or '−∞'} to {_bound(field.maximum) or '∞'}"
    elif isinstance(field, UnsupportedField):
        spec["note"] = visible_controls(f"{field.name}: unsupported field type {field.type_name}")
    return spec


def companion_spec(question: FormQuestion, page: FormPage | None = None) -> dict[str, Any]:
    """The text box's label says what its text does (replace the pick, annotate it, or add to the
    picks), in one line (docs/design.md, 'Answer composition'). The agent's own words for an
    Other box go inside it, as its placeholder, not as more lines saying the same; a note box
    keeps the agent's name for it (codex's "Additional answer or note") under its label."""
    custom = question.custom
    assert custom is not None
    page = page or FormPage()
    agent_words = custom.description or (custom.title if custom.title not in (None, "Other") else None)
    description: str | None = None
    if question.is_note and not question.multi:
        mode, title, placeholder = "note", "Note on your choice", "Add a note (optional)"
        description = agent_words
    elif question.exclusive and question.choice.options:
        mode, title, placeholder = "other", "Other (replaces your choice)", agent_words or "Type your own answer"
    else:
        mode, title, placeholder = "add", custom.title or "Other", custom.description or "Type your own answer"
    if custom.pattern_warning:  # the box's pattern cannot be checked: say so where the box is
        description = f"{description} ⚠ {custom.pattern_warning}" if description else f"⚠ {custom.pattern_warning}"
    return {
        "name": page.name(custom.name),
        "title": shown(title),
        "description": shown(description),
        "placeholder": shown(placeholder),
        "mode": mode,
    }


def question_spec(question: FormQuestion, page: FormPage | None = None, *, lone: bool = False) -> dict[str, Any]:
    """One choice question. An untitled question that is the form's only item gets no title: the
    message above it already asks it, and a heading made from the property name would only add noise."""
    page = page or FormPage()
    choice, custom = question.choice, question.custom
    return {
        "name": page.name(choice.name),
        "kind": "choice",
        "title": shown(choice.title if lone else choice.label),
        "description": shown(choice.description),
        "required": question.required,
        "multi": choice.multi,
        "options": [
            # an untitled value is its own label: shown as its page string, so two values that
            # read alike once cleaned are still told apart ("opt � one", "opt � one (2)")
            {
                "value": page.value(choice.name, o.value),
                "label": page.value(choice.name, o.value) if o.label == o.value else shown(o.label),
                "description": shown(o.description),
                "preview": shown(o.preview),
                "recommended": o.recommended,
            }
            for o in choice.options
        ],
        "custom": None if custom is None else companion_spec(question, page),
        "min_items": choice.min_items,
        "max_items": choice.max_items,
    }


def fields_spec(form: Form, page: FormPage | None = None) -> list[dict[str, Any]]:
    """Every item's spec; ``page``: the card's names and values table (a new one if not given)."""
    page = page or FormPage()
    lone = len(form.items) == 1
    return [
        question_spec(item, page, lone=lone) if isinstance(item, FormQuestion) else field_spec(item, page)
        for item in form.items
    ]


def draft_value(field: Field, value: Any) -> Any:
    """``value`` as the page would hold it in the draft (a Python-side fill or a default)."""
    if isinstance(field, ChoiceField):
        return list(value) if isinstance(value, list | tuple) else ([value] if isinstance(value, str) else [])
    if isinstance(field, BooleanField):
        return value if isinstance(value, bool) else None
    if value is None:
        return ""
    if isinstance(field, NumberField) and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def starting_draft(form: Form) -> dict[str, Any]:
    """The draft the card opens with: the form's defaults (secrets never: they are not synced)."""
    draft: dict[str, Any] = {}
    defaults = form.defaults()
    for name, field in form.fields.items():
        if isinstance(field, UnsupportedField) or is_secret(field):
            continue
        draft[name] = draft_value(field, defaults.get(name))
    return draft


def parse_number(text: str, *, integer: bool) -> Any:
    """The number in ``text``; None when blank; the text itself when it is no number (the validator says so)."""
    text = text.strip()
    if text == "":
        return None
    try:
        return int(text) if integer else float(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def read_draft(form: Form, draft: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The values a draft stands for (None = left empty), and messages for input the browser could
    not read (a half-typed date): those are never sent as empty (docs/cards.md, 'The form card')."""
    values: dict[str, Any] = {}
    problems: dict[str, list[str]] = {}
    for name, field in form.fields.items():
        if isinstance(field, UnsupportedField):
            continue
        value = draft.get(name)
        if isinstance(value, dict) and value.get("bad_input"):
            problems[name] = [BAD_INPUT_MESSAGES.get(field_kind(field), "Not readable as typed: check the box.")]
            values[name] = None
            continue
        if isinstance(field, ChoiceField):
            picks = value if isinstance(value, list) else ([] if value in (None, "") else [value])
            values[name] = picks if field.multi else (picks[0] if len(picks) == 1 else (picks or None))
        elif isinstance(field, NumberField):
            values[name] = parse_number(value, integer=field.kind == "integer") if isinstance(value, str) else value
        elif isinstance(field, StringField):
            values[name] = None if value == "" else value
        else:
            values[name] = value
    return values, problems
