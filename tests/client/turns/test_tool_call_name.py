"""A tool call's ``name`` (schema 1.22): the heading where the call has no title, and a row of a
permission card's Details, on both SDK lines (0.12 drops the field: nbacp.client.wire.sdk_compat).

The raw peer (tests/support/raw_session_agent.py) sends the updates and the permission request
as JSON, so the field reaches the client as an agent sends it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from support import raw_session_agent

import nbacp
from nbacp.widgets import PermissionCard

OPTIONS = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]


def _agent(tmp_path: Path) -> list[str]:
    caps = tmp_path / "caps.json"
    caps.write_text("{}")
    return [sys.executable, raw_session_agent.__file__, str(caps)]


def _update(update: dict[str, Any]) -> list[Any]:
    return ["notify", "session/update", {"sessionId": "$session", "update": update}]


async def test_the_name_heads_an_untitled_call_and_shows_in_the_permission_details(tmp_path: Path) -> None:
    cards: list[tuple[PermissionCard, dict[str, Any]]] = []

    def allow(card: Any) -> None:
        cards.append((card, dict(card.spec)))  # the spec the page shows (emptied once answered)
        card.choose("allow")

    steps = [
        _update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "",
                "name": "NotebookEdit",
                "kind": "edit",
                "status": "pending",
            }
        ),
        _update({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}),
        _update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t2",
                "title": "Read data.csv",
                "name": "Read",
                "kind": "read",
                "status": "completed",
            }
        ),
        [
            "request",
            "session/request_permission",
            {
                "sessionId": "$session",
                "options": OPTIONS,
                "toolCall": {
                    "toolCallId": "t3",
                    "name": "run_query",
                    "kind": "execute",
                    "rawInput": {"sql": "select 1"},
                },
            },
        ],
    ]
    async with asyncio.timeout(60), nbacp.connect(_agent(tmp_path), answers=allow) as conn:
        session = await conn.new_session(tmp_path)
        result = await session.prompt(json.dumps(steps))
    assert json.loads(result.text)["replies"] == [{"outcome": {"outcome": "selected", "optionId": "allow"}}]
    calls = [u for u in session.updates if getattr(u, "session_update", None) in ("tool_call", "tool_call_update")]
    assert [getattr(u, "name", None) for u in calls] == ["NotebookEdit", None, "Read"]
    # the record heads each call with its title, else its name (never the bare id)
    record = result.record.replace("\\", "")
    assert "NotebookEdit · edited · completed" in record
    assert "Read data.csv · read · completed" in record and "✓ t1" not in record
    [(card, spec)] = cards
    assert spec["title"] == "run_query"  # no title: the name
    assert ["name", "run_query"] in spec["details"]
    assert card.warning == "" and spec["message"] == ""  # no notebook named
    assert "**Permission:** run_query" in record


async def test_a_name_is_plain_text_and_bounded(tmp_path: Path) -> None:
    hostile = "<b>x</b>\u202e" + "n" * 5000
    steps = [
        _update({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "", "name": hostile, "status": "completed"})
    ]
    async with asyncio.timeout(60), nbacp.connect(_agent(tmp_path)) as conn:
        session = await conn.new_session(tmp_path)
        result = await session.prompt(json.dumps(steps))
    [call] = [u for u in session.updates if getattr(u, "session_update", None) == "tool_call"]
    assert len(call.name) <= 200  # the raw tap keeps at most 200 characters
    assert "<b>" not in result.record and "\u202e" not in result.record
