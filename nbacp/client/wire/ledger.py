"""Agent strings made safe on the way in, and given back exactly on the way out.

Every string the agent sends (in requests, notifications and replies alike) is made comm-safe
by the guard before anything else sees it (``nbacp.render.safe_text.comm_safe``: a lone
surrogate cannot be encoded as UTF-8, so a widget, a print or a record holding one fails the
cell). That replacement is lossy (``"fast\\ud800"`` and ``"fast\\udbff"`` both show as
``"fast\\ufffd"``), yet an answer must carry the agent's own value byte for byte: an option id,
an enum value, a config value, a session or mode id. The ledger remembers the raw original of
each string the cleaning changed, and every message nbacp sends to the agent has those strings
put back (docs/protocol.md, 'Agent text').

Only strings that held a lone surrogate are remembered (joining a valid pair changes nothing on
the wire), at most ``MAX_ENTRIES`` of them. Two raw strings that clean to the same text cannot be
told apart; that text is then sent as it is shown, and the connection's log says so once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nbacp.render.safe_text import comm_safe

MAX_ENTRIES = 4096
_AMBIGUOUS = object()


class TextLedger:
    """Cleaned text -> the agent's raw text, for the strings the cleaning changed."""

    def __init__(self, note: Callable[[str], None] | None = None) -> None:
        self._raw: dict[str, Any] = {}
        self._note = note

    def __len__(self) -> int:
        return len(self._raw)

    def clean(self, text: str) -> str:
        """``text`` made comm-safe; the raw original remembered when it held a lone surrogate."""
        safe = comm_safe(text)
        if safe == text or "\ufffd" not in safe:
            return safe
        known = self._raw.get(safe)
        if known is None:
            if len(self._raw) >= MAX_ENTRIES:
                self._raw.pop(next(iter(self._raw)))
            self._raw[safe] = text
        elif known is not _AMBIGUOUS and known != text:
            self._raw[safe] = _AMBIGUOUS
            if self._note is not None:
                self._note(f"Two values from the agent differ only in broken characters ({safe[:80]!r}); "
                           "an answer naming it is sent as shown")
        return safe

    def restore(self, value: Any) -> Any:
        """``value`` (a JSON message, changed in place) with every remembered string put back."""
        if not self._raw:
            return value
        root: list[Any] = [value]
        stack: list[tuple[Any, Any]] = [(root, 0)]
        while stack:
            parent, key = stack.pop()
            item = parent[key]
            if isinstance(item, str):
                raw = self._raw.get(item)
                if raw is not None and raw is not _AMBIGUOUS:
                    parent[key] = raw
            elif isinstance(item, dict):
                if any(k in self._raw for k in item if isinstance(k, str)):
                    fixed = {self._key(k): v for k, v in item.items()}
                    item.clear()
                    item.update(fixed)
                stack.extend((item, k) for k in item)
            elif isinstance(item, list):
                stack.extend((item, i) for i in range(len(item)))
        return root[0]

    def _key(self, key: Any) -> Any:
        raw = self._raw.get(key) if isinstance(key, str) else None
        return key if raw is None or raw is _AMBIGUOUS else raw
