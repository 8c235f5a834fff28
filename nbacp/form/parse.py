"""Read an ACP elicitation schema (pydantic model or plain dict) into fields.

Readers are tolerant where the spec asks them to be (a missing, null or other top-level
``type`` is read as "object", a missing ``properties``, unknown property and item types,
metadata of the wrong type) and strict where guessing would send a wrong answer or none at
all (options without ``const``, an empty ``enum``, an array without ``items`` or of free
text, bounds outside their wire range, non-mapping properties): those raise
InvalidSchemaError naming the property.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from nbacp.errors import InvalidSchemaError
from nbacp.form.checks import ABSENT, check_field
from nbacp.form.fields import (
    BooleanField,
    ChoiceField,
    ChoiceOption,
    Field,
    NumberField,
    StringField,
    UnsupportedField,
)
from nbacp.form.patterns import PatternPass

ACPKIT_DESCRIPTION = "acpkit.dev/choice-description"
CLAUDE_OPTION = "_claude/askUserQuestionOption"
RECOMMENDED_SUFFIX = "(Recommended)"
REQUIRED_MARKER = "nbacp/required"
SECRET_FORMATS = ("password",)
"""OpenAPI's ``format: password``; with JSON Schema's ``writeOnly: true`` and codex's
``_meta.codex.isSecret`` the markers of a secret answer (docs/agents.md, 'Secret questions and deadlines')."""
UINT32_MAX = 2**32 - 1
"""``minLength`` / ``maxLength`` are uint32 on ACP's wire (the reference crate's types)."""
UINT64_MAX = 2**64 - 1


def schema_dict(schema: Any) -> dict[str, Any]:
    """The schema as a plain JSON-like dict, whichever form the caller had."""
    if isinstance(schema, BaseModel):
        dumped = schema.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped if isinstance(dumped, dict) else {}
    if not isinstance(schema, Mapping):
        raise InvalidSchemaError(f"The requested schema must be an object, not {type(schema).__name__}.")
    return dict(schema)


def parse_schema(schema: Any) -> tuple[dict[str, Any], list[Field]]:
    raw = schema_dict(schema)
    # ACP's readers take the requested schema as an object whatever its "type" says (missing,
    # null, misspelt): an agent that wrote it wrong still gets its question asked.
    properties = raw.get("properties")
    if properties is None:
        properties = {}
    if not isinstance(properties, Mapping):
        raise InvalidSchemaError("The schema's 'properties' must be a mapping of name to property schema.")
    required = raw.get("required")
    if required is None:
        required = []
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise InvalidSchemaError("The schema's 'required' must be a list of property names.")
    patterns = PatternPass()  # reading the schema is one pass: its defaults share one pattern budget
    fields = [_parse_property(str(name), prop, str(name) in required, patterns) for name, prop in properties.items()]
    return raw, fields


def _text(value: Any) -> str | None:
    """Human text from the agent; anything that is not a string is treated as absent (like the SDK)."""
    return value if isinstance(value, str) else None


def _meta(raw: Mapping[str, Any]) -> dict[str, Any]:
    meta = raw.get("_meta")
    return dict(meta) if isinstance(meta, Mapping) else {}


def _int_bound(name: str, raw: Mapping[str, Any], key: str, top: int = UINT64_MAX) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidSchemaError(f"Property {name!r}: {key!r} must be a non-negative integer, not {value!r}.")
    if value > top:
        raise InvalidSchemaError(f"Property {name!r}: {key!r} must be at most {top}, not {value}.")
    return value


def _num_bound(name: str, raw: Mapping[str, Any], key: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and not math.isfinite(value))
    ):  # math.isfinite(10**400) would raise OverflowError: a huge int is a finite bound
        raise InvalidSchemaError(f"Property {name!r}: {key!r} must be a finite number, not {value!r}.")
    return value


def _parse_property(name: str, prop: Any, required: bool, patterns: PatternPass) -> Field:
    if not isinstance(prop, Mapping):
        raise InvalidSchemaError(f"Property {name!r} must be a schema object, not {type(prop).__name__}.")
    common: dict[str, Any] = {
        "name": name,
        "title": _text(prop.get("title")),
        "description": _text(prop.get("description")),
        # nbacp.questions marks "answer by a pick or by the Other box" this way, because listing
        # the choice in `required` would force strict clients to send a pick with the custom text.
        "required": required or _meta(prop).get(REQUIRED_MARKER) is True,
        "meta": _meta(prop),
        "secret": is_secret(prop),
    }
    kind = prop.get("type")
    if kind == "string" and ("enum" in prop or "oneOf" in prop):
        field: Field = ChoiceField(kind="choice", options=_options(name, prop), multi=False, **common)
    elif kind == "string":
        field = _string(name, prop, common, patterns)
    elif kind in ("number", "integer"):
        field = _number(name, prop, kind, common)
    elif kind == "boolean":
        field = BooleanField(kind="boolean", **common)
    elif kind == "array":
        field = _multi(name, prop, common)
    else:
        type_name = kind if isinstance(kind, str) else "(none)"
        return UnsupportedField(kind="unsupported", type_name=type_name, schema=dict(prop), **common)
    return _with_default(field, prop.get("default"), patterns)


def _string(name: str, prop: Mapping[str, Any], common: dict[str, Any], patterns: PatternPass) -> StringField:
    pattern = prop.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        raise InvalidSchemaError(f"Property {name!r}: 'pattern' must be a string.")
    fmt = prop.get("format")
    return StringField(
        kind="string",
        min_length=_int_bound(name, prop, "minLength", UINT32_MAX),
        max_length=_int_bound(name, prop, "maxLength", UINT32_MAX),
        pattern=pattern,
        format=fmt if isinstance(fmt, str) else None,
        pattern_warning=patterns.warning(pattern) if pattern is not None else None,
        **common,
    )


def is_secret(prop: Mapping[str, Any]) -> bool:
    """Whether an agent marked this string property's answer secret (any of the known markers)."""
    codex = _meta(prop).get("codex")
    if isinstance(codex, Mapping) and codex.get("isSecret") is True:
        return True
    return prop.get("writeOnly") is True or prop.get("format") in SECRET_FORMATS


def deadline_ms(meta: Any) -> int | None:
    """When the agent withdraws the question on its own, in ms from when it asked, or None.

    codex-acp sends ``_meta.codex.autoResolutionMs`` on ``elicitation/create`` (null: it waits).
    """
    codex = meta.get("codex") if isinstance(meta, Mapping) else None
    value = codex.get("autoResolutionMs") if isinstance(codex, Mapping) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        return None
    return int(value)


def _number(name: str, prop: Mapping[str, Any], kind: str, common: dict[str, Any]) -> NumberField:
    return NumberField(
        kind="integer" if kind == "integer" else "number",
        minimum=_num_bound(name, prop, "minimum"),
        maximum=_num_bound(name, prop, "maximum"),
        **common,
    )


def _multi(name: str, prop: Mapping[str, Any], common: dict[str, Any]) -> Field:
    items = prop.get("items")
    if not isinstance(items, Mapping):
        # A known type in a broken shape: the SDK's parser and ACP's reference crate refuse it too.
        raise InvalidSchemaError(f"Property {name!r}: an array needs 'items' describing its options.")
    item_type = items.get("type", "string")
    if item_type != "string":
        # An item type ACP does not define (yet): kept and shown, never rendered as a known control,
        # even when it carries options.
        type_name = f"array of {item_type if isinstance(item_type, str) else type(item_type).__name__}"
        return UnsupportedField(kind="unsupported", type_name=type_name, schema=dict(prop), **common)
    if "enum" not in items and "anyOf" not in items:
        raise InvalidSchemaError(
            f"Property {name!r}: an array of free text is not an ACP field; its items need 'enum' or 'anyOf'."
        )
    return ChoiceField(
        kind="choice",
        options=_options(name, items),
        multi=True,
        min_items=_int_bound(name, prop, "minItems"),
        max_items=_int_bound(name, prop, "maxItems"),
        **common,
    )


def _options(name: str, raw: Mapping[str, Any]) -> tuple[ChoiceOption, ...]:
    titled = raw.get("oneOf", raw.get("anyOf"))
    options: list[ChoiceOption] = []
    if titled is not None:
        if not isinstance(titled, list):
            raise InvalidSchemaError(f"Property {name!r}: the titled options must be a list.")
        for index, entry in enumerate(titled):
            if not isinstance(entry, Mapping) or not isinstance(entry.get("const"), str):
                raise InvalidSchemaError(f"Property {name!r}: option {index} has no string 'const'.")
            title = _text(entry.get("title")) or entry["const"]
            options.append(_option(entry["const"], title, entry))
    else:
        values = raw.get("enum")
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise InvalidSchemaError(f"Property {name!r}: 'enum' must be a list of strings.")
        names = raw.get("enumNames")
        use_names = isinstance(names, list) and len(names) == len(values)
        for index, value in enumerate(values):
            title = names[index] if use_names and isinstance(names[index], str) else value  # type: ignore[index]
            options.append(_option(value, title, {}))
    if not options:
        raise InvalidSchemaError(f"Property {name!r}: offers no options, so no answer could ever be accepted.")
    seen: set[str] = set()
    for option in options:
        if option.value in seen:
            raise InvalidSchemaError(f"Property {name!r}: the option value {option.value!r} is offered twice.")
        seen.add(option.value)
    return tuple(options)


def _option(value: str, title: str, entry: Mapping[str, Any]) -> ChoiceOption:
    meta = _meta(entry)
    description = _text(entry.get("description")) or _text(meta.get(ACPKIT_DESCRIPTION))
    claude = meta.get(CLAUDE_OPTION)
    preview = _text(claude.get("preview")) if isinstance(claude, Mapping) else None
    preview = preview or _text(meta.get("nbacp/preview"))
    label = title
    recommended = meta.get("nbacp/recommended") is True
    stripped = title.rstrip()
    if stripped.endswith(RECOMMENDED_SUFFIX) and stripped != RECOMMENDED_SUFFIX:
        label = stripped[: -len(RECOMMENDED_SUFFIX)].rstrip()
        recommended = True
    return ChoiceOption(
        value=value, label=label, title=title, description=description, preview=preview, recommended=recommended
    )


def _with_default(field: Field, default: Any, patterns: PatternPass) -> Field:
    """Keep only a default the form could send as it is; never start from an invalid draft."""
    if default is None:
        return field
    if isinstance(field, ChoiceField):
        # Drafts may be lenient (a lone string for a multi); a schema default must have the wire type.
        if field.multi != isinstance(default, list) or (not field.multi and not isinstance(default, str)):
            return field
        if field.multi:
            default = list(dict.fromkeys(d for d in default if isinstance(d, str) and field.option(d)))
    value, errors = check_field(field, default, patterns)
    if errors or value is ABSENT:
        return field
    return replace(field, default=value)
