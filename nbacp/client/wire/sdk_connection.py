"""The one module that knows the inside of the SDK's connection objects (acp 0.12).

The SDK's typed ``ClientSideConnection`` keeps its JSON-RPC connection in the private
``_conn``; nbacp wraps that connection's dispatch, receive step, ``send_request`` and transport
(the guard, the raw tap, safe frames; docs/protocol.md, 'SDK 0.12 pitfalls'), and sends the
one request the typed API lacks (``session/set_model``). Every other module calls the functions
here, so an SDK upgrade that moves these attributes is fixed in one place.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from acp._transport import NdjsonTransport

__all__ = [
    "NdjsonTransport",
    "Router",
    "Sender",
    "claim",
    "has_json_rpc",
    "close",
    "json_rpc",
    "read_line",
    "replay_tracker",
    "send_request",
    "send_soon",
    "swap_line_transport",
    "wrap_transport",
    "wrap_dispatch",
    "wrap_receive",
    "wrap_send_request",
]

Router = Callable[[str, Any, bool], Awaitable[Any]]
"""The SDK's dispatch: ``(method, params, is_notification)`` to the handler's result."""
Sender = Callable[..., Awaitable[Any]]
"""The SDK's ``send_request(method, params)``."""


def json_rpc(agent: Any) -> Any:
    """The SDK's JSON-RPC connection under a typed ``ClientSideConnection`` (or ``AgentSideConnection``)."""
    return agent._conn


def has_json_rpc(agent: Any) -> bool:
    """Whether ``agent`` is one of the SDK's typed connections (so raw requests can be sent on it)."""
    return hasattr(agent, "_conn") and callable(getattr(agent._conn, "send_request", None))


def claim(agent: Any, marker: str, owner: object) -> bool:
    """Mark ``agent``'s JSON-RPC connection as wrapped by ``owner``; False when it already was."""
    inner = json_rpc(agent)
    if getattr(inner, marker, None) is owner:
        return False
    setattr(inner, marker, owner)
    return True


def wrap_dispatch(agent: Any, wrap: Callable[[Router], Router]) -> None:
    """Route every incoming request and notification through ``wrap(the SDK's router)``."""
    inner = json_rpc(agent)
    inner._handler = wrap(inner._handler)


def wrap_receive(agent: Any, wrap: Callable[[Callable[[Any], None]], Callable[[Any], None]]) -> None:
    """Pass every incoming message through ``wrap(the SDK's receive step)`` before a task is started for it."""
    inner = json_rpc(agent)
    inner._process_message = wrap(inner._process_message)


def wrap_send_request(agent: Any, wrap: Callable[[Sender], Sender]) -> None:
    """Pass every outgoing request (and its raw result) through ``wrap(the SDK's send_request)``."""
    inner = json_rpc(agent)
    inner.send_request = wrap(inner.send_request)


def send_soon(agent: Any, payload: dict[str, Any], name: str) -> None:
    """Send one raw JSON-RPC message from a task the connection owns (from the synchronous receive step)."""
    inner = json_rpc(agent)
    inner._tasks.create(inner._transport.send(payload), name=name)


async def send_request(agent: Any, method: str, params: dict[str, Any]) -> Any:
    """A request the typed API does not have (``session/set_model`` in SDK 0.12)."""
    return await json_rpc(agent).send_request(method, params)


def wrap_transport(agent: Any, wrap: Callable[[Any], Any]) -> None:
    """Put ``wrap(the connection's transport)`` in its place, whatever the transport is."""
    inner = json_rpc(agent)
    inner._transport = wrap(inner._transport)


def swap_line_transport(agent: Any, wrap: Callable[[Any], Any]) -> None:
    """Wrap the connection's transport when it reads lines: the SDK's newline-delimited one (stdio)
    or one with its own ``read_line`` (nbacp's websocket transport)."""
    inner = json_rpc(agent)
    if isinstance(inner._transport, NdjsonTransport) or callable(getattr(inner._transport, "read_line", None)):
        inner._transport = wrap(inner._transport)


async def read_line(transport: NdjsonTransport, limit: int, keep: int = 65536) -> tuple[bytes, int]:
    """One raw line from the SDK's newline-delimited transport's reader, never holding more than ``limit``.

    Returns the line and its size; a line over ``limit`` bytes is read through and dropped as it
    comes (only its first ``keep`` bytes are returned, for the caller to name it), so an agent
    that writes 150 MB without a newline costs the reader's own buffer, not the line.
    """
    reader, wait = transport._reader, transport._wait_for_reader
    chunks: list[bytes] = []
    size, over = 0, False
    while True:
        try:
            part, last = await wait(reader.readuntil(b"\n")), True
        except asyncio.LimitOverrunError as exc:  # no newline within the reader's buffer: take what it holds
            part, last = await wait(reader.readexactly(exc.consumed)), False
        except asyncio.IncompleteReadError as exc:  # end of stream
            part, last = exc.partial, True
        size += len(part)
        if not over:
            chunks.append(part)
            if size > limit:  # from here on the line is only counted
                over, chunks = True, [_head(chunks, keep)]
        if last:
            return b"".join(chunks), size


def _head(parts: list[bytes], keep: int) -> bytes:
    out = bytearray()
    for part in parts:
        out += part[: keep - len(out)]
        if len(out) >= keep:
            break
    return bytes(out)


async def close(agent: Any) -> None:
    """Close the JSON-RPC connection under a typed connection (the in-process agent side)."""
    await json_rpc(agent).close()


def replay_tracker(agent: Any) -> Any:
    """What waits for the session updates a ``session/load`` replays still in flight, or None."""
    return getattr(agent, "_session_updates", None)
