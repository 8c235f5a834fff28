"""The agent's stderr, drained continuously into a bounded tail.

A pipe nobody reads fills (about 64 KB to 300 KB depending on the OS) and the agent then
blocks on its next write: the turn hangs and what it wrote ("FATAL: API key not set") is
never seen. So a task reads the pipe from the moment the process starts, keeps only the
last ``max_lines`` lines (each clipped to ``max_line_chars``), and the memory this takes
is bounded whatever the agent writes.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib

MAX_LINES = 200
MAX_LINE_CHARS = 2000
_READ_SIZE = 65536


class StderrTail:
    """The last lines an agent wrote to stderr. ``str(tail)`` joins them; ``tail.lines`` lists them."""

    def __init__(self, max_lines: int = MAX_LINES, max_line_chars: int = MAX_LINE_CHARS) -> None:
        self.max_lines = max_lines
        self.max_line_chars = max_line_chars
        self._lines: collections.deque[str] = collections.deque(maxlen=max_lines)
        self._partial = bytearray()
        self._partial_clipped = False
        self.total_bytes = 0  # everything ever written, for "N bytes, last 200 lines shown"
        self.dropped_lines = 0

    @property
    def lines(self) -> list[str]:
        """The kept lines, oldest first, including an unterminated last line."""
        lines = list(self._lines)
        if self._partial:
            lines.append(self._decode(bytes(self._partial), self._partial_clipped))
        return lines

    def __str__(self) -> str:
        return "\n".join(self.lines)

    def __bool__(self) -> bool:
        return bool(self._lines) or bool(self._partial)

    def feed(self, data: bytes) -> None:
        """Take one chunk of raw stderr; split it into lines, clip, and forget the oldest."""
        self.total_bytes += len(data)
        limit = self.max_line_chars * 4  # bytes: a UTF-8 character is at most four
        start = 0
        while True:
            end = data.find(b"\n", start)
            piece = data[start:] if end < 0 else data[start:end]
            room = limit - len(self._partial)
            if len(piece) > room:
                self._partial += piece[: max(room, 0)]
                self._partial_clipped = True
            else:
                self._partial += piece
            if end < 0:
                return
            self._push(self._decode(bytes(self._partial), self._partial_clipped))
            self._partial.clear()
            self._partial_clipped = False
            start = end + 1

    def _push(self, line: str) -> None:
        if len(self._lines) == self._lines.maxlen:
            self.dropped_lines += 1
        self._lines.append(line)

    def _decode(self, raw: bytes, clipped: bool) -> str:
        text = raw.decode("utf-8", errors="replace").rstrip("\r")
        if clipped or len(text) > self.max_line_chars:
            text = text[: self.max_line_chars] + " [line clipped]"
        return text


async def drain(stream: asyncio.StreamReader, tail: StderrTail) -> None:
    """Read ``stream`` until EOF into ``tail``; never raises (the agent may die at any moment)."""
    with contextlib.suppress(ConnectionError, OSError, ValueError):
        while True:
            chunk = await stream.read(_READ_SIZE)
            if not chunk:
                return
            tail.feed(chunk)
