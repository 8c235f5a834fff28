"""The first unstable elicitation methods, spoken by an agent as raw JSON-RPC (nbacp.client.wire.old_names).

``session/elicitation`` is answered as ``elicitation/create`` with the action nested one level
down; ``session/elicitation/complete`` ends a URL elicitation as ``elicitation/complete`` does.
The same scripted peer runs in process and over stdio.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from support.scripted_agent import report, target

import nbacp
from nbacp.widgets import FormCard, UrlConsentCard

VIA = pytest.mark.parametrize("via", ["in-process", "stdio"])
SCHEMA = {
    "type": "object",
    "properties": {"colour": {"type": "string", "enum": ["red", "blue"]}},
    "required": ["colour"],
}


def _answer(card: Any) -> None:
    if isinstance(card, FormCard):
        card.pick("colour", "blue")
        card.accept()
    elif isinstance(card, UrlConsentCard):
        card.consent()


@VIA
async def test_the_old_elicitation_names_are_answered_in_their_old_shape(via: str, tmp_path: Path) -> None:
    url = {
        "sessionId": "scripted",
        "mode": "url",
        "elicitationId": "e-old",
        "message": "Sign in",
        "url": "https://login.example.com/device",
    }
    script = {
        "prompt": [
            [
                "request",
                "session/elicitation",
                {"sessionId": "scripted", "message": "Which colour?", "requestedSchema": SCHEMA},
            ],
            ["request", "session/elicitation", url],
            ["notify", "session/elicitation/complete", {"elicitationId": "e-old"}],
        ]
    }
    async with nbacp.connect(target(script, via, tmp_path), answers=_answer) as conn:
        session = await conn.new_session()
        async with asyncio.timeout(60):  # a card left to a person would wait forever
            result = await session.prompt("go")
        (url_card,) = [c for c in conn.client.questions.url_cards.values()] or [None]
        log = list(conn.log or [])
    assert report(result.text)["replies"] == [
        {"action": {"action": "accept", "content": {"colour": "blue"}}},
        {"action": {"action": "accept"}},
    ]
    assert url_card is None  # completed by the old notification: settled and released
    assert not [line for line in log if "session/elicitation" in line], log


@VIA
async def test_the_current_names_are_unchanged(via: str, tmp_path: Path) -> None:
    script = {
        "prompt": [
            [
                "request",
                "elicitation/create",
                {"sessionId": "scripted", "mode": "form", "message": "Which colour?", "requestedSchema": SCHEMA},
            ]
        ]
    }
    async with nbacp.connect(target(script, via, tmp_path), answers=_answer) as conn:
        async with asyncio.timeout(60):
            result = await (await conn.new_session()).prompt("go")
    assert report(result.text)["replies"] == [{"action": "accept", "content": {"colour": "blue"}}]
