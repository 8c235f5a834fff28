"""The child process that evaluates agent ``pattern``s with ECMA-262 semantics (``regress``).

Run by path (``python ecma_worker.py``), never imported by nbacp: it must start fast and
must not load the notebook side. The ``regress`` engine (Rust) cannot be interrupted while
it matches, and a backtracking pattern like ``^(a|a)*$`` runs for minutes; in a process of
its own it can be killed when its time is up, and its memory is capped, so neither the time
nor the memory an agent's pattern costs ever lands in the kernel.

Protocol: one JSON object a line each way. Request ``{"p": pattern, "t": text}``; reply
``{"r": "match" | "nomatch" | "invalid" | "badtext", "m": message, "bye": bool}``. ``bye``
says the worker exits after this reply because it grew past its memory budget.
"""

from __future__ import annotations

import json
import os
import sys
from collections import OrderedDict
from typing import Any

ADDRESS_SPACE_LIMIT = 1 << 30
"""The worker dies (and is replaced) rather than take more than 1 GiB of address space."""

CPU_SECONDS_LIMIT = 300
"""An orphaned worker (its kernel killed mid-match) stops after this much CPU time at most."""

RSS_BUDGET = int(os.environ.get("NBACP_ECMA_RSS_BUDGET", 96 << 20))
"""After a reply past this resident size (bytes) the worker exits; the next check starts a fresh one."""

CACHE_PATTERNS = 64
CACHE_CHARS = 256 * 1024
"""Compiled patterns kept: at most this many, and at most this many pattern characters in all."""

FLAG_SETS = ("u", "")
"""JSON Schema patterns use Unicode semantics (the suite's "patterns always use unicode
semantics"); a pattern that only compiles under the legacy Annex B grammar (an identity escape
such as ``\\-`` outside a class) is still checked, without the ``u`` flag."""


def _limit_memory() -> None:
    try:
        import resource
    except ImportError:  # Windows: the RSS budget below still recycles the worker
        return
    for kind, limit in ((resource.RLIMIT_AS, ADDRESS_SPACE_LIMIT), (resource.RLIMIT_CPU, CPU_SECONDS_LIMIT)):
        soft, hard = resource.getrlimit(kind)
        cap = limit if hard == resource.RLIM_INFINITY else min(hard, limit)
        if soft == resource.RLIM_INFINITY or soft > cap:
            resource.setrlimit(kind, (cap, hard))


def _rss() -> int:
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * 4096
    except (OSError, ValueError, IndexError):
        return 0


class Cache:
    """Least-recently-used compiled patterns, bounded by count and by pattern characters."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, Any] = OrderedDict()
        self.chars = 0

    def get(self, pattern: str) -> Any:
        compiled = self.entries.get(pattern)
        if compiled is not None:
            self.entries.move_to_end(pattern)
            return compiled
        compiled = _compile(pattern)
        if len(pattern) <= CACHE_CHARS:
            self.entries[pattern] = compiled
            self.chars += len(pattern)
            while len(self.entries) > CACHE_PATTERNS or self.chars > CACHE_CHARS:
                old, _ = self.entries.popitem(last=False)
                self.chars -= len(old)
        return compiled


def _compile(pattern: str) -> Any:
    import regress

    error: Exception | None = None
    for flags in FLAG_SETS:
        try:
            return regress.Regex(pattern, flags or None)
        except regress.RegressError as exc:
            error = error or exc
        except (ValueError, UnicodeError) as exc:  # a lone surrogate in the pattern
            error = error or exc
    return error


def answer(cache: Cache, request: Any) -> dict[str, Any]:
    if not isinstance(request, dict) or not isinstance(request.get("p"), str) or not isinstance(request.get("t"), str):
        return {"r": "invalid", "m": "malformed request"}
    compiled = cache.get(request["p"])
    if isinstance(compiled, Exception):
        return {"r": "invalid", "m": str(compiled)[:500]}
    try:
        found = compiled.find(request["t"])
    except (ValueError, UnicodeError):
        return {"r": "badtext", "m": "the text is not valid Unicode"}
    return {"r": "match" if found is not None else "nomatch"}


def main() -> None:
    _limit_memory()
    cache = Cache()
    import regress  # noqa: F401  (load the engine before saying ready)

    sys.stdout.write('{"r": "ready"}\n')
    sys.stdout.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        reply = answer(cache, request)
        bye = _rss() > RSS_BUDGET
        reply["bye"] = bye
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if bye:
            return


if __name__ == "__main__":
    main()
