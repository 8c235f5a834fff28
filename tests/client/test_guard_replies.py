"""A hostile agent's replies, notifications and odd ids, in process and over stdio (docs/protocol.md).

Each test runs the same scripted peer (tests/support/scripted_agent.py) over both transports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.scripted_agent import report, target

import nbacp
from nbacp.widgets import PermissionCard

VIA = pytest.mark.parametrize("via", ["in-process", "stdio"])
ALLOW = [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}]


def _permission(call: str) -> list[Any]:
    return ["request", "session/request_permission",
            {"sessionId": "scripted", "toolCall": {"toolCallId": call, "title": call}, "options": ALLOW}]


def _allow(card: Any) -> None:
    if isinstance(card, PermissionCard):
        card.choose("yes")


@VIA
async def test_cancel_request_with_any_id_shape_leaves_the_connection_alive(via: str, tmp_path: Path) -> None:
    shapes: list[Any] = [{"a": 1}, [1, 2], None, 1.5, True, "unknown", 12345]
    steps = [["notify", "$/cancel_request", {"requestId": shape}] for shape in shapes]
    script = {"prompt": [*steps, _permission("after")]}
    async with nbacp.connect(target(script, via, tmp_path), answers=_allow) as conn:
        session = await conn.new_session()
        result = await session.prompt("go")
        assert result.stop_reason == "end_turn"
        assert report(result.text)["replies"] == [{"outcome": {"outcome": "selected", "optionId": "yes"}}]
        assert not conn.closed
