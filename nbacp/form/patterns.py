"""Agent ``pattern``s: ECMA-262 semantics, one time budget per pass over a form, bounded caches.

A *pass* is one look at a whole form: reading its schema (defaults are checked) or one
validation of a draft (every keystroke, every Accept). All the pattern checks of a pass share
``PATTERN_BUDGET`` seconds, so 300 fields with a backtracking pattern cost one budget, not 300
timeouts. Results are remembered (bounded) so that a keystroke re-checks only what changed,
and a pattern that proved slow is not re-run for the same text.

A pattern the engine cannot compile does not make a field nothing can satisfy: the field
stays answerable and carries a visible warning instead (``pattern_warning``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Final

from nbacp.form.ecma import ENGINE, Engine, Outcome

PATTERN_BUDGET: Final = 0.5
"""Seconds all the agent's patterns of one form may take together in one pass."""

FAIR_SHARE: Final = 0.1
"""A check that ran out of time after at least this long is remembered as too slow for that text."""

RESULT_ENTRIES: Final = 4096
RESULT_CHARS: Final = 4 * 1024 * 1024
"""Remembered results: at most this many, holding at most this many pattern + text characters."""

TOO_SLOW: Final = "The pattern this field requires took too long to check; the value cannot be accepted."
TOO_COSTLY: Final = "The pattern this field requires is too complex to check safely; the value cannot be accepted."
BROKEN_TEXT: Final = "Must be valid text (it contains a broken character)."
UNCHECKED: Final = "The agent's pattern could not be checked ({why}); any text is accepted here."

_REMEMBERED: Final = frozenset({Outcome.MATCH, Outcome.NO_MATCH, Outcome.INVALID, Outcome.BAD_TEXT, Outcome.CRASHED})


class _Results:
    """A small LRU of (pattern, text) -> outcome, bounded by entries and by characters held."""

    def __init__(self) -> None:
        self._entries: OrderedDict[tuple[str, str], Outcome] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> Outcome | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: tuple[str, str], outcome: Outcome) -> None:
        size = len(key[0]) + len(key[1])
        if size > RESULT_CHARS // 8:
            return  # one huge text would push everything else out
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = outcome
            self._chars += size
            while len(self._entries) > RESULT_ENTRIES or self._chars > RESULT_CHARS:
                (pattern, text), _ = self._entries.popitem(last=False)
                self._chars -= len(pattern) + len(text)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._chars = 0

    @property
    def chars(self) -> int:
        return self._chars

    def __len__(self) -> int:
        return len(self._entries)


RESULTS: Final = _Results()


class PatternPass:
    """The pattern checks of one pass over a form, sharing one deadline."""

    def __init__(self, budget: float = PATTERN_BUDGET, *, engine: Engine = ENGINE) -> None:
        self.deadline = time.monotonic() + budget
        self.engine = engine

    def outcome(self, pattern: str, text: str) -> tuple[Outcome, str]:
        key = (pattern, text)
        known = RESULTS.get(key)
        if known is not None:
            return known, ""
        left = self.deadline - time.monotonic()
        if left <= 0:
            return Outcome.TIMEOUT, ""
        result = self.engine.search(pattern, text, left)
        if result.outcome in _REMEMBERED or (result.outcome is Outcome.TIMEOUT and left >= FAIR_SHARE):
            RESULTS.put(key, result.outcome)
        return result.outcome, result.detail

    def error(self, pattern: str, text: str) -> str | None:
        """The validation message for ``text`` (JSON Schema: an unanchored search), or None."""
        outcome, _ = self.outcome(pattern, text)
        if outcome is Outcome.NO_MATCH:
            return f"Must match the pattern {pattern}."
        if outcome is Outcome.TIMEOUT:
            return TOO_SLOW
        if outcome is Outcome.CRASHED:
            return TOO_COSTLY
        if outcome is Outcome.BAD_TEXT:
            return BROKEN_TEXT
        return None  # a match, or a pattern that cannot be checked (see warning())

    def warning(self, pattern: str) -> str | None:
        """Why this pattern cannot be checked at all, for the person to see; None if it can."""
        outcome, detail = self.outcome(pattern, "")
        if outcome is Outcome.INVALID:
            why = "it is not an ECMAScript regular expression" + (f": {detail}" if detail else "")
            return UNCHECKED.format(why=why)
        if outcome is Outcome.UNAVAILABLE:
            return UNCHECKED.format(why=detail or "no pattern engine is available")
        return None
