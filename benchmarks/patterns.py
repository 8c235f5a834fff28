"""Agent ``pattern`` budgets: time per pass over a form, and memory of compiled patterns.

Agent patterns must run with bounded time and memory (docs/protocol.md, 'Elicitation spec points').

time: a form of N string fields, each with the backtracking pattern ``^(a|a)*$`` and a text
that makes it explode, checked in one pass (as one keystroke or one Accept does), against
a per-field bound (each field its own budget: what nbacp did before, 0.1 s a field), measured
on a few fields and scaled to N. Columns: seconds of the pass, engine calls that ran, the
per-field bound's seconds for the same N, and their ratio.

memory: K distinct large patterns (alternations of ~80 KB each) checked one after another,
against compiling and keeping them in the kernel's own process (what an unbounded in-process
cache does). Columns: growth of this process's resident memory, the worker's largest resident
size seen, workers started (the worker is recycled past its budget), and the ratio of the
in-process growth to nbacp's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from nbacp.form import Form, ecma_worker
from nbacp.form.ecma import ENGINE
from nbacp.form.patterns import PATTERN_BUDGET, RESULTS, PatternPass

SLOW = "^(a|a)*$"
PER_FIELD_BOUND = 0.1  # what nbacp's regex-module check allowed each field before


def _rss(pid: int | str = "self") -> int:
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * 4096
    except (OSError, ValueError, IndexError):
        return 0


@dataclass
class TimeRun:
    fields: int
    build_seconds: float
    pass_seconds: float
    calls: int
    per_field_seconds: float

    @property
    def ratio(self) -> float:
        return self.per_field_seconds / max(self.pass_seconds, 1e-9)


def run_time(fields: int, sample: int = 5) -> TimeRun:
    RESULTS.clear()
    values = {f"f{i}": "a" * 40 + f"b{i}" for i in range(fields)}
    props = {f"f{i}": {"type": "string", "pattern": SLOW, "default": values[f"f{i}"] + "d"} for i in range(fields)}
    start = time.perf_counter()
    form = Form.from_schema({"properties": props})  # every default is checked: one pass
    build_seconds = time.perf_counter() - start
    calls = 0
    real = ENGINE.search

    def counting(pattern: str, text: str, timeout: float):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return real(pattern, text, timeout)

    ENGINE.search = counting  # type: ignore[method-assign]
    try:
        start = time.perf_counter()
        errors = form.validate(values)
        pass_seconds = time.perf_counter() - start
    finally:
        del ENGINE.search  # type: ignore[method-assign]
    assert len(errors) == fields
    # the per-field bound: every field gets its own allowance; measured on `sample` fields, scaled
    RESULTS.clear()
    start = time.perf_counter()
    for i in range(sample):
        PatternPass(PER_FIELD_BOUND).error(SLOW, values[f"f{i}"] + "x")
    per_field = (time.perf_counter() - start) / sample * fields
    return TimeRun(fields, build_seconds, pass_seconds, calls, per_field)


@dataclass
class MemoryRun:
    patterns: int
    ours_growth: int
    worker_peak: int
    workers: int
    inprocess_growth: int

    @property
    def ratio(self) -> float:
        return self.inprocess_growth / max(self.ours_growth, 1 << 20)


def _large_pattern(i: int) -> str:
    return f"^(?:{i}|" + "|".join(f"w{i}x{j}" for j in range(8000)) + ")$"


def run_memory(patterns: int) -> MemoryRun:
    import regress

    RESULTS.clear()
    ENGINE.close()
    started = ENGINE.started
    before = _rss()
    worker_peak = 0
    for i in range(patterns):
        PatternPass(5.0).error(_large_pattern(i), "w0x1")
        if ENGINE.pid is not None:
            worker_peak = max(worker_peak, _rss(ENGINE.pid))
    ours = _rss() - before
    workers = ENGINE.started - started
    RESULTS.clear()
    before = _rss()
    kept = [regress.Regex(_large_pattern(i), "u") for i in range(patterns)]
    inprocess = _rss() - before
    del kept
    return MemoryRun(patterns, ours, worker_peak, workers, inprocess)


def main(fields: list[int], patterns: list[int]) -> None:
    print(f"patterns/time: one pass over N slow fields (budget {PATTERN_BUDGET} s a pass) vs a per-field bound")
    header = f"{'fields':>7} {'build s':>8} {'pass s':>8} {'calls':>6} {'per-field s':>12} {'per-field/pass':>15}"
    print(header)
    print("-" * len(header))
    for n in fields:
        run = run_time(n)
        print(
            f"{n:>7} {run.build_seconds:>8.2f} {run.pass_seconds:>8.2f} {run.calls:>6} "
            f"{run.per_field_seconds:>12.1f} {run.ratio:>14.1f}x"
        )
    print(
        f"\npatterns/memory: K distinct ~80 KB patterns; worker cache <= {ecma_worker.CACHE_PATTERNS} patterns / "
        f"{ecma_worker.CACHE_CHARS // 1024} KB, recycled past {ecma_worker.RSS_BUDGET >> 20} MB"
    )
    header = f"{'K':>5} {'kernel +MB':>11} {'worker peak MB':>15} {'workers':>8} {'in-process +MB':>15} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    for k in patterns:
        m = run_memory(k)
        print(
            f"{k:>5} {m.ours_growth / 2**20:>11.1f} {m.worker_peak / 2**20:>15.1f} {m.workers:>8} "
            f"{m.inprocess_growth / 2**20:>15.1f} {m.ratio:>6.1f}x"
        )
