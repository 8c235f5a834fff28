"""The typed record of one answered card: what ``result.answers`` holds and the turn record shows.

Every card a person (or a headless policy) answers gives one ``CardAnswer`` per question: a
form with two questions gives two, each with its own title and value; a declined or
cancelled card gives one, for the card, with ``value`` None. Cards produce them through
``Card.recorded_answers()`` (docs/record.md, 'Answers'); nothing here knows widgets or the
protocol, so the record renderers (``nbacp.render``) read them too.

Older code unpacked each answer as ``kind, question, answer`` (three strings): iterating a
``CardAnswer`` still gives exactly that, with ``str(answer)`` as the third item.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

ACTIONS: tuple[str, ...] = ("accept", "decline", "cancel")


@dataclass(frozen=True, eq=False)
class CardAnswer:
    """One answer: ``kind`` of card, the ``question`` asked (its title), the ``action`` taken,
    and ``value`` as Python values (None for decline and cancel).

    ``value``: a single-select's option value, a multi-select's list of option values, a
    number, a boolean, text; for a permission the chosen option's id; for a URL consent True.
    ``custom``: the Other text of a choice (a multi-select keeps it beside its picks), else None.
    ``line``: the one line shown on the card once answered (``str()`` of the answer).
    """

    kind: str
    question: str
    action: str
    value: Any = None
    custom: str | None = None
    line: str = ""

    def __repr__(self) -> str:
        custom = f", custom={self.custom!r}" if self.custom is not None else ""
        return f"CardAnswer({self.kind!r}, {self.question!r}, {self.action!r}, {self.value!r}{custom})"

    def __str__(self) -> str:
        return self.line or {"accept": "Accepted.", "decline": "Declined.", "cancel": "Cancelled."}.get(
            self.action, self.action
        )

    def __iter__(self) -> Iterator[str]:
        """``kind, question, answer = item``: the three strings answers used to be."""
        return iter((self.kind, self.question, str(self)))

    def _key(self) -> tuple[Any, ...]:
        return (self.kind, self.question, self.action, repr(self.value), self.custom, self.line)

    def __eq__(self, other: object) -> bool:
        """Equal to another answer with the same fields, or to the ``(kind, question, line)`` tuple."""
        if isinstance(other, CardAnswer):
            return self._key() == other._key()
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __len__(self) -> int:
        return 3

    def __getitem__(self, index: int) -> str:
        return (self.kind, self.question, str(self))[index]

    @property
    def verdict(self) -> str:
        """The answer as the record shows it after the question: the line without its "Accepted: "."""
        text = str(self)
        head, sep, rest = text.partition(": ")
        return rest if sep and head == "Accepted" and self.action == "accept" else text
