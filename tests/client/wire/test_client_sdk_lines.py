"""What differs between SDK 0.12.1 and 1.x, seen from a real peer: the same behaviour on both lines
(docs/protocol.md, 'Two SDK lines'). ``make test-sdk1`` runs these on 1.x."""

from __future__ import annotations

import asyncio
from typing import Any

from support.feature_agents import FeatureAgent

import nbacp
from nbacp.client.wire.sdk_compat import clean_elicitation

HANG_GUARD = 60


async def test_an_unknown_string_format_is_an_annotation_not_a_refusal() -> None:
    seen: list[Any] = []

    def answer(card: Any) -> None:
        seen.append(card)
        card.fill("colour", "teal")
        card.accept()

    async with nbacp.connect(FeatureAgent(), answers=answer) as conn:
        result = await asyncio.wait_for((await conn.new_session()).prompt("format"), HANG_GUARD)
    assert result.text == "format: accept {'colour': 'teal'}"  # SDK 1.0 alone answers -32602
    assert seen[0].form.fields["colour"].format == "x-colour"  # the form still sees the annotation


def test_clean_elicitation_drops_only_unknown_formats() -> None:
    params = {
        "requestedSchema": {
            "properties": {
                "a": {"type": "string", "format": "x-colour"},
                "b": {"type": "string", "format": "email"},
                "c": {"type": "string"},
                "d": "not a schema",
            }
        }
    }
    sent = params["requestedSchema"]
    assert clean_elicitation(params) == ["a"]
    assert params["requestedSchema"]["properties"]["a"] == {"type": "string"}
    assert params["requestedSchema"]["properties"]["b"]["format"] == "email"
    assert sent["properties"]["a"] == {"type": "string", "format": "x-colour"}  # what the handler reads
    assert params["requestedSchema"]["properties"]["b"] is sent["properties"]["b"]  # nothing else copied
    assert clean_elicitation({"requestedSchema": None}) == []


async def test_auth_methods_are_read_as_the_agent_sent_them() -> None:
    async with nbacp.connect(FeatureAgent()) as conn:
        kinds = {m.id: (m.type, [v["name"] for v in m.vars]) for m in conn.auth_methods}
    # SDK 1.0's model would read chat-gpt (no "type") as a terminal sign-in and drop api-key's vars
    assert kinds == {
        "api-key": ("env_var", ["FEATURE_API_KEY", "FEATURE_ORG"]),
        "chat-gpt": (None, []),
        "login": ("terminal", []),
    }
