"""The session updates of a connection, each held once and compactly.

A streaming agent sends one ``session/update`` per few words: a long turn is 100,000 pydantic
objects (an ``AgentMessageChunk`` holding a ``TextContentBlock``, about 1.1 KB each), and
the client used to keep each in three lists (the client's, the transcript's, the result's).
``UpdateLog`` keeps every update exactly once, and a plain text chunk (no annotations, no
``_meta``, nothing but its text and message id) only as its text, in a run of chunks of the
same kind and message: about the size of the text. Reading an update back builds an equal
object again; anything that is not a plain chunk is kept as received.

``UpdateLog.view(start, stop)`` is a read-only window (a turn's updates) that shares the log.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from typing import Any, overload

from acp import schema

_CHUNK_KINDS: dict[type, str] = {
    schema.AgentMessageChunk: "agent_message_chunk",
    schema.AgentThoughtChunk: "agent_thought_chunk",
    schema.UserMessageChunk: "user_message_chunk",
}
_CHUNK_FIELDS = frozenset({"session_update", "content", "message_id"})
_TEXT_FIELDS = frozenset({"type", "text"})


class _Run:
    """Consecutive plain text chunks of one kind and message: only their texts are kept."""

    __slots__ = ("cls", "has_id", "message_id", "texts")

    def __init__(self, cls: type, message_id: str | None, has_id: bool) -> None:
        self.cls = cls
        self.message_id = message_id
        self.has_id = has_id
        self.texts: list[str] = []

    def matches(self, cls: type, message_id: str | None, has_id: bool) -> bool:
        return self.cls is cls and self.message_id == message_id and self.has_id == has_id

    def build(self, index: int) -> Any:
        content = schema.TextContentBlock(type="text", text=self.texts[index])
        fields: dict[str, Any] = {"session_update": _CHUNK_KINDS[self.cls], "content": content}
        if self.has_id:
            fields["message_id"] = self.message_id
        return self.cls(**fields)


def _plain_chunk(update: Any) -> tuple[type, str | None, bool, str] | None:
    """(class, message id, whether it was given, text) of a chunk that its text rebuilds exactly."""
    cls = type(update)
    if cls not in _CHUNK_KINDS or update.model_extra or not update.model_fields_set <= _CHUNK_FIELDS:
        return None
    content = update.content
    if type(content) is not schema.TextContentBlock or content.model_extra:
        return None
    if not content.model_fields_set <= _TEXT_FIELDS:
        return None
    has_id = "message_id" in update.model_fields_set
    return cls, update.message_id, has_id, content.text


class UpdateLog(Sequence[Any]):
    """Every update appended, in order; plain text chunks stored as their text (see module doc)."""

    def __init__(self) -> None:
        self._entries: list[Any] = []  # an update as received, or a _Run
        self._starts: list[int] = []  # index of each entry's first update
        self._length = 0

    def append(self, update: Any) -> None:
        plain = _plain_chunk(update)
        if plain is not None:
            cls, message_id, has_id, text = plain
            last = self._entries[-1] if self._entries else None
            if not (isinstance(last, _Run) and last.matches(cls, message_id, has_id)):
                last = _Run(cls, message_id, has_id)
                self._entries.append(last)
                self._starts.append(self._length)
            last.texts.append(text)
        else:
            self._entries.append(update)
            self._starts.append(self._length)
        self._length += 1

    def __len__(self) -> int:
        return self._length

    def _get(self, index: int) -> Any:
        at = bisect.bisect_right(self._starts, index) - 1
        entry = self._entries[at]
        return entry.build(index - self._starts[at]) if isinstance(entry, _Run) else entry

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self._get(i) for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("update index out of range")
        return self._get(index)

    def __iter__(self) -> Iterator[Any]:
        return self.iter_range(0, self._length)

    def iter_range(self, start: int, stop: int) -> Iterator[Any]:
        """The updates ``start`` to ``stop``, built one at a time."""
        if start >= stop:
            return
        at = bisect.bisect_right(self._starts, start) - 1
        index = start
        while index < stop and at < len(self._entries):
            entry, first = self._entries[at], self._starts[at]
            if isinstance(entry, _Run):
                end = min(stop, first + len(entry.texts))
                for i in range(index - first, end - first):
                    yield entry.build(i)
                index = end
            else:
                yield entry
                index += 1
            at += 1

    def view(self, start: int = 0, stop: int | None = None) -> UpdateView:
        """A read-only window on updates ``start`` to ``stop`` (None: up to whatever arrives)."""
        return UpdateView(self, start, stop)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Sequence)
            and len(other) == len(self)
            and all(a == b for a, b in zip(self, other, strict=True))
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<UpdateLog: {self._length} updates>"


class UpdateView(Sequence[Any]):
    """Updates ``start``..``stop`` of a log (open-ended while ``stop`` is None), without copying."""

    def __init__(self, log: UpdateLog, start: int, stop: int | None) -> None:
        self._log = log
        self._start = start
        self._stop = stop

    def freeze(self) -> UpdateView:
        """The same window, closed at the log's current end."""
        return UpdateView(self._log, self._start, len(self._log) if self._stop is None else self._stop)

    def _end(self) -> int:
        return len(self._log) if self._stop is None else self._stop

    def __len__(self) -> int:
        return max(self._end() - self._start, 0)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        size = len(self)
        if isinstance(index, slice):
            return [self._log[self._start + i] for i in range(*index.indices(size))]
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("update index out of range")
        return self._log[self._start + index]

    def __iter__(self) -> Iterator[Any]:
        return self._log.iter_range(self._start, self._end())

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Sequence)
            and len(other) == len(self)
            and all(a == b for a, b in zip(self, other, strict=True))
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))
