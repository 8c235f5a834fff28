"""Split a growing markdown message into pieces that will not change and a short live tail.

Re-rendering a whole streamed message on every display frame costs O(length) per frame, so a
long answer would cost O(length^2) overall. Instead the text is cut at safe points (a blank
line outside a fenced code block, followed by a line at column 0) once the live tail passes
``seal_at`` characters: the part before the cut is rendered once and never again, and each
frame renders only the tail. A fence that grows past ``seal_at`` without closing is cut at a
line boundary: the sealed part gets a closing fence and the tail is rendered with the opening
line in front of it.

The cuts only affect how the message looks while it streams (a loose list may show as two
lists); the view renders the whole text once when the message ends. Safety never depends on
this module: every piece goes through ``nbacp.render.markdown``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


@dataclass
class _Fence:
    line: str
    char: str
    size: int

    def closed_by(self, line: str) -> bool:
        stripped = line.strip()
        return (
            len(line) - len(line.lstrip(" ")) <= 3
            and len(stripped) >= self.size
            and stripped == self.char * len(stripped)
        )


class MarkdownStream:
    """Accumulates chunks in O(1) each; ``take_sealed`` does the scanning once per frame."""

    def __init__(self, seal_at: int = 2048) -> None:
        self.seal_at = seal_at
        self._parts: list[str] = []
        self._pending: list[str] = []
        self._tail = ""
        self._prefix = ""  # reopening fence line when the tail starts inside a cut fence
        self._scanned = 0  # offset in _tail up to which whole lines were scanned
        self._cut = -1  # last offset in _tail just after a blank line outside any fence
        self._blank = -1  # a blank line whose cut waits for the next line to confirm it
        self._fence: _Fence | None = None

    def append(self, text: str) -> None:
        if text:
            self._parts.append(text)
            self._pending.append(text)

    @property
    def text(self) -> str:
        """Everything appended so far (joined once, then kept joined)."""
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @property
    def tail(self) -> str:
        """Markdown source of the live tail, as it must be rendered."""
        self._absorb()
        return self._prefix + self._tail

    def take_sealed(self) -> list[str]:
        """Markdown sources of the pieces sealed since the last call, in order."""
        self._absorb()
        sealed: list[str] = []
        while len(self._tail) >= self.seal_at:
            if self._cut > 0:
                cut = self._cut
                sealed.append(self._prefix + self._tail[:cut])
                self._prefix = ""
            elif self._fence is not None and self._scanned > 0:
                cut = self._scanned
                closing = self._fence.char * self._fence.size
                sealed.append(self._prefix + self._tail[:cut] + closing + "\n")
                self._prefix = self._fence.line + "\n"
            else:
                break  # one very long line, or a fence opened on the tail's only line
            self._tail = self._tail[cut:]
            self._scanned -= cut
            self._cut = -1  # _cut was the last safe point, and a fence cut leaves none
            if self._blank >= 0:
                self._blank -= cut
        return sealed

    def _absorb(self) -> None:
        if not self._pending:
            return
        self._tail += "".join(self._pending)
        self._pending = []
        tail = self._tail
        while (end := tail.find("\n", self._scanned)) >= 0:
            line = tail[self._scanned : end]
            outside = self._fence is None
            if outside and self._blank >= 0 and line.strip():
                # a blank line is a safe cut only when what follows starts at column 0: an
                # indented line may continue a list item (or its indented fence) across the blank
                if not line[:1].isspace():
                    self._cut = self._blank
                self._blank = -1
            self._scan_line(line)
            self._scanned = end + 1
            if outside and self._fence is None and not line.strip():
                self._blank = end + 1

    def _scan_line(self, line: str) -> None:
        if self._fence is not None:
            if self._fence.closed_by(line):
                self._fence = None
            return
        match = _FENCE_OPEN.match(line)
        if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            marker = match.group(1)
            self._fence = _Fence(line=line, char=marker[0], size=len(marker))
