"""Parsed forms kept by the JSON text of their schema: an agent asks the same shape again and again.

An agent's questions repeat their schema (claude's multi-select with an Other box, codex's
approvals); reading one into a ``Form`` costs about three times serialising it, once per
request (benchmarks/README.md, 'Sixth round: round trip'). A ``Form`` is immutable data, so
one parsed form serves every request whose schema has the same JSON text: the text keeps the
property order, which is the form's order, so two schemas that differ only in order are two
forms. A form is parsed from its own decoded copy of that text, so no later change to the
objects the agent sent (an in-process agent may send one twice) can reach a kept form. A
schema that does not parse is never kept: each request with it is refused again.

Bounded: ``size`` forms (the least recently used goes first), of schemas up to
``max_chars`` characters of JSON; a larger or non-JSON schema is parsed each time.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from nbacp.form.model import Form
from nbacp.form.parse import deadline_ms

SIZE = 64
MAX_CHARS = 32 * 1024
_ENCODER = json.JSONEncoder(check_circular=False)  # a third faster than json.dumps; a cycle still fails


class FormCache:
    """``form(schema, meta)``: ``Form.from_schema(schema, meta)``, the same object for the same schema text."""

    def __init__(self, size: int = SIZE, max_chars: int = MAX_CHARS) -> None:
        self.size = size
        self.max_chars = max_chars
        self._forms: OrderedDict[tuple[str, int | None], Form] = OrderedDict()

    def __len__(self) -> int:
        return len(self._forms)

    def form(self, schema: Any, meta: Mapping[str, Any] | None = None) -> Form:
        """The form for ``schema`` (a JSON object as the wire gives it); raises InvalidSchemaError."""
        key = _text(schema)
        if key is None or len(key) > self.max_chars:
            return Form.from_schema(schema, meta)
        deadline = deadline_ms(meta)  # a codex deadline is part of the form: kept with it
        found = self._forms.get((key, deadline))
        if found is not None:
            self._forms.move_to_end((key, deadline))
            return found
        form = Form.from_schema(json.loads(key), meta)
        self._forms[(key, deadline)] = form
        if len(self._forms) > self.size:
            self._forms.popitem(last=False)
        return form


def _text(schema: Any) -> str | None:
    """The schema's JSON text (in its own key order), or None when it is not a JSON object."""
    if not isinstance(schema, dict):
        return None
    try:
        return _ENCODER.encode(schema)
    except (TypeError, ValueError, RecursionError):  # not JSON (a Python caller's object), or circular
        return None
