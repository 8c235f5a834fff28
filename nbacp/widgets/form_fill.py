"""A value given from Python (``view.fill``) checked as the page's input would take it.

``view.fill(name, value)`` edits the draft as typing on the page does, so it takes only what
that field's box can hold: text for a text box, ISO text (or a ``date`` / aware ``datetime``)
for a date or date-time input, a number or text that is one for a number box, True / False /
None for a checkbox. Anything else is refused with a message naming the field, before the
draft changes.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from nbacp.form import Field, NumberField, StringField
from nbacp.widgets.form_spec import parse_number


def filled_value(name: str, field: Field, value: Any) -> Any:
    """``value`` as field ``name`` (not a choice) holds it on the page; ValueError if it cannot."""
    if isinstance(field, StringField):
        return as_text(name, field, value)
    if isinstance(field, NumberField):
        # what a number box can hold: a number, or text that is one (the form checks bounds)
        text = value.strip() if isinstance(value, str) else None
        if isinstance(value, bool) or not (
            value is None
            or isinstance(value, int | float)
            or text == ""
            or not isinstance(parse_number(text or "", integer=False), str)
        ):
            raise ValueError(f"{name!r} takes a number.")
    elif value is not None and not isinstance(value, bool):
        raise ValueError(f"{name!r} takes True, False or None.")
    return value


def as_text(name: str, field: StringField, value: Any) -> Any:
    """``value`` as a text box or a date / date-time input of the page can hold it."""
    if field.format == "date":
        if isinstance(value, dt.datetime):
            value = value.date()
        if isinstance(value, dt.date):
            return value.isoformat()
        if isinstance(value, str) and value and not _parses(dt.date.fromisoformat, value):
            raise ValueError(f"{name!r} takes a date (YYYY-MM-DD).")
    elif field.format == "date-time":
        if isinstance(value, str) and value:
            value = _parses(dt.datetime.fromisoformat, value) or value
        if isinstance(value, dt.datetime):
            if value.tzinfo is None:
                raise ValueError(f"{name!r} takes a timezone-aware datetime (RFC 3339 with an offset).")
            return value.isoformat()
        if isinstance(value, str) and value:
            raise ValueError(f"{name!r} takes a date and time with an offset (RFC 3339).")
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name!r} takes text, not {type(value).__name__}.")
    return value


def _parses(parse: Any, text: str) -> Any:
    try:
        return parse(text.strip())
    except ValueError:
        return None
