"""A static bound on what compiling an agent's ``pattern`` costs.

``regex`` honours its ``timeout`` only while matching. Compiling expands the mandatory part
of counted repeats (``(?:a{65535}){65535}`` asks for ~4e9 nodes), which takes unbounded time
and memory before any timeout applies. This estimate over-counts and never under-counts, so
a pattern within the budget compiles in tens of milliseconds.
"""

from __future__ import annotations

import functools
import re
from typing import Final

COMPILE_BUDGET: Final = 100_000
"""Expanded pattern items allowed; about 1e6 of them take ~0.6 s to compile here."""

_QUANTIFIER: Final = re.compile(r"\{(\d*)(?:,(\d*))?\}")
_HARD_FLAGS: Final = re.compile(r"\(\?[\^a-zA-Z0-9-]*[xV]")  # verbose comments or V1 nested sets


@functools.lru_cache(maxsize=512)
def expansion_cost(pattern: str) -> int:
    """An upper bound on the items ``regex`` expands this pattern into."""
    if _HARD_FLAGS.search(pattern):
        return _crude(pattern)
    structured = _structured(pattern)
    return _crude(pattern) if structured is None else structured


def _crude(pattern: str) -> int:
    """Every item repeated by the product of every counted repeat: always an upper bound."""
    cost = max(len(pattern), 1)
    for match in _QUANTIFIER.finditer(pattern):
        cost *= max(int(match.group(1) or 0), 1)
        if cost > COMPILE_BUDGET:
            return cost
    return cost


def _structured(pattern: str) -> int | None:
    """Sum of items times the minimum counts of their enclosing repeats; None if unsure."""
    frames: list[list[int]] = [[0, 0]]  # per open group: [total cost, cost of the last atom]
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        frame = frames[-1]
        atom: int | None = 1
        if char == "\\":
            i += 2
        elif char == "[":
            i = _class_end(pattern, i)
        elif char == "(" and pattern.startswith("(?#", i):
            end = pattern.find(")", i)
            i = n if end < 0 else end + 1
            atom = None
        elif char == "(":
            frames.append([0, 0])
            i += 1
            atom = None
        elif char == ")":
            if len(frames) == 1:
                return None
            atom = max(frames.pop()[0], 1)
            i += 1
        elif char == "{" and (quantifier := _QUANTIFIER.match(pattern, i)):
            times = max(int(quantifier.group(1) or 0), 1)
            frame[0] += frame[1] * (times - 1)
            frame[1] *= times
            i = quantifier.end()
            atom = None
        elif char == "|":
            frame[1] = 0
            i += 1
            atom = None
        else:
            i += 1
        if atom is not None:
            frame = frames[-1]
            frame[0] += atom
            frame[1] = atom
        if frames[-1][0] > COMPILE_BUDGET:
            return frames[-1][0]
    return sum(f[0] for f in frames)


def _class_end(pattern: str, start: int) -> int:
    """Index after a ``[...]`` set (V0 rules: a leading ``]`` is literal, ``[`` inside is literal)."""
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1
