"""nbacp's websocket transport against a server that speaks acpremote's wire (token, ``GET /acp``
metadata, one message per text frame), built on ``websockets`` alone so that it runs on both SDK
lines (acpremote itself has no release for SDK 1.x; docs/protocol.md, 'acpremote')."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

import nbacp
from nbacp.client.wire.transports.ws_link import metadata_url
from nbacp.errors import ConnectError

TOKEN = "sekrit"


@asynccontextmanager
async def acp_like_server(max_size: int = 1_048_576) -> AsyncIterator[tuple[str, list[dict[str, Any]]]]:
    """Answers initialize and nothing else; records every message it got."""
    got: list[dict[str, Any]] = []

    def process_request(connection: ServerConnection, request: Any) -> Any:
        if request.path == "/acp":
            return connection.respond(200, json.dumps({"max_size": max_size, "transport_kind": "websocket"}))
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return connection.respond(401, "missing or invalid bearer token\n")
        return None

    async def handler(ws: ServerConnection) -> None:
        async for frame in ws:
            for line in str(frame).split("\n"):
                message = json.loads(line)
                got.append(message)
                if message.get("method") == "initialize":
                    result = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
                    await ws.send(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}))
                    await ws.send(b"\x00binary frames are skipped")
                    await ws.send("")

    async with serve(handler, "127.0.0.1", 0, process_request=process_request) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/acp/ws", got


async def test_token_metadata_and_frames() -> None:
    async with acp_like_server(max_size=4096) as (url, got):
        async with nbacp.connect(url, token=f"  {TOKEN} ") as conn:
            assert conn.kind == "remote"
            assert conn.client.questions.max_answer_bytes == 4096  # the server's limit, read from GET /acp
        assert got[0]["method"] == "initialize"
        assert got[0]["params"]["clientCapabilities"]["elicitation"] == {"form": {}, "url": {}}


@pytest.mark.parametrize("token", [None, "wrong", "SEKRIT"])
async def test_a_missing_or_wrong_token_is_a_connect_error(token: str | None) -> None:
    async with acp_like_server() as (url, _got):
        with pytest.raises(ConnectError, match="HTTP 401"):
            await nbacp.connect(url, token=token)


def test_metadata_url() -> None:
    assert metadata_url("ws://h:1/acp/ws") == "http://h:1/acp"
    assert metadata_url("wss://h/ws") == "https://h/"
    assert metadata_url("ws://h/other") is None
