"""What differs between the two SDK lines nbacp supports (``agent-client-protocol`` 0.12.1 and 1.x).

The one place that knows (docs/protocol.md, 'Two SDK lines'). Everything else builds content
blocks, closes connections and calls the stable methods through these functions:

- content blocks: 1.0 removed ``acp.helpers`` (``text_block``, ``image_block``...). The schema
  constructors exist on both; 0.12 requires the discriminator (``type="text"``), so it is
  always written out here;
- closing: 1.0's ``Connection.close()`` can re-raise the ``ConnectionError`` of a queued
  ``$/cancel_request`` to a peer that is already gone; 0.12 closes cleanly;
- ``session/delete`` and ``logout``: typed methods on 1.0 only; on 0.12 the raw request;
- ``elicitation/create``: 1.0 types ``format`` as the four spec formats and refuses the whole
  request (-32602) for any other; the spec says unknown formats are annotations, so the guard
  calls ``clean_elicitation`` on the raw params first, on both lines;
- auth methods: 1.0 parses a method without ``type`` (the spec's default "agent" kind) as a
  terminal sign-in and drops env-var methods' ``vars``; the raw tap keeps the raw list and
  ``Connection.auth_methods`` reads that (on both lines, one behaviour);
- client capabilities newer than either line's schema (``subagents``, ``session.notices``,
  ``session.compaction``): pydantic drops unknown fields, so ``add_capabilities`` writes them
  into the raw ``initialize`` params (the raw tap calls it), and the updates they enable reach
  the client as raw JSON (the guard's unknown-update path).
- a tool call's ``name`` (schema 1.22): a field on 1.x; 0.12 drops it, so ``with_tool_name``
  gives the update (or a permission request's tool call) the raw tap's copy, as an instance of a
  subclass that has the field: ``isinstance`` checks and ``model_dump`` work as on 1.x.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
from typing import Any

from acp import schema

from nbacp.client.wire import sdk_connection

__all__ = [
    "SDK_MAJOR",
    "add_capabilities",
    "SDK_VERSION",
    "STRING_FORMATS",
    "clean_elicitation",
    "close",
    "delete_session",
    "embedded_text_block",
    "image_block",
    "json_copy",
    "logout",
    "resource_link_block",
    "text_block",
    "tool_name",
    "with_tool_name",
]

SDK_VERSION = importlib.metadata.version("agent-client-protocol")
SDK_MAJOR = int(SDK_VERSION.split(".")[0])
STRING_FORMATS = frozenset({"email", "uri", "date", "date-time"})
"""The string formats of ACP's elicitation schema (the only ones SDK 1.0 accepts)."""


# -- content blocks -------------------------------------------------------------------------
def text_block(text: str) -> schema.TextContentBlock:
    return schema.TextContentBlock(type="text", text=text)


def image_block(data: str, mime_type: str) -> schema.ImageContentBlock:
    """A base64 image."""
    return schema.ImageContentBlock(type="image", data=data, mime_type=mime_type)


def resource_link_block(
    name: str, uri: str, *, mime_type: str | None = None, size: int | None = None
) -> schema.ResourceContentBlock:
    return schema.ResourceContentBlock(type="resource_link", name=name, uri=uri, mime_type=mime_type, size=size)


def embedded_text_block(uri: str, text: str, mime_type: str | None = None) -> schema.EmbeddedResourceContentBlock:
    """A text resource embedded in the prompt (a table as CSV, a small file)."""
    resource = schema.TextResourceContents(uri=uri, text=text, mime_type=mime_type)
    return schema.EmbeddedResourceContentBlock(type="resource", resource=resource)


# -- connections ----------------------------------------------------------------------------
async def close(conn: Any) -> None:
    """Close a typed connection; a peer that is already gone is not an error (SDK 1.0 re-raises it)."""
    with contextlib.suppress(ConnectionError):
        await conn.close()


async def delete_session(agent: Any, session_id: str) -> Any:
    """``session/delete`` (stable in schema v1.23): the typed method on SDK 1.x, the raw request on 0.12."""
    typed = getattr(agent, "delete_session", None)
    if typed is not None:
        return await typed(session_id=session_id)
    return await sdk_connection.send_request(agent, "session/delete", {"sessionId": session_id})


async def logout(agent: Any) -> Any:
    """``logout`` (stable in schema v1.23): the typed method on SDK 1.x, the raw request on 0.12."""
    typed = getattr(agent, "logout", None)
    if typed is not None:
        return await typed()
    return await sdk_connection.send_request(agent, "logout", {})


# -- outgoing requests ----------------------------------------------------------------------
def add_capabilities(params: dict[str, Any], extra: dict[str, Any]) -> None:
    """Merge ``extra`` into ``params["clientCapabilities"]`` (objects merged key by key, the SDK's
    own values kept): what the SDK's ``ClientCapabilities`` model cannot carry."""
    caps = params.get("clientCapabilities")
    if not isinstance(caps, dict):
        caps = params["clientCapabilities"] = {}
    _merge(caps, extra)


def _merge(into: dict[str, Any], extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        elif key not in into or into[key] is None:
            into[key] = json_copy(value)


def json_copy(value: Any) -> Any:
    """A copy of parsed JSON (so two connections never share one capability object)."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value


# -- tool call names (schema 1.22) ---------------------------------------------------------
def _named(base: type[Any]) -> type[Any]:
    if "name" in base.model_fields:
        return base
    return type(
        base.__name__,
        (base,),
        {
            "__annotations__": {"name": str | None},
            "name": None,
            "__module__": __name__,
            "__qualname__": base.__qualname__,
        },
    )


_NAMED = {base: _named(base) for base in (schema.ToolCallStart, schema.ToolCallProgress, schema.ToolCallUpdate)}


def tool_name(call: Any) -> str | None:
    """A tool call's ``name`` on either line (None where the agent sent none)."""
    name = getattr(call, "name", None)
    return name if isinstance(name, str) else None


def with_tool_name(call: Any, name: str | None) -> Any:
    """``call`` (a tool call update or a permission's tool call) with its wire ``name``, on both lines."""
    named = _NAMED.get(type(call))
    if name is None or named is None or getattr(call, "name", None) == name:
        return call
    # the fields are validated already: copied as they are (no dump, no second validation)
    fields = {key: getattr(call, key) for key in type(call).model_fields}
    fields["name"] = name
    return named.model_construct(_fields_set={*call.model_fields_set, "name"}, **fields)


# -- incoming requests ----------------------------------------------------------------------
def clean_elicitation(params: dict[str, Any]) -> list[str]:
    """Drop string ``format`` values outside the spec's four from a raw ``elicitation/create``.

    They are annotations (docs/protocol.md, 'Elicitation spec points'), but SDK 1.0 refuses the
    whole request for one. Returns the property names whose format was dropped. The schema the
    agent sent is left as it was: ``params`` gets a new ``requestedSchema`` without those
    formats (the guard keeps the original for the handler, which reads the annotation).
    """
    requested = params.get("requestedSchema")
    properties = requested.get("properties") if isinstance(requested, dict) else None
    if not isinstance(requested, dict) or not isinstance(properties, dict):
        return []
    dropped = [
        name
        for name, prop in properties.items()
        if isinstance(prop, dict) and "format" in prop and prop["format"] not in STRING_FORMATS
    ]
    if dropped:
        kept = {
            name: {k: v for k, v in prop.items() if k != "format"} if name in dropped else prop
            for name, prop in properties.items()
        }
        params["requestedSchema"] = {**requested, "properties": kept}
    return [str(name) for name in dropped]
