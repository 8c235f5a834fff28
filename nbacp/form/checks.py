"""Checks of one value against one field, shared by default sanitizing and answer validation.

Each check returns the value normalized for the wire (or ``ABSENT`` when the person left
the field empty) together with every message that applies, so a form reports all of its
problems at once.
"""

from __future__ import annotations

import calendar
import ipaddress
import math
import re
from collections.abc import Callable, Sequence
from typing import Any, Final

import email_validator
import rfc3986_validator

from nbacp.form.fields import BooleanField, ChoiceField, Field, NumberField, StringField, UnsupportedField
from nbacp.form.patterns import PATTERN_BUDGET, PatternPass

PATTERN_TIMEOUT: Final = PATTERN_BUDGET
"""Seconds all of a form's ``pattern`` checks may take together in one pass (the spec asks for a bound)."""

INT64: Final = (-(2**63), 2**63 - 1)
"""ACP integers are 64-bit on the wire: an answer outside this range cannot be decoded by the agent."""


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()
Checked = tuple[Any, list[str]]


_DATE: Final = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})", re.ASCII)
_DATE_TIME: Final = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?"
    r"(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))",
    re.ASCII,
)


def _is_date(text: str) -> bool:
    """RFC 3339 ``full-date``: exactly YYYY-MM-DD with ASCII digits and a real calendar day."""
    found = _DATE.fullmatch(text)
    if found is None:
        return False
    year, month, day = (int(g) for g in found.groups())
    if not 1 <= month <= 12:
        return False
    days = (31, 29 if calendar.isleap(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    return 1 <= day <= days


def _is_date_time(text: str) -> bool:
    """RFC 3339 ``date-time`` exactly: ``T``/``Z`` in either case, a leap second only at 23:59:60 UTC.

    ``fullmatch`` (not ``$``) so that a trailing newline is refused.
    """
    found = _DATE_TIME.fullmatch(text)
    if found is None or not _is_date(found.group(1)):
        return False
    hour, minute, second = int(found.group(2)), int(found.group(3)), int(found.group(4))
    sign, off_hour, off_minute = found.group(5), found.group(6), found.group(7)
    offset = 0
    if sign is not None:
        if int(off_hour) > 23 or int(off_minute) > 59:
            return False
        offset = (int(off_hour) * 60 + int(off_minute)) * (1 if sign == "+" else -1)
    if hour > 23 or minute > 59 or second > 60:
        return False
    if second == 60:  # a leap second happens at 23:59:60 UTC only
        utc_minutes = (hour * 60 + minute - offset) % (24 * 60)
        return utc_minutes == 23 * 60 + 59
    return True


def _is_email(text: str) -> bool:
    """RFC 5321 syntax (quoted local parts and address literals included), never a DNS look-up."""
    try:
        email_validator.validate_email(
            text,
            check_deliverability=False,
            allow_quoted_local=True,
            allow_domain_literal=True,
            globally_deliverable=False,
        )
    except email_validator.EmailNotValidError:
        return False
    return True


_IP_LITERAL: Final = re.compile(r"//(?:[^/?#@]*@)?\[([^\]]*)\]")


def _is_uri(text: str) -> bool:
    """RFC 3986 ``URI``; an IPv6 host literal must also be a real address (no leading zeros)."""
    if rfc3986_validator.validate_rfc3986(text, rule="URI") is None:
        return False
    literal = _IP_LITERAL.search(text)
    if literal is not None and not literal.group(1).lower().startswith("v"):  # "v1.x": IPvFuture
        try:
            ipaddress.IPv6Address(literal.group(1))
        except ValueError:
            return False
    return True


_FORMATS: Final[dict[str, tuple[Callable[[str], bool], str]]] = {
    "email": (_is_email, "an email address"),
    "uri": (_is_uri, "a URI (like https://example.com)"),
    "date": (_is_date, "a date (YYYY-MM-DD)"),
    "date-time": (_is_date_time, "a date and time (RFC 3339)"),
}


def check_string(field: StringField, value: Any, patterns: PatternPass | None = None) -> Checked:
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
        message = (patterns or PatternPass()).error(field.pattern, value)
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
    if field.kind == "integer" and not INT64[0] <= number <= INT64[1]:
        return ABSENT, ["Must be a whole number between -9223372036854775808 and 9223372036854775807."]
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


def check_custom(field: StringField, value: Any, patterns: PatternPass | None = None) -> Checked:
    """Custom "Other" (or note) text: trimmed, and whitespace alone counts as nothing typed."""
    if value is None:
        return ABSENT, []
    if not isinstance(value, str):
        return ABSENT, ["Must be text."]
    return check_string(field, value.strip(), patterns)


def check_field(field: Field, value: Any, patterns: PatternPass | None = None) -> Checked:
    """The check for a field on its own (an unpaired field, or a default)."""
    if isinstance(field, StringField):
        return check_string(field, value, patterns)
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
