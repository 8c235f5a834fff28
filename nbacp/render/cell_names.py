"""A cell as the person knows it: its place in the notebook, its execution count, its first line.

JupyterLab shows no cell ids, so "cell b7c1" means nothing to a person; "cell 4 [5] `df.head()`"
does: the fourth cell, run as [5], starting with ``df.head()``. The review card, its summary line
and the turn record name cells this way; what goes back to the agent keeps the ids, which it
addresses cells by (docs/cards.md, 'The review card'). The first line is agent or notebook text:
each consumer makes it safe its own way (the card shows controls as ``<U+XXXX>``, the record
strips them), so nothing here is escaped.
"""

from __future__ import annotations

from dataclasses import dataclass

FIRST_LINE = 40
"""Characters of a cell's first line in its name; a longer one is cut and ends with "…"."""


def first_line(source: str, *, limit: int = FIRST_LINE) -> str:
    """The first line of ``source`` that holds anything but blanks, stripped, cut at ``limit``."""
    for line in source.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[:limit].rstrip() + "…"
    return ""


@dataclass(frozen=True)
class CellName:
    """One cell named for the person: ``str()`` is "cell 4 [5] `df.head()`" (or "cell 4 (empty)")."""

    place: int
    """1-based position in the notebook as read."""
    count: int | None = None
    """The execution count, when the cell has one."""
    line: str = ""
    """The first line (``first_line``), "" for an empty cell."""

    @classmethod
    def of(cls, place: int, count: int | None, source: str) -> CellName:
        return cls(place, count, first_line(source))

    @property
    def label(self) -> str:
        """The place and count without the first line: "cell 4 [5]"."""
        return f"cell {self.place}" + (f" [{self.count}]" if self.count is not None else "")

    def __str__(self) -> str:
        return f"{self.label} `{self.line}`" if self.line else f"{self.label} (empty)"
