"""ACP over a websocket, spoken the way acpremote servers speak it, on the ``websockets`` library alone.

acpremote (docs/protocol.md, 'acpremote') serves one JSON-RPC message per text frame at
``{mount}/ws``, checks ``Authorization: Bearer <token>`` there (HTTP 401 otherwise), and
publishes its limits as JSON at ``GET {mount}`` (no auth). Its client pinned the SDK to one
release, and the SDK's own ``acp.ws`` transport cannot raise websockets' 1 MiB default, so
nbacp keeps this small transport instead: the SDK's ``Transport`` protocol (``send`` /
``receive`` / ``close`` of dicts) over one websocket, plus the metadata read.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
from collections import deque
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

log = logging.getLogger(__name__)

OPEN_TIMEOUT = 10.0
PING_INTERVAL = 20.0
MAX_QUEUE = 16


class WebSocketTransport:
    """One websocket as the SDK's transport: one JSON-RPC message per text frame, both ways.

    The guard reads it line by line (``read_line``, as acpremote's own client bridges frames
    into the SDK's newline reader) through ``frames.SafeFrames``; ``receive`` is the plain way.
    """

    def __init__(self, websocket: ClientConnection) -> None:
        self.websocket = websocket
        self._lines: deque[bytes] = deque()

    async def read_line(self) -> bytes:
        """The next line of the incoming text frames (a frame may hold several); b"" once closed."""
        while not self._lines:
            try:
                frame = await self.websocket.recv()
            except ConnectionClosed:
                return b""
            if isinstance(frame, bytes):
                log.debug("ignored a binary websocket frame (%d bytes)", len(frame))
                continue
            self._lines.extend(part.encode("utf-8", "surrogatepass") + b"\n" for part in frame.split("\n"))
        return self._lines.popleft()

    async def send(self, message: dict[str, Any]) -> None:
        await self.websocket.send(json.dumps(message, separators=(",", ":"), ensure_ascii=False))

    async def receive(self) -> Any:
        """The next message; None when the socket closed. Non-JSON and binary frames are skipped.

        Anything else that parses (``[1, 2]``, ``null``) is handed on: the guard drops it with a
        note (docs/protocol.md, 'SDK 0.12 pitfalls').
        """
        while True:
            try:
                frame = await self.websocket.recv()
            except ConnectionClosed:
                return None
            if isinstance(frame, bytes):
                log.debug("ignored a binary websocket frame (%d bytes)", len(frame))
                continue
            try:
                return json.loads(frame)
            except ValueError:
                log.debug("ignored a websocket frame that is not JSON: %.80r", frame)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.websocket.close()


async def open_transport(
    url: str, token: str | None, headers: dict[str, str] | None, max_message_bytes: int
) -> WebSocketTransport:
    """Open the websocket (bearer token merged after ``headers``); websockets' errors propagate."""
    merged = dict(headers or {})
    if token:
        merged["Authorization"] = f"Bearer {token.strip()}"
    websocket = await connect(
        url,
        additional_headers=merged or None,
        compression=None,  # acpremote negotiates none
        open_timeout=OPEN_TIMEOUT,
        ping_interval=PING_INTERVAL,
        ping_timeout=PING_INTERVAL,
        max_size=max_message_bytes,
        max_queue=MAX_QUEUE,
    )
    return WebSocketTransport(websocket)


def metadata_url(url: str) -> str | None:
    """``ws://host/acp/ws`` -> ``http://host/acp`` (acpremote's metadata path), None for other paths."""
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.path.endswith("/ws"):
        return None
    scheme = "https" if parts.scheme == "wss" else "http"
    path = parts.path[: -len("/ws")] or "/"
    return f"{scheme}://{parts.netloc}{path}"


async def server_max_size(url: str, headers: dict[str, str] | None) -> int | None:
    """The server's limit for one incoming message from its metadata, or None if it publishes none."""
    target = metadata_url(url)
    if target is None:
        return None
    try:
        data = await asyncio.to_thread(_get_json, target, headers or {})
    except (OSError, ValueError, http.client.HTTPException) as exc:
        log.debug("no metadata at %s: %r", target, exc)
        return None
    size = data.get("max_size") if isinstance(data, dict) else None
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None


def _get_json(url: str, headers: dict[str, str]) -> Any:
    parts = urlsplit(url)
    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = cls(parts.hostname or "127.0.0.1", parts.port, timeout=OPEN_TIMEOUT)
    try:
        conn.request("GET", parts.path or "/", headers=headers)
        response = conn.getresponse()
        body = response.read(1_000_000)
        if response.status != 200:
            raise ValueError(f"HTTP {response.status}")
        return json.loads(body)
    finally:
        conn.close()
