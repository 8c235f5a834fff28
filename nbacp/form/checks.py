"""Checks of one value against one field, shared by default sanitizing and answer validation.

Each check returns the value normalized for the wire (or ``ABSENT`` when the person left
the field empty) together with every message that applies, so a form reports all of its
problems at once.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import regex
import rfc3339_validator
import rfc3986_validator
import validators

from nbacp.form.fields import BooleanField, ChoiceField, Field, NumberField, StringField, UnsupportedField
from nbacp.form.patterns import COMPILE_BUDGET, expansion_cost

PATTERN_TIMEOUT: Final = 0.1
"""Seconds an agent-supplied ``pattern`` may run before the value is refused (the spec asks for a bound)."""


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()
Checked = tuple[Any, list[str]]


def _is_date(text: str) -> bool:
    if regex.fullmatch(r"\d{4}-\d{2}-\d{2}", text) is None:
        return False
    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


_FORMATS: Final[dict[str, tuple[Callable[[str], bool], str]]] = {
    "email": (lambda s: validators.email(s) is True, "an email address"),
    "uri": (
        lambda s: rfc3986_validator.validate_rfc3986(s, rule="URI") is not None,
        "a URI (like https://example.com)",
    ),
    "date": (_is_date, "a date (YYYY-MM-DD)"),
    "date-time": (lambda s: bool(rfc3339_validator.validate_rfc3339(s)), "a date and time (RFC 3339)"),
}


def known_format(name: str | None) -> bool:
    return name in _FORMATS


def pattern_error(pattern: str, text: str) -> str | None:
    """Run the agent's pattern (JSON Schema: unanchored search) under a time and memory bound."""
    if expansion_cost(pattern) > COMPILE_BUDGET:
        return "The pattern this field requires is too complex to check safely; the value cannot be accepted."
    try:
        found = regex.search(pattern, text, timeout=PATTERN_TIMEOUT)
    except TimeoutError:
        return "The pattern this field requires took too long to check; the value cannot be accepted."
    except (regex.error, ValueError, OverflowError, RecursionError):
        return f"The agent's pattern {pattern!r} is not a valid regular expression."
    return None if found is not None else f"Must match the pattern {pattern}."


def check_string(field: StringField, value: Any) -> Checked:
    if value is None or value == "":
        return ABSENT, []
    if not isinstance(value, str):
        return ABSENT, ["Must be text."]
    errors: list[str] = []
    length = len(value)
    if field.min_length is not None and length < field.min_length:
        errors.append(f"Must be at least {field.min_length} characters.")
    if field.max_length is not None and length > field.max_length:
        errors.append(f"Must be at most {field.max_length} characters.")
    if field.pattern is not None:
        message = pattern_error(field.pattern, value)
        if message:
            errors.append(message)
    if field.format in _FORMATS:
        ok, what = _FORMATS[field.format]
        if not ok(value):
            errors.append(f"Must be {what}.")
    return value, errors


def check_number(field: NumberField, value: Any) -> Checked:
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return ABSENT, []
    if isinstance(value, bool):
        return ABSENT, ["Must be a number."]
    number: int | float
    if isinstance(value, (int, float)):
        number = value
    elif isinstance(value, str):
        try:
            number = int(value.strip()) if field.kind == "integer" else float(value.strip())
        except ValueError:
            try:
                number = float(value.strip())
            except ValueError:
                return ABSENT, ["Must be a whole number." if field.kind == "integer" else "Must be a number."]
    else:
        return ABSENT, ["Must be a number."]
    if isinstance(number, float) and not math.isfinite(number):
        return ABSENT, ["Must be a finite number."]
    if field.kind == "integer" and isinstance(number, float):
        if not number.is_integer():
            return ABSENT, ["Must be a whole number."]
        number = int(number)
    errors = []
    if field.minimum is not None and number < field.minimum:
        errors.append(f"Must be at least {_show(field.minimum)}.")
    if field.maximum is not None and number > field.maximum:
        errors.append(f"Must be at most {_show(field.maximum)}.")
    return number, errors


def _show(bound: float) -> str:
    if isinstance(bound, int):
        return str(bound)  # float() of a huge int bound would overflow
    return str(int(bound)) if bound.is_integer() else str(bound)


def check_boolean(field: BooleanField, value: Any) -> Checked:
    if value is None:
        return ABSENT, []
    if not isinstance(value, bool):
        return ABSENT, ["Must be true or false."]
    return value, []


def check_picks(field: ChoiceField, value: Any) -> Checked:
    """Normalize picks to a list of offered values; for a single-select at most one."""
    if value is None or value == "":
        picks: list[Any] = []
    elif isinstance(value, str):
        picks = [value]
    elif isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        picks = list(value)
    else:
        return [], ["Must be one of the offered options." if not field.multi else "Must be a list of options."]
    errors: list[str] = []
    seen: list[str] = []
    for pick in picks:
        if not isinstance(pick, str) or field.option(pick) is None:
            errors.append(f"{pick!r} is not one of the offered options.")
        elif pick in seen:
            errors.append(f"{field.option(pick).label!r} is picked more than once.")  # type: ignore[union-attr]
        else:
            seen.append(pick)
    if not field.multi and len(picks) > 1:
        errors.append("Pick only one option.")
    if field.multi and seen and not errors:
        if field.min_items is not None and len(seen) < field.min_items:
            errors.append(f"Pick at least {field.min_items} options.")
        if field.max_items is not None and len(seen) > field.max_items:
            errors.append(f"Pick at most {field.max_items} options.")
    return seen, errors


def check_custom(field: StringField, value: Any) -> Checked:
    """Custom "Other" text: trimmed, and whitespace alone counts as nothing typed."""
    if value is None:
        return ABSENT, []
    if not isinstance(value, str):
        return ABSENT, ["Must be text."]
    return check_string(field, value.strip())


def check_field(field: Field, value: Any) -> Checked:
    """The check for a field on its own (an unpaired field, or a default)."""
    if isinstance(field, StringField):
        return check_string(field, value)
    if isinstance(field, NumberField):
        return check_number(field, value)
    if isinstance(field, BooleanField):
        return check_boolean(field, value)
    if isinstance(field, ChoiceField):
        picks, errors = check_picks(field, value)
        if not picks and not errors:
            return ABSENT, []
        return (picks if field.multi else (picks[0] if picks else ABSENT)), errors
    if isinstance(field, UnsupportedField):
        if value is None:
            return ABSENT, []
        return ABSENT, [f"This client cannot answer a field of type {field.type_name!r}."]
    return ABSENT, [f"Unknown field kind {field.kind!r}."]
