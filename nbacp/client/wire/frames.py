"""Reading newline-delimited JSON-RPC frames (stdio, and acpremote's websocket) safely.

The SDK's ``NdjsonTransport`` parses each line with ``json.loads`` and, when that fails, logs a
traceback and drops the line. Two cases need more than that:

- A request nested deeper than the JSON parser's recursion limit (a 3,000-deep ``rawInput``)
  raises RecursionError: the SDK drops it and the agent waits forever for a reply. Here the
  request's id is read from the text before its first nested value (where the SDK's agent
  side, and JSON-RPC peers generally, put it) and the request is answered with -32602.
- A line that is not JSON at all is dropped with one line in the connection's log instead of
  a traceback in the person's cell.
- A line longer than ``MAX_LINE_BYTES`` is refused as it is read, never held whole (the SDK
  joins every piece of a line before parsing it: 150 MB without a newline grew the kernel by
  ~290 MB). A request among them is answered -32602 by the id in its first bytes.

``install`` swaps the connection's transport for ``SafeFrames`` around the SDK's own reader
(or the websocket transport's ``read_line``), so framing, buffering and EOF stay the transport's.
``install_paced`` wraps any transport (in-process, stdio, websocket) in ``Paced``: a pass of
the event loop after every few messages received (each one after a slow batch), and the
agent's raw strings put back in each message sent (``nbacp.client.wire.ledger``).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any, Protocol

from nbacp.client.wire import sdk_connection
from nbacp.client.wire.connection_log import ConnectionLog
from nbacp.client.wire.ledger import TextLedger
from nbacp.client.wire.sdk_connection import NdjsonTransport

_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
MAX_LINE_BYTES = 16 * 1024 * 1024
"""The longest line read from a stdio agent (the websocket's default message bound, too)."""
_HEAD = re.compile(rb"^\s*\{[^{\[]*")  # the top-level object up to its first nested value


class LineTransport(Protocol):
    """A message transport that can also hand out its raw lines (nbacp's websocket transport)."""

    async def read_line(self) -> bytes: ...

    async def send(self, message: dict[str, Any]) -> None: ...

    async def close(self) -> None: ...


class SafeFrames:
    """A message transport over the SDK's ``NdjsonTransport`` that never drops a request silently."""

    def __init__(
        self, inner: NdjsonTransport | LineTransport, conn_log: ConnectionLog, max_line: int = MAX_LINE_BYTES
    ) -> None:
        self._inner = inner
        self._log = conn_log
        self.max_line = max_line

    async def _read_line(self) -> tuple[bytes, int]:
        """One raw line and its size; the websocket's frames are bounded by its own message limit."""
        if isinstance(self._inner, NdjsonTransport):
            return await sdk_connection.read_line(self._inner, self.max_line)
        line = await self._inner.read_line()
        return line, len(line)

    async def send(self, message: dict[str, Any]) -> None:
        await self._inner.send(message)

    async def close(self) -> None:
        await self._inner.close()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line, size = await self._read_line()
            if not line:
                return None
            if size > self.max_line:
                details = f"the message is {size:,} bytes, over the line limit of {self.max_line:,}"
                await self._refuse(line, details)
                continue
            line = line.strip()
            if not line:
                continue
            try:  # bytes that are not UTF-8 (a lone surrogate written raw) become U+FFFD, not a lost request
                message: Any = json.loads(line.decode("utf-8", "replace"))
            except RecursionError:
                await self._refuse(line, "the message is nested too deep to parse")
                continue
            except ValueError as exc:
                self._log.note(f"Dropped a line from the agent that is not JSON ({exc}): {line[:80]!r}")
                continue
            if message is None:  # "null" would read as end of stream to the SDK
                self._log.note("Dropped a message from the agent: not a JSON object (null)")
                continue
            return message  # type: ignore[no-any-return]  # other non-objects are dropped by the guard

    async def _refuse(self, line: bytes, problem: str) -> None:
        """Answer the request in ``line`` (its id read from its head) with -32602, or note the drop."""
        head = _HEAD.match(line[:65536])
        found = _ID.search(head.group(0)) if head else None
        if head is None or found is None or b'"method"' not in head.group(0):
            self._log.note(f"Dropped a message from the agent: {problem}")
            return
        msg_id = json.loads(found.group(1))
        details = f"Over the size budget: {problem}"
        self._log.note(f"Answered a request with error -32602: {details}")
        error = {"code": -32602, "message": "Invalid params", "data": {"details": details}}
        await self._inner.send({"jsonrpc": "2.0", "id": msg_id, "error": error})


PACE_BATCH = 16
"""Messages received at most between two passes of the event loop."""
PACE_SLOW_S = 0.005
"""A pass that took longer than this (the handlers of the last batch) makes the next batch one message."""


class Paced:
    """Any transport, paced and exact: see ``install_paced``."""

    def __init__(self, inner: Any, ledger: TextLedger) -> None:
        self._inner = inner
        self._ledger = ledger
        self._left = 1  # messages to receive before the next pass of the loop

    async def send(self, message: dict[str, Any]) -> None:
        await self._inner.send(self._ledger.restore(message))

    async def receive(self) -> dict[str, Any] | None:
        # The SDK's receive loop takes message after message without yielding while the transport
        # has them buffered (a 30,000-chunk history replay ran as one block of the event loop), and
        # only starts a task per message: the handlers run at the loop's next pass. One pass after
        # every message cost ~7% of a stream's CPU, so a pass comes after a batch of up to 16; a
        # batch whose handlers took longer than 5 ms makes the next batch one message, so a burst
        # of the largest messages (~18 ms each) still holds the loop for one message at a time.
        self._left -= 1
        if self._left <= 0:
            start = time.perf_counter()
            await asyncio.sleep(0)
            slow = time.perf_counter() - start > PACE_SLOW_S
            self._left = 1 if slow else PACE_BATCH
        message: dict[str, Any] | None = await self._inner.receive()
        return message

    async def close(self) -> None:
        await self._inner.close()


def install_paced(agent: Any, ledger: TextLedger) -> None:
    """Wrap the connection's transport, whatever it is: every message nbacp sends has the agent's
    raw strings put back (``nbacp.client.wire.ledger``), and the event loop gets a pass after
    every few messages received (docs/protocol.md, 'Budgets')."""
    sdk_connection.wrap_transport(agent, lambda inner: Paced(inner, ledger))


def install(agent: Any, conn_log: ConnectionLog, max_line: int = MAX_LINE_BYTES) -> None:
    """Wrap the connection's transport when it is the SDK's newline-delimited one."""
    sdk_connection.swap_line_transport(agent, lambda inner: SafeFrames(inner, conn_log, max_line))
