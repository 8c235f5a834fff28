"""The JSON-Schema-Test-Suite's ECMA-262 regex and string-format cases, run through nbacp's forms.

Data: the pinned copy in ``tests/form/data/json-schema-test-suite`` (see its README for the commit).
Each suite case becomes a one-field ACP form ``{"f": {"type": "string", "pattern"|"format": ...}}``
and the case's ``valid`` must equal "the form accepts this text".

Not every case fits ACP's field subset; those are skipped *with their reason* (``pytest -rs``
lists them), never dropped silently:

- non-string data: an ACP string field only ever holds text; these cases test that JSON
  Schema's ``format`` ignores other JSON types, which has no counterpart in a form;
- the empty string: an empty text box is an unanswered field and is not sent at all;
- ``patternProperties``: ACP forms have fixed property names, so there is nothing to match.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nbacp.form import Form

SUITE = Path(__file__).parent / "data" / "json-schema-test-suite"
FILES = (
    "ecmascript-regex.json",
    "non-bmp-regex.json",
    "format/email.json",
    "format/date.json",
    "format/date-time.json",
    "format/uri.json",
    "format/unknown.json",
)
KEYWORDS = ("pattern", "format")


def _skip_reason(schema: dict[str, Any], data: Any) -> str | None:
    if "patternProperties" in schema:
        return "patternProperties: ACP forms have fixed property names, nothing to match a pattern against"
    if not any(key in schema for key in KEYWORDS):
        return f"no pattern or format in this schema (keys: {sorted(schema)})"
    if not isinstance(data, str):
        return f"non-string data ({type(data).__name__}): an ACP string field only holds text"
    if data == "":
        return "the empty string: an empty text box is an unanswered field and is not sent"
    return None


def _cases() -> list[Any]:
    cases = []
    for name in FILES:
        for g, group in enumerate(json.loads((SUITE / name).read_text(encoding="utf-8"))):
            for t, test in enumerate(group["tests"]):
                case_id = f"{name}:{g}.{t}:{test['description']}"
                reason = _skip_reason(group["schema"], test["data"])
                marks = [pytest.mark.skip(reason=reason)] if reason else []
                cases.append(pytest.param(group["schema"], test["data"], test["valid"], id=case_id, marks=marks))
    return cases


CASES = _cases()


def test_the_pinned_suite_is_all_there() -> None:
    assert (SUITE / "LICENSE").is_file() and "44401e0c" in (SUITE / "README.md").read_text(encoding="utf-8")
    assert len(CASES) > 250


@pytest.mark.parametrize(("schema", "data", "valid"), CASES)
def test_suite_case(schema: dict[str, Any], data: str, valid: bool) -> None:
    prop: dict[str, Any] = {"type": "string"}
    prop.update({key: schema[key] for key in KEYWORDS if key in schema})
    form = Form.from_schema({"type": "object", "properties": {"f": prop}})
    assert form.warnings == {}, "every suite pattern is one the engine must compile"
    errors = form.validate({"f": data})
    assert (errors == {}) is valid, errors
