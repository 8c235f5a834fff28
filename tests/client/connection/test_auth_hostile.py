"""Authentication methods from a hostile agent: repeated ids, terminal methods named by a script.

The agent is the scripted peer (tests/support/scripted_agent.py), in process and over stdio.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from support.comm_support import RecordingComms
from support.scripted_agent import target

import nbacp
from nbacp.answers import Script
from nbacp.errors import AgentError
from nbacp.widgets import AuthCard

VIA = pytest.mark.parametrize("via", ["in-process", "stdio"])
TWINS = [
    {"id": "login", "name": "Terminal login", "type": "terminal", "args": ["--login"]},
    {"id": "login", "name": "Sign in", "description": "the agent's own sign-in"},
]


def _script() -> dict[str, Any]:
    return {"initialize": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": TWINS}, "auth_required": True}


@VIA
async def test_a_repeated_method_id_leaves_one_button_that_works(
    via: str, tmp_path: Path, comms: RecordingComms
) -> None:
    cards: list[AuthCard] = []
    shown: list[str] = []

    def click(card: Any) -> None:
        if isinstance(card, AuthCard):
            cards.append(card)
            shown.append(json.dumps(card.spec))
            for method in card.spec["methods"]:
                if method["usable"]:  # what the person's click on its button sends
                    comms.custom(card, {"event": "authenticate", "method_id": method["id"], "seq": 1})

    async with nbacp.connect(target(_script(), via, tmp_path), answers=click) as conn:
        session = await asyncio.wait_for(conn.new_session(), 30)
        assert session.id == "scripted"
    [card] = cards
    assert [m["name"] for m in json.loads(shown[0])["methods"]] == ["Sign in"]
    assert card.response == "login" and card.summary == "Authenticating with: Sign in"
    assert "listed authentication method 'login' 2 times" in shown[0]


@VIA
async def test_a_script_naming_a_terminal_method_is_a_note_not_a_traceback(
    via: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    script = _script()
    script["initialize"]["authMethods"] = [TWINS[0], {"id": "key", "name": "API key"}]
    caplog.set_level(logging.DEBUG)
    policy = Script([{"authenticate": "Terminal login"}])
    async with nbacp.connect(target(script, via, tmp_path), answers=policy) as conn:
        opening = asyncio.ensure_future(conn.new_session())
        for _ in range(3000):  # until the card is shown (state, bounded)
            if conn.client.open_cards() or opening.done():
                break
            await asyncio.sleep(0.01)
        [card] = conn.client.open_cards()
        notes = card.errors.get("", [])  # the card-level message the page shows
        assert len(notes) == 1 and "terminal sign-in" in notes[0], notes
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info], caplog.records
        card.cancel()
        with pytest.raises(AgentError):
            await opening
