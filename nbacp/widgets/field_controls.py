"""One editable control per plain form field, each reading back the value a person gave.

Rules that keep the draft honest (``never send a value the person did not give``):
- An optional number without a default is a Text parsed as a number, because IntText and
  FloatText cannot be empty. Numbers with a default use (Bounded)IntText/FloatText, or an
  IntSlider when both bounds exist and the range is at most 20 steps.
- A boolean without a default is a three-way "— / Yes / No" toggle starting at "—" (nothing
  sent); a boolean with a default is a Checkbox.
- Strings: a Textarea when ``maxLength`` is absent or above 200 (free text may need lines),
  otherwise, or when a ``format`` or ``pattern`` is set, a single-line Text. ``date`` is a
  DatePicker, ``date-time`` a timezone-aware DatetimePicker (sent as RFC 3339 with offset).

Agent text only ever goes into Label values (``nbacp.widgets.text.text_label``: text nodes, no
math typesetting) and placeholders (input attributes).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from nbacp.form import BooleanField, Field, NumberField, StringField, UnsupportedField
from nbacp.widgets import shared
from nbacp.widgets.text import safe_text, text_label

TEXTAREA_ABOVE = 200
"""A string whose maxLength is above this (or absent) gets a multi-line box."""

SLIDER_MAX_STEPS = 20

_UNSET = "unset"


def title_text(field: Field) -> str:
    return f"{field.label} *" if field.required else field.label


class ErrorList(widgets.VBox):  # type: ignore[misc]
    """The validation messages shown under one field (or the whole form)."""

    children: Any

    def __init__(self) -> None:
        super().__init__(layout=shared.layout(), _dom_classes=("nbacp-errors",))
        self.messages: list[str] = []

    def show(self, messages: list[str]) -> None:
        if messages == self.messages:
            return
        self.messages = list(messages)
        old = list(self.children)
        self.children = [text_label(m, "nbacp-error", style=shared.error_label_style()) for m in messages]
        shared.close_tree(old)


def show_errors_in(box: widgets.Box, errors: ErrorList | None, messages: list[str],
                   before: widgets.Widget | None = None) -> ErrorList | None:
    """Show ``messages`` in ``errors``, made and put into ``box`` (before ``before``) only when first needed.

    Most fields never show an error: a pending card carries no empty error box per field.
    """
    if errors is None:
        if not messages:
            return None
        errors = ErrorList()
        children = list(box.children)
        at = children.index(before) if before is not None and before in children else len(children)
        box.children = (*children[:at], errors, *children[at:])
    errors.show(messages)
    return errors


class FieldControl:
    """The row of one plain field: title, input, description and its error messages."""

    def __init__(self, field: Field, widget: widgets.Widget, *, titled: bool = True) -> None:
        self.field = field
        self.widget = widget
        self.errors: ErrorList | None = None  # made at the first message
        rows: list[widgets.Widget] = []
        if titled:
            rows.append(text_label(title_text(field), "nbacp-field-title", bold=True))
        rows.append(widget)
        if field.description:
            rows.append(text_label(field.description, "nbacp-field-description"))
        warning = getattr(field, "pattern_warning", None)  # a pattern the engine cannot check
        if warning:
            rows.append(text_label(f"⚠ {warning}", "nbacp-field-warning"))
        self.box = widgets.VBox(rows, layout=shared.layout(), _dom_classes=("nbacp-field",))

    @property
    def names(self) -> tuple[str, ...]:
        return (self.field.name,)

    def read(self) -> Any:
        """The draft value, None when left empty."""
        return self.widget.value

    def write(self, value: Any) -> None:
        """Set the value as the front end would (the same trait)."""
        self.widget.value = value

    def observe(self, callback: Callable[[], None]) -> None:
        self.widget.observe(lambda _change: callback(), names="value")

    def show_errors(self, errors: dict[str, list[str]]) -> None:
        self.errors = show_errors_in(self.box, self.errors, errors.get(self.field.name, []))


class TextControl(FieldControl):
    def read(self) -> Any:
        value = self.widget.value
        return value if value != "" else None

    def write(self, value: Any) -> None:
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise ValueError(f"{self.field.name!r} takes text, not {type(value).__name__}.")
        self.widget.value = value


class _IsoControl(FieldControl):
    """A date or datetime picker: read as ISO 8601 text, the form the schema's ``format`` asks for."""

    def read(self) -> Any:
        value = self.widget.value
        return value.isoformat() if value is not None else None


class DateControl(_IsoControl):
    def write(self, value: Any) -> None:
        if isinstance(value, str):
            value = _parse_date(value)
            if value is None:
                raise ValueError(f"{self.field.name!r} takes a date (YYYY-MM-DD).")
        if value is not None and not isinstance(value, dt.date):
            raise ValueError(f"{self.field.name!r} takes a date, not {type(value).__name__}.")
        if isinstance(value, dt.datetime):
            value = value.date()
        self.widget.value = value


class DatetimeControl(_IsoControl):
    def write(self, value: Any) -> None:
        if isinstance(value, str):
            value = _parse_datetime(value)
            if value is None:
                raise ValueError(f"{self.field.name!r} takes a date and time with an offset (RFC 3339).")
        if value is not None and (not isinstance(value, dt.datetime) or value.tzinfo is None):
            raise ValueError(f"{self.field.name!r} takes a timezone-aware datetime.")
        self.widget.value = value


class NumberTextControl(TextControl):
    """A number typed as text so that it can stay empty; parsed when read."""

    def read(self) -> Any:
        return parse_number(str(self.widget.value), integer=self.field.kind == "integer")

    def write(self, value: Any) -> None:
        if isinstance(value, bool):
            raise ValueError(f"{self.field.name!r} takes a number, not a bool.")
        if isinstance(value, int | float):
            value = str(value)
        super().write(value)


class NumberControl(FieldControl):
    """IntText / FloatText / IntSlider: always holds a number (only used when a default exists)."""

    def write(self, value: Any) -> None:
        if isinstance(value, str):
            value = parse_number(value, integer=self.field.kind == "integer")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{self.field.name!r} takes a number.")
        if self.field.kind == "integer":
            if isinstance(value, float) and not value.is_integer():
                raise ValueError(f"{self.field.name!r} takes a whole number, not {value!r}.")
            value = int(value)
        # The widgets would clamp (or truncate) silently; a value nobody gave must not be sent.
        low, high = getattr(self.widget, "min", None), getattr(self.widget, "max", None)
        if (low is not None and value < low) or (high is not None and value > high):
            raise ValueError(f"{self.field.name!r} takes a number from {_bound(low, '')} to {_bound(high, '')}.")
        self.widget.value = value


class CheckboxControl(FieldControl):
    def write(self, value: Any) -> None:
        if not isinstance(value, bool):
            raise ValueError(f"{self.field.name!r} takes True or False (it has a default).")
        self.widget.value = value


class TriStateControl(FieldControl):
    """A boolean with no default: "—" sends nothing, so no ``false`` is invented."""

    def read(self) -> Any:
        value = self.widget.value
        return None if value == _UNSET else value == "yes"

    def write(self, value: Any) -> None:
        if value is not None and not isinstance(value, bool):
            raise ValueError(f"{self.field.name!r} takes True, False or None.")
        self.widget.value = _UNSET if value is None else ("yes" if value else "no")


class UnsupportedControl(FieldControl):
    def read(self) -> Any:
        return None

    def write(self, value: Any) -> None:
        field = self.field
        assert isinstance(field, UnsupportedField)
        raise ValueError(f"{field.name!r} has the unsupported type {field.type_name!r}; it cannot be filled.")

    def observe(self, callback: Callable[[], None]) -> None:
        pass


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


def _parse_date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _parse_datetime(text: str) -> dt.datetime | None:
    try:
        value = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return value if value.tzinfo is not None else None


def _look(cls: type[widgets.Widget], **traits: Any) -> dict[str, Any]:
    """Shared layout and style for a control of ``cls`` (no per-control models for the default look)."""
    look: dict[str, Any] = {"layout": shared.layout()}
    style_cls = cls.class_traits().get("style")
    if style_cls is not None:
        look["style"] = shared.style(style_cls.klass)
    look.update(traits)
    return look


def string_control(field: StringField) -> FieldControl:
    placeholder = safe_text(field.description or "")
    if field.format == "date":
        picker = widgets.DatePicker(value=_parse_date(field.default) if field.default else None,
                                    **_look(widgets.DatePicker))
        return DateControl(field, picker)
    if field.format == "date-time":
        start = _parse_datetime(field.default) if field.default else None
        return DatetimeControl(field, widgets.DatetimePicker(value=start, **_look(widgets.DatetimePicker)))
    value = field.default if isinstance(field.default, str) else ""
    if field.secret:  # masked (docs/agents.md, 'Secret questions and deadlines')
        return TextControl(field, widgets.Password(value=value, placeholder=placeholder,
                                                   **_look(widgets.Password, layout=shared.wide())))
    long_text = field.max_length is None or field.max_length > TEXTAREA_ABOVE
    if long_text and field.format is None and field.pattern is None:
        box: widgets.Widget = widgets.Textarea(value=value, placeholder=placeholder, rows=3,
                                               **_look(widgets.Textarea, layout=shared.wide()))
    else:
        box = widgets.Text(value=value, placeholder=placeholder, **_look(widgets.Text, layout=shared.wide()))
    return TextControl(field, box)


def number_control(field: NumberField) -> FieldControl:
    integer = field.kind == "integer"
    low, high = field.minimum, field.maximum
    if field.default is None:
        hint = "a whole number" if integer else "a number"
        if low is not None or high is not None:
            hint += f" ({_bound(low, '−∞')} to {_bound(high, '∞')})"
        return NumberTextControl(field, widgets.Text(value="", placeholder=safe_text(field.description or hint),
                                                     **_look(widgets.Text)))
    if integer and low is not None and high is not None:
        lo, hi = math.ceil(low), math.floor(high)
        if 0 < hi - lo <= SLIDER_MAX_STEPS:
            return NumberControl(field, widgets.IntSlider(value=int(field.default), min=lo, max=hi, step=1,
                                                                   **_look(widgets.IntSlider)))
        if lo <= hi:
            return NumberControl(field, widgets.BoundedIntText(value=int(field.default), min=lo, max=hi,
                                                                        **_look(widgets.BoundedIntText)))
    if not integer and low is not None and high is not None:
        return NumberControl(field, widgets.BoundedFloatText(value=float(field.default), min=low, max=high,
                                                             step=None, **_look(widgets.BoundedFloatText)))
    if integer:
        return NumberControl(field, widgets.IntText(value=int(field.default), **_look(widgets.IntText)))
    return NumberControl(field, widgets.FloatText(value=float(field.default), **_look(widgets.FloatText)))


def _bound(value: float | None, missing: str) -> str:
    if value is None:
        return missing
    return str(int(value)) if float(value).is_integer() else str(value)


def boolean_control(field: BooleanField) -> FieldControl:
    if isinstance(field.default, bool):
        # The title stays a Label: a Checkbox description may be typeset as math.
        box = widgets.Checkbox(value=field.default, indent=False,
                               **_look(widgets.Checkbox, layout=shared.auto_width()))
        return CheckboxControl(field, box)
    toggle_style = shared.style(widgets.ToggleButtonsStyle, "4em", button_width="4em")
    toggle = widgets.ToggleButtons(options=[("—", _UNSET), ("Yes", "yes"), ("No", "no")], value=_UNSET,
                                   tooltips=["Not answered", "Yes", "No"],
                                   **_look(widgets.ToggleButtons, style=toggle_style))
    return TriStateControl(field, toggle)


def unsupported_control(field: UnsupportedField) -> FieldControl:
    label = text_label(f"{field.name}: unsupported field type {field.type_name}", "nbacp-unsupported")
    return UnsupportedControl(field, label, titled=False)


def field_control(field: Field) -> FieldControl:
    """The control for one plain (non-choice) field."""
    if isinstance(field, StringField):
        return string_control(field)
    if isinstance(field, NumberField):
        return number_control(field)
    if isinstance(field, BooleanField):
        return boolean_control(field)
    if isinstance(field, UnsupportedField):
        return unsupported_control(field)
    raise TypeError(f"No control for field {field.name!r} of kind {field.kind!r}.")
