"""A proposed cell edit as a person reviews it: the source checks and the diff.

Pure functions (no widgets, no protocol), shared by the notebook tools (which refuse a bad
proposal before any card is shown), the review card (which checks the person's own version and
shows the diff) and the turn record (which keeps the diff folded). A source is refused, never
cleaned: an edit that silently differed from what was proposed would be a phantom change.
"""

from __future__ import annotations

import difflib
import re

from nbacp.render.safe_text import BIDI_CONTROLS

MAX_SOURCE = 50_000
"""Characters of one proposed cell source; a longer proposal is refused (a tool error)."""
MAX_DIFF_LINES = 200
"""Diff lines a card or a record shows; the rest are counted ("... N more lines")."""

_FORBIDDEN = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff{BIDI_CONTROLS}]")


def source_problem(source: str, *, limit: int = MAX_SOURCE) -> str | None:
    """Why ``source`` cannot go into a cell as proposed, or None.

    Refused: more than ``limit`` characters; NUL and other control characters (a binary
    payload, not code: tab, newline and carriage return are fine); lone surrogates (they
    cannot be saved as UTF-8); bidi controls, which make code read differently from how it
    runs ("Trojan Source").
    """
    if len(source) > limit:
        return f"The source is {len(source):,} characters; a cell proposal may have at most {limit:,}."
    bad = _FORBIDDEN.search(source)
    if bad is None:
        return None
    char = bad.group()
    line = source.count("\n", 0, bad.start()) + 1
    if char in BIDI_CONTROLS:
        what = "a bidi control character, which makes code read differently from how it runs"
    elif "\ud800" <= char <= "\udfff":
        what = "a lone surrogate, which cannot be saved"
    else:
        what = "a control character (binary data is not a cell source)"
    return f"The source holds U+{ord(char):04X} on line {line}: {what}. Nothing was applied."


def diff_lines(old: str, new: str, *, limit: int = MAX_DIFF_LINES) -> tuple[list[tuple[str, str]], int, int, int]:
    """``(lines, added, removed, more)``: the changed lines of ``old`` -> ``new`` as
    ``(tag, text)`` with tag ``+``, ``-``, `` `` (context) or ``@`` (a hunk's gap), at most
    ``limit`` of them (``more`` counts the rest); ``added`` / ``removed`` count every line."""
    a, b = old.splitlines(), new.splitlines()
    lines: list[tuple[str, str]] = []
    added = removed = 0
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(1):
        if lines:
            lines.append(("@", "…"))
        for op, i1, i2, j1, j2 in group:
            if op == "equal":
                lines.extend((" ", text) for text in a[i1:i2])
                continue
            lines.extend(("-", text) for text in a[i1:i2])
            lines.extend(("+", text) for text in b[j1:j2])
            removed += i2 - i1
            added += j2 - j1
    return lines[:limit], added, removed, max(0, len(lines) - limit)


def diff_text(old: str, new: str, *, limit: int = MAX_DIFF_LINES) -> str:
    """The diff as plain text lines (``+ x`` / ``- y``), for the turn record's fold."""
    lines, _, _, more = diff_lines(old, new, limit=limit)
    text = "\n".join(f"{tag} {line}" if tag != "@" else "…" for tag, line in lines)
    return text + (f"\n… {more} more lines" if more else "")


def line_count(source: str) -> int:
    """Lines of a cell's source (an empty cell has none)."""
    return len(source.splitlines())
