"""A hostile ACP agent that speaks raw JSON-RPC: malformed requests, odd frames, floods.

Not built on the SDK's agent side on purpose: the SDK would refuse to send most of these.
Attacks are ``[id or None, raw line]`` pairs (the id says which reply to wait for; over stdio,
``"early"`` frames are written at start, before the client's initialize). The same
peer runs over stdio (``python tests/support/hostile.py ATTACKS.json``: a real subprocess)
and over a real websocket (``serve_websocket``: a websockets server on 127.0.0.1 that the
client reaches through nbacp's websocket transport).

On ``session/prompt`` it sends every attack (raw text lines), waits (bounded) for a reply to
each one that has an id, then sends a valid follow-up ``session/request_permission`` on the
same connection, and reports what came back as one ``agent_message_chunk`` whose text is
JSON: ``{"replies": {id: reply}, "followup": reply}``. Then it ends the turn.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

REPLY_TIMEOUT = 20.0
SESSION = "s1"
FOLLOWUP_ID = 9000

Send = Callable[[str], Awaitable[None]]


def followup_request() -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": FOLLOWUP_ID,
        "method": "session/request_permission",
        "params": {
            "sessionId": SESSION,
            "toolCall": {"toolCallId": "follow", "title": "follow-up"},
            "options": [
                {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                {"optionId": "no", "name": "Reject", "kind": "reject_once"},
            ],
        },
    }


class HostilePeer:
    """The agent side: answers initialize / session/new / session/prompt, attacks during the prompt."""

    def __init__(self, attacks: list[tuple[Any, str]], send: Send) -> None:
        self.attacks = attacks
        self.send = send
        self.replies: dict[Any, asyncio.Future[Any]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    async def handle(self, line: str) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        method, msg_id = message.get("method"), message.get("id")
        if method is None:
            future = self.replies.get(msg_id)
            if future is not None and not future.done():
                future.set_result(message)
            return
        if method == "initialize":
            info = {"protocolVersion": 1, "agentCapabilities": {}, "agentInfo": {"name": "hostile"}}
            await self._result(msg_id, info)
        elif method == "session/new":
            await self._result(msg_id, {"sessionId": SESSION})
        elif method == "session/prompt":
            task = asyncio.ensure_future(self._attack(msg_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif msg_id is not None:
            await self._result(msg_id, {})

    async def _result(self, msg_id: Any, result: Any) -> None:
        await self.send(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}))

    async def _request(self, msg_id: Any, raw: str) -> Any:
        if msg_id is None:
            await self.send(raw)
            return None
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.replies[msg_id] = future
        await self.send(raw)
        try:
            return await asyncio.wait_for(future, REPLY_TIMEOUT)
        except TimeoutError:
            return "no reply"

    async def _attack(self, prompt_id: Any) -> None:
        results = await asyncio.gather(*(self._request(msg_id, raw) for msg_id, raw in self.attacks))
        replies = {}
        for (msg_id, _raw), reply in zip(self.attacks, results, strict=True):
            if msg_id is not None:
                replies[str(msg_id)] = reply
        followup = await self._request(FOLLOWUP_ID, json.dumps(followup_request()))
        report = json.dumps({"replies": replies, "followup": followup})
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": report}}
        await self.send(
            json.dumps(
                {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": SESSION, "update": update}}
            )
        )
        await self._result(prompt_id, {"stopReason": "end_turn"})


async def run_stdio(attacks: list[tuple[Any, str]]) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = sys.stdout.buffer

    async def send(text: str) -> None:
        out.write(text.encode("utf-8", "surrogatepass") + b"\n")
        out.flush()

    for msg_id, raw in attacks:  # "early" frames: written at start, before anything is read
        if msg_id == "early":
            await send(raw)
    peer = HostilePeer([a for a in attacks if a[0] != "early"], send)
    while line := await reader.readline():
        await peer.handle(line.decode("utf-8", "surrogatepass"))


async def serve_websocket(attacks: list[tuple[Any, str]]) -> Any:
    """A raw websocket server on 127.0.0.1 (port 0) speaking the same peer; returns the server."""
    from websockets.asyncio.server import ServerConnection, serve

    async def handler(ws: ServerConnection) -> None:
        async def send(text: str) -> None:
            await ws.send(text)

        peer = HostilePeer(attacks, send)
        async for frame in ws:
            await peer.handle(frame if isinstance(frame, str) else frame.decode())

    return await serve(handler, "127.0.0.1", 0, max_size=64 * 1024 * 1024)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        asyncio.run(run_stdio(json.load(f)))
