"""The in-process transport: two bounded one-way links of JSON-RPC messages, as a pipe gives a stdio agent.

The SDK's own in-memory pair (``acp._transport.memory_transport_pair``) queues without bound:
an in-process agent that streams faster than the notebook handles its updates never waits,
and everything it sent piles up in the kernel (100,000 chunks grew the kernel by ~90 MB more
than a client that drops them). A ``MemoryLink`` holds at most ``capacity`` messages; a
writer on a full link awaits until the reader takes one, the way a stdio agent's write blocks
on a full pipe.

Closing either end closes both of its links, like a pipe: the peer still reads what was sent
before the close and then end of stream (None), and any write into a closed link (one waiting
on a full link included) raises ``ConnectionError``. The bound counts messages, not bytes:
in-process a message is an object the sender has already built in the same heap, so a large
one costs its own size once, whatever the link holds.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

CAPACITY = 64
"""Messages one link holds before its writer waits (a few frames of a fast stream)."""


class MemoryLink:
    """One direction of the in-process pair: a bounded first-in first-out queue of messages."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("a link holds at least one message")
        self.capacity = capacity
        self._items: deque[dict[str, Any]] = deque()
        self._readers: deque[asyncio.Future[None]] = deque()
        self._writers: deque[asyncio.Future[None]] = deque()
        self.closed = False

    def __len__(self) -> int:
        return len(self._items)

    async def put(self, message: dict[str, Any]) -> None:
        """Add ``message``, waiting while the link is full; ConnectionError once the link is closed."""
        while len(self._items) >= self.capacity and not self.closed:
            await _wait(self._writers)
        if self.closed:
            raise ConnectionError("the in-process link to the agent is closed")
        self._items.append(message)
        _wake_one(self._readers)

    async def get(self) -> dict[str, Any] | None:
        """The oldest message, waiting for one; None (end of stream) once the link is closed and empty."""
        while not self._items:
            if self.closed:
                return None
            await _wait(self._readers)
        message = self._items.popleft()
        _wake_one(self._writers)
        return message

    def close(self) -> None:
        """No more writes; what the link holds is still read, then end of stream. Wakes every waiter."""
        if self.closed:
            return
        self.closed = True
        for waiters in (self._readers, self._writers):
            while waiters:
                waiter = waiters.popleft()
                if not waiter.done():
                    waiter.set_result(None)


async def _wait(waiters: deque[asyncio.Future[None]]) -> None:
    """Wait to be woken; a waiter cancelled after it was woken hands the wake-up to the next one."""
    waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    waiters.append(waiter)
    try:
        await waiter
    except asyncio.CancelledError:
        if waiter.done() and not waiter.cancelled():
            _wake_one(waiters)
        raise
    finally:
        if waiter in waiters:
            waiters.remove(waiter)


def _wake_one(waiters: deque[asyncio.Future[None]]) -> None:
    while waiters:
        waiter = waiters.popleft()
        if not waiter.done():
            waiter.set_result(None)
            return


class MemoryEnd:
    """One end of the in-process pair (the SDK's message ``Transport``): writes one link, reads the other."""

    def __init__(self, outbox: MemoryLink, inbox: MemoryLink) -> None:
        self._outbox = outbox
        self._inbox = inbox

    async def send(self, message: dict[str, Any]) -> None:
        # a copy of the envelope, as the SDK's pair makes: the receiver may change its keys (the guard does)
        await self._outbox.put(dict(message))

    async def receive(self) -> dict[str, Any] | None:
        return await self._inbox.get()

    async def close(self) -> None:
        """Both directions, as closing a pipe's end does: the peer reads to the end, its writes fail."""
        self._outbox.close()
        self._inbox.close()


def memory_pair(capacity: int = CAPACITY) -> tuple[MemoryEnd, MemoryEnd]:
    """Two linked ends: what one sends, the other receives, at most ``capacity`` messages in flight each way."""
    there, back = MemoryLink(capacity), MemoryLink(capacity)
    return MemoryEnd(there, back), MemoryEnd(back, there)
