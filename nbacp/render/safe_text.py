"""Agent strings made safe to show: valid Unicode, no bidi tricks, no math, bounded depth.

Pure functions (no ipywidgets), used by the client's request guard, the widgets' text helpers,
the markdown renderer and the turn record, so any new view built on them inherits all four:

- ``comm_safe``: a lone surrogate (an emoji cut in half by an agent that splits UTF-16) cannot
  be encoded as UTF-8, so a widget holding one cannot go onto the comm and the turn fails.
  Valid pairs are joined, lone halves become U+FFFD. ``SurrogateJoiner`` re-joins a pair that
  was split across two streamed chunks.
- ``neutral_bidi``: an override (U+202E) or isolate makes ``exe.txt`` read ``txt.exe``; these
  characters are shown as ``<U+202E>`` instead of being obeyed.
- ``NO_MATH_OPEN``/``NO_MATH_CLOSE``: markdown shown by JupyterLab is typeset by MathJax after
  it is rendered, so ``price $5 and $6`` would become math even when every ``$`` is escaped
  in the markdown source. Wrapping the record in an element with MathJax's ignore classes
  keeps it text (JupyterLab trusts outputs of its own session, so the wrapper survives).
- ``bounded_json``: pretty JSON of any structure, cut at a fixed depth and size, without
  recursion (a 3,000-deep ``rawInput`` must not raise RecursionError).
"""

from __future__ import annotations

import json
import re
from typing import Any

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
NO_TYPESET_CLASSES = ("mathjax_ignore", "tex2jax_ignore")
"""CSS classes that MathJax 2 and 3 (and JupyterLab's typesetter) skip."""
NO_MATH_OPEN = f'<div class="{" ".join(NO_TYPESET_CLASSES)} nbacp-no-math">\n\n'
NO_MATH_CLOSE = "\n\n</div>\n"
MAX_DEPTH = 12
MAX_JSON_CHARS = 200_000


def comm_safe(text: str) -> str:
    """``text`` encodable as UTF-8: surrogate pairs joined, lone surrogates replaced by U+FFFD."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def neutral_bidi(text: str) -> str:
    """``text`` with every bidi override/isolate/mark shown as ``<U+XXXX>`` instead of obeyed."""
    return _BIDI.sub(lambda m: f"<U+{ord(m.group(0)):04X}>", text)


def safe_text(text: str) -> str:
    """The text every agent string goes through before a person sees it."""
    return neutral_bidi(comm_safe(text))


def no_math_markdown(markdown: str) -> str:
    """``markdown`` inside a block that MathJax leaves alone (see the module docstring)."""
    return NO_MATH_OPEN + markdown + NO_MATH_CLOSE


class SurrogateJoiner:
    """Re-joins a surrogate pair split across streamed chunks, per stream key.

    ``feed`` holds back a trailing high surrogate and puts it in front of the next chunk of
    the same stream; ``flush`` gives back what is held (as U+FFFD: it was never completed).
    """

    def __init__(self) -> None:
        self._held: dict[Any, str] = {}

    def feed(self, key: Any, text: str) -> str:
        held = self._held.pop(key, "")
        text = held + text
        if text and "\ud800" <= text[-1] <= "\udbff":
            self._held[key] = text[-1]
            text = text[:-1]
        return comm_safe(text)

    def flush(self, key: Any) -> str:
        return "\ufffd" if self._held.pop(key, "") else ""

    def held(self) -> list[Any]:
        return list(self._held)


def bounded_json(value: Any, *, max_depth: int = MAX_DEPTH, max_chars: int = MAX_JSON_CHARS) -> str:
    """Pretty JSON of ``value`` with containers deeper than ``max_depth`` shown as ``"…"``.

    Iterative copy first (no recursion, so any depth is fine), then ``json.dumps`` of a
    structure that is at most ``max_depth`` deep; the text is cut at ``max_chars``.
    """
    root: list[Any] = [None]
    stack: list[tuple[Any, list[Any] | dict[str, Any], Any, int]] = [(value, root, 0, 0)]
    while stack:
        item, parent, key, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth >= max_depth:
                size = len(item)
                out: Any = f"… ({size} more {'keys' if isinstance(item, dict) else 'items'} nested deeper)"
            elif isinstance(item, dict):
                out = {}
                for k, v in item.items():
                    stack.append((v, out, str(k), depth + 1))
            else:
                out = [None] * len(item)
                for i, v in enumerate(item):
                    stack.append((v, out, i, depth + 1))
        elif item is None or isinstance(item, bool | int | float):
            out = item
        else:
            out = str(item)
        parent[key] = out
    try:
        text = json.dumps(root[0], indent=2, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(root[0])
    if len(text) > max_chars:
        text = text[:max_chars] + f"\n… ({len(text) - max_chars} more characters)"
    return comm_safe(text)
