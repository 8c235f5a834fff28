"""``python -m benchmarks``: run the benchmarks (all by default) and print their tables (see README.md).

``--quick`` runs every benchmark at small sizes, for CI (``make bench-quick``): it checks that
the benchmarks still run against the current code, not how fast it is. Nothing here ever
fails on a figure; a benchmark fails only when it crashes or its own sanity checks do (an
agent that did not get the answers it expected).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from benchmarks import (
    browser,
    budgets,
    cards,
    day_report,
    notebook_edits,
    patterns,
    roundtrip,
    roundtrip_memory,
    streaming,
    turn_memory,
    turn_traffic,
)

BENCHMARKS = (
    "streaming",
    "roundtrip",
    "patterns",
    "budgets",
    "cards",
    "turn-memory",
    "browser",
    "notebook-edits",
    "day",
    "turn-traffic",
)
QUICK = {
    "sizes": [200, 1_000],
    "budget": 1.0,
    "questions": [10, 30],
    "open_cards": 10,
    "cards": 5,
    "answered": 50,
    "chunks": [2_000],
    "browser_cards": 3,
    "browser_chunks": 500,
    "pattern_fields": [20],
    "pattern_count": [10],
    "stall_scale": 0.05,
    "edit_rounds": 3,
    "day_turns": 10,
    "day_rounds": 1,
    "day_cards": 20,
    "turns": 3,
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS), help="benchmarks to run")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000], help="streaming: chunk counts")
    parser.add_argument("--budget", type=float, default=10.0, help="streaming: CPU seconds the naive view may use")
    parser.add_argument("--questions", type=int, nargs="+", default=[200, 1_000], help="roundtrip: questions a turn")
    parser.add_argument("--open-cards", type=int, default=100, help="roundtrip: cards held open for the memory part")
    parser.add_argument("--pattern-fields", type=int, nargs="+", default=[300], help="patterns: slow fields a form")
    parser.add_argument("--pattern-count", type=int, nargs="+", default=[150], help="patterns: distinct large patterns")
    parser.add_argument("--cards", type=int, default=50, help="cards: cards built per kind for the per-card figures")
    parser.add_argument("--answered", type=int, default=1_000, help="cards: cards answered in one turn (retained)")
    parser.add_argument("--chunks", type=int, nargs="+", default=[100_000], help="turn-memory: chunks in one turn")
    parser.add_argument("--browser-cards", type=int, default=20, help="browser: cards shown in one cell")
    parser.add_argument("--browser-chunks", type=int, default=10_000, help="browser: chunks streamed in one cell")
    parser.add_argument("--edit-rounds", type=int, default=5, help="notebook-edits: inserts timed (median)")
    parser.add_argument("--day-turns", type=int, default=300, help="day: turns of the session")
    parser.add_argument("--day-rounds", type=int, default=3, help="day: times JupyterLab opens each notebook")
    parser.add_argument("--day-cards", type=int, default=1_600, help="day: cards answered in one turn (RSS kept)")
    parser.add_argument("--turns", type=int, default=10, help="turn-traffic: one-question turns in one session")
    parser.add_argument("--stall-scale", type=float, default=1.0, help="budgets: shrink the reply/burst cases")
    parser.add_argument("--quick", action="store_true", help="small sizes: checks that every benchmark runs")
    args = parser.parse_args()
    if args.quick:
        for name, value in QUICK.items():
            setattr(args, name, value)
    runs: list[Callable[[], None]] = []
    if "streaming" in args.only:
        runs.append(lambda: run_streaming(args.sizes, args.budget))
    if "roundtrip" in args.only:
        runs.append(lambda: run_roundtrip(args.questions, args.open_cards))
    if "patterns" in args.only:
        runs.append(lambda: patterns.main(args.pattern_fields, args.pattern_count))
    if "budgets" in args.only:
        runs.append(lambda: budgets.main())
        runs.append(lambda: budgets.stalls_main(args.stall_scale))
    if "cards" in args.only:
        runs.append(lambda: cards.report(args.cards, args.answered))
    if "turn-memory" in args.only:
        runs.append(lambda: turn_memory.report(args.chunks))
    if "browser" in args.only:
        runs.append(lambda: browser.report(args.browser_cards, args.browser_chunks))
    if "notebook-edits" in args.only:
        runs.append(lambda: notebook_edits.report(args.edit_rounds))
    if "day" in args.only:
        runs.append(lambda: day_report.report(args.day_turns, args.day_rounds, args.day_cards))
    if "turn-traffic" in args.only:
        runs.append(lambda: turn_traffic.report(args.turns))
    for index, run in enumerate(runs):
        if index:
            print()
        run()


def run_streaming(sizes: list[int], budget: float) -> None:
    print("streaming: agent message chunks into one view (ratios are against the naive view of the same run)")
    header = (
        f"{'chunks':>7} {'view':<11} {'chunks in':>9} {'fe msgs':>8} {'updates':>8} {'bytes out':>11} "
        f"{'cpu s':>7} {'us/chunk':>9} {'naive/this':>10}"
    )
    print(header)
    print("-" * len(header))
    per_chunk: dict[tuple[str, int], float] = {}
    for n in sizes:
        naive = streaming.run_naive(n, budget=budget)
        ours = streaming.run_transcript(n)
        for run in (naive, ours):
            per_chunk[(run.view, n)] = run.per_chunk_us
            ratio = naive.per_chunk_us / run.per_chunk_us
            bound = "" if naive.complete or run is naive else ">="
            cut = "" if run.complete else f" (stopped at budget of {budget:g} s)"
            print(
                f"{n:>7} {run.view:<11} {run.chunks_in:>9} {run.messages_out:>8} {run.updates_out:>8} "
                f"{run.bytes_out:>11,} {run.cpu:>7.2f} {run.per_chunk_us:>9.1f} {bound + f'{ratio:.1f}x':>10}{cut}"
            )
    print("\nthe whole path: an in-process agent through nbacp.connect (link, guard, client, log, transcript)")
    for n in sizes:
        print(f"  {n:>7} chunks: {streaming.run_connected(n):>7.1f} us/chunk")
    if len(sizes) >= 2:
        small, large = min(sizes), max(sizes)
        print(f"\nscaling: cost per chunk at {large} chunks / at {small} chunks (1.0 = linear total cost)")
        for view in ("transcript", "naive"):
            growth = per_chunk[(view, large)] / per_chunk[(view, small)]
            print(f"  {view:<11} {growth:.2f}")


def run_roundtrip(sizes: list[int], open_cards: int) -> None:
    print(
        "roundtrip: N form elicitations (multi-select + Other), answered one after the other in one prompt,\n"
        "in-process transport (ratios are against the bare acp client of the same run; bare acp and nbacp:\n"
        "best of 3 turns with nothing timed inside; nbacp (timed): the one turn that gives the breakdown\n"
        "and the front-end traffic)"
    )
    header = (
        f"{'questions':>9} {'client':<13} {'cpu s':>7} {'us/q':>9} {'fe msgs/q':>9} {'bytes/q':>9} "
        f"{'child ids/q':>12} {'this/bare':>9}"
    )
    print(header)
    print("-" * len(header))
    roundtrip.run_bare(20), roundtrip.run_nbacp(5)  # warm-up: first-use caches are not per-question cost
    trips: dict[int, tuple[roundtrip.Trip, roundtrip.Trip]] = {}
    plain: dict[int, roundtrip.Trip] = {}
    for n in sizes:
        bare, ours = trips[n] = roundtrip.run_bare(n), roundtrip.run_nbacp(n)
        plain[n] = roundtrip.run_nbacp_plain(n)
        for trip in (bare, plain[n], ours):
            traffic = (
                f"{trip.tally.messages / n:>9.1f} {trip.tally.bytes // n:>9,} {trip.child_ids / n:>12,.1f}"
                if trip is ours or trip is bare
                else f"{'':>9} {'':>9} {'':>12}"
            )
            print(
                f"{n:>9} {trip.client:<13} {trip.cpu:>7.2f} {trip.per_question_us:>9.1f} {traffic} "
                f"{trip.per_question_us / bare.per_question_us:>8.1f}x"
            )
    if len(sizes) >= 2:
        small, large = min(sizes), max(sizes)
        print(f"\nscaling: cost per question at {large} / at {small} (1.0 = linear total cost)")
        for client, of in (("nbacp", lambda n: plain[n]), ("bare acp", lambda n: trips[n][0])):
            print(f"  {client:<9} {of(large).per_question_us / of(small).per_question_us:.2f}")

    parse, validate = roundtrip.parse_us(1_000), roundtrip.validate_us(1_000)
    print(
        "\nbreakdown of the timed turn's us/q (its timing wraps cost CPU of their own, so its total exceeds the\n"
        "untimed best of 3 that gives the ratio; parse and validation alone, 1,000 calls each)"
    )
    print(f"  {'':<46}" + "".join(f"{f'{n} questions':>19}" for n in sizes))
    rows: list[tuple[str, Callable[[roundtrip.Trip, roundtrip.Trip], float]]] = [
        ("FormCard(...): parse + widgets", lambda b, o: 1e6 * o.build / o.n),
        ("  of which Form.from_schema (alone)", lambda b, o: parse),
        ("policy: pick + fill + accept", lambda b, o: 1e6 * o.answer / o.n),
        ("  of which form.content(values) (alone)", lambda b, o: validate),
        ("what the bare client's round trip costs", lambda b, o: b.per_question_us),
        (
            "the rest: client, transcript, routing",
            lambda b, o: o.per_question_us - 1e6 * (o.build + o.answer) / o.n - b.per_question_us,
        ),
    ]
    for label, value in rows:
        cells = ""
        for n in sizes:
            bare, ours = trips[n]
            us = value(bare, ours)
            cells += f"{us:>11,.1f} {100 * us / ours.per_question_us:>6.1f}%"
        print(f"  {label:<46}{cells}")
    cells = ""
    for n in sizes:
        ours = trips[n][1]
        us = 1e6 * ours.collect / n
        cells += f"{us:>11,.1f} {100 * us / ours.per_question_us:>6.1f}%"
    print(f"  {'garbage collection (counted in the rows above)':<46}{cells}")
    full = ", ".join(f"{trips[n][1].full_collections} at {n}" for n in sizes)
    print(f"  full collections in the turn: {full} (the answered cards stay in the transcript until it ends)")

    mem = roundtrip_memory.memory(open_cards)
    k = mem.k
    print(f"\nmemory: {k} open (unanswered) cards, tracemalloc bytes per card")
    print(f"  {'parsed nbacp.Form only':<48} {mem.forms:>11,.0f}")
    print(f"  {'bare client: pending request + parsed Form':<48} {mem.bare_open:>11,.0f}  (peak {mem.bare_peak:,.0f})")
    print(
        f"  {'nbacp: open card in the transcript':<48} {mem.nbacp_open:>11,.0f}  (peak {mem.nbacp_peak:,.0f})  "
        f"{mem.nbacp_open / mem.bare_open:.1f}x bare, {mem.nbacp_open / mem.forms:.1f}x Form"
    )
    print(f"\nretained after the {k} cards were answered, the turn ended and conn.close() (bytes vs before connect)")
    for label, size in (
        ("the notebook still holding conn/session/result", mem.held),
        ("all references dropped, gc.collect()", mem.dropped),
        (f"+ close() of the {mem.leftover.total():,} widgets left registered", mem.closed),
        (f"+ disconnecting {mem.hooks} Card._esm.changed hooks", mem.unhooked),
    ):
        print(f"  {label:<48} {size:>11,}  ({size / k:,.0f} per card)")
    kinds = ", ".join(f"{n} {c}" for c, n in mem.leftover.most_common())
    left = f"  left after close: {mem.leftover.total():,} widgets in ipywidgets' registry"
    print(left + (f" ({kinds})" if kinds else ""))
    dropped, closed, unhooked = mem.alive
    print(
        f"  answered FormCards still alive: {dropped} after dropping references, {closed} after close(), "
        f"{unhooked} after disconnecting the hooks"
    )
    print("  an answered card is referred to by: " + ", ".join(f"{n}x {r}" for r, n in mem.referrers.items()))
    print("  largest allocations left at the end (vs before connect):")
    for line in mem.top:
        print(f"    {line}")


if __name__ == "__main__":
    main()
