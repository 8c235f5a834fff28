"""The same questions over stdio (a real subprocess) and over acpremote on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support import SUPPORT
from support.agents import SchemaAgent, claude_question_schema
from support.loopback import loopback_server

import nbacp
from nbacp.answers import Script
from nbacp.errors import ConnectError

PEERS = SUPPORT / "peers.py"


def multi_form() -> tuple[str, dict[str, Any]]:
    return claude_question_schema(
        [
            {
                "question": "Which checks?",
                "multiSelect": True,
                "options": [{"label": "lint"}, {"label": "types"}, {"label": "tests"}],
            }
        ]
    )


SCRIPT = [{"pick": {"question_0": ["types", "lint"]}, "fill": {"question_0_custom": "fuzz"}}]
EXPECTED = '{"action": "accept", "content": {"question_0": ["lint", "types"], "question_0_custom": "fuzz"}}'


async def test_stdio_subprocess_round_trip() -> None:
    message, schema = multi_form()
    command = [sys.executable, str(PEERS), "schema", message, json.dumps(schema)]
    async with nbacp.connect(command, answers=Script(SCRIPT)) as conn:
        assert conn.kind == "subprocess"
        result = await (await conn.new_session(".")).prompt("go")
    assert result.text == EXPECTED


async def test_missing_command_is_a_clear_connect_error() -> None:
    with pytest.raises(ConnectError, match="no-such-agent-binary"):
        await nbacp.connect(["no-such-agent-binary-xyz"])


@pytest.fixture
async def remote() -> AsyncIterator[tuple[str, str, SchemaAgent]]:
    agent = SchemaAgent(*multi_form())
    async with loopback_server(agent) as server:
        yield server.url, server.token, agent


async def test_remote_round_trip_with_bearer_token(remote: tuple[str, str, SchemaAgent]) -> None:
    url, token, agent = remote
    async with nbacp.connect(url, token=token, answers=Script(SCRIPT)) as conn:
        assert conn.kind == "remote"
        result = await (await conn.new_session(".")).prompt("go")
    assert result.text == EXPECTED
    assert agent.client_capabilities is not None and agent.client_capabilities.elicitation is not None


async def test_remote_wrong_token_is_refused_clearly(remote: tuple[str, str, SchemaAgent]) -> None:
    url, _token, _agent = remote
    with pytest.raises(ConnectError, match="401"):
        await nbacp.connect(url, token="wrong")


async def test_remote_unreachable_server_is_a_connect_error() -> None:
    with pytest.raises(ConnectError, match="Could not reach"):
        await nbacp.connect("ws://127.0.0.1:9/acp/ws", token="x")
