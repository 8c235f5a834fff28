"""Agent strings made safe on the way in, and given back exactly on the way out.

Every string the agent sends (in requests, notifications and replies alike) is made comm-safe
by the guard before anything else sees it (``nbacp.render.safe_text.comm_safe``: a lone
surrogate cannot be encoded as UTF-8, so a widget, a print or a record holding one fails the
cell). That replacement is lossy (``"fast\\ud800"`` and ``"fast\\udbff"`` both clean to
``"fast\\ufffd"``), yet an answer must carry the agent's own value byte for byte: an option id,
an enum value, a config value, a session or mode id. The ledger gives each such string a
stand-in of its own and puts the original back in every message nbacp sends (docs/protocol.md,
'Agent text').

One to one, as a card's page strings are (``nbacp.render.page_text.PageText``): the first
string to clean to a text gets that text, any other original that cleans to it gets
``"<text> (2)"``, ``"<text> (3)"``... A clean string holding U+FFFD itself is noted too, so
an original that arrives later moves on to ``" (2)"``; one that arrives after an original took
its text cannot be told from that stand-in met again (an in-process agent's objects are
cleaned in place and may be sent twice), and stands for that original. At most
``MAX_ENTRIES`` strings are kept, the oldest dropped first (an answer naming a dropped
stand-in is sent as shown; the log says so once).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nbacp.render.safe_text import comm_safe

MAX_ENTRIES = 4096


class TextLedger:
    """Original text -> its stand-in, and back, for the strings that hold U+FFFD once cleaned."""

    def __init__(self, note: Callable[[str], None] | None = None) -> None:
        self._stand_in: dict[str, str] = {}  # original -> stand-in (insertion order: the oldest first)
        self._original: dict[str, str] = {}  # stand-in -> original
        self._changed = 0  # entries whose stand-in differs from the original (restore has work)
        self._note = note

    def __len__(self) -> int:
        return len(self._stand_in)

    def clean(self, text: str) -> str:
        """``text`` made comm-safe, as a stand-in no other original of this connection has."""
        safe = comm_safe(text)
        if "\ufffd" not in safe:  # nothing replaced, and nothing a replacement could be taken for
            return safe
        known = self._stand_in.get(text)
        if known is not None:
            return known
        if safe == text and text in self._original:
            # Clean text that is a stand-in in use: this ledger's own, met again (an in-process
            # agent re-sends objects the guard cleaned in place), or the agent's own U+FFFD text
            # arriving after another original took it. They cannot be told apart: it stays that
            # stand-in (one that arrives first keeps its text, and the later originals move on).
            return text
        stand_in, n = safe, 1
        while stand_in in self._original:  # another original already stands there
            n += 1
            stand_in = f"{safe} ({n})"
        if len(self._stand_in) >= MAX_ENTRIES:
            self._forget_oldest()
        self._stand_in[text] = stand_in
        self._original[stand_in] = text
        self._changed += stand_in != text
        return stand_in

    def _forget_oldest(self) -> None:
        oldest = next(iter(self._stand_in))
        stand_in = self._stand_in.pop(oldest)
        del self._original[stand_in]
        self._changed -= stand_in != oldest
        if self._note is not None:
            self._note(
                f"More than {MAX_ENTRIES} values from the agent held broken characters; "
                "an answer naming one of the oldest is sent as shown"
            )
            self._note = None  # once per connection

    def restore(self, value: Any) -> Any:
        """``value`` (a JSON message, changed in place) with every stand-in replaced by its original."""
        if not self._changed:
            return value
        originals = self._original
        root: list[Any] = [value]
        stack: list[tuple[Any, Any]] = [(root, 0)]
        while stack:
            parent, key = stack.pop()
            item = parent[key]
            if isinstance(item, str):
                raw = originals.get(item)
                if raw is not None:
                    parent[key] = raw
            elif isinstance(item, dict):
                if any(k in originals for k in item if isinstance(k, str)):
                    fixed = {originals.get(k, k) if isinstance(k, str) else k: v for k, v in item.items()}
                    item.clear()
                    item.update(fixed)
                stack.extend((item, k) for k in item)
            elif isinstance(item, list):
                stack.extend((item, i) for i in range(len(item)))
        return root[0]
