"""``--only day``: the day session's tables (``day_session`` measures, ``day_browser`` opens the notebook).

Every figure sits beside its baseline of the same run: kernel RSS and iopub bytes beside the bare
ACP client's, the saved notebook's bytes beside the turns' plain text and a notebook of that
text, JupyterLab's time to open it beside its time to open that plain notebook.
"""

from __future__ import annotations

import os
from collections import defaultdict

from benchmarks import day_browser, day_session
from benchmarks.day_agent import KINDS, kind


def _load() -> str:
    return "load average " + " / ".join(f"{v:.2f}" for v in os.getloadavg())


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.1f}x" if b else "-"


def _tenths(values: list[float]) -> tuple[float, float]:
    tenth = max(len(values) // 10, 1)
    return sum(values[:tenth]) / tenth, sum(values[-tenth:]) / tenth


def report(turns: int, rounds: int, cards: int) -> None:
    print(
        f"day session: {turns} turns of mixed traffic in a real kernel, one cell each (a cycle of "
        f"{', '.join(dict.fromkeys(KINDS))};\n"
        "one question of every 50 declined); baseline: the bare ACP client in the same kind of kernel, the same\n"
        "agent and answers, printing each turn's message text (no kernel tools: no proposed cell)"
    )
    print(f"  at the start: {_load()}")
    ours = day_session.run("nbacp", turns)
    bare = day_session.run("bare", turns, cards)
    day_session.check(ours, bare)
    header = (
        f"  {'client':<9} {'wall s':>7} {'RSS after setup':>16} {'growth/turn':>12} {'peak RSS':>13} "
        f"{'comm B/turn':>12} {'output B/turn':>14}"
    )
    print(header)
    for r in (ours, bare):
        print(
            f"  {r.client:<9} {sum(r.seconds):>7.1f} {r.setup_rss:>16,} {r.growth_per_turn:>12,.0f} {r.peak:>13,} "
            f"{r.per_turn(r.comm_bytes):>12,.0f} {r.per_turn(r.output_bytes):>14,.0f}"
        )
    ours_bytes = ours.per_turn(ours.comm_bytes) + ours.per_turn(ours.output_bytes)
    bare_bytes = bare.per_turn(bare.output_bytes)
    print(
        f"  nbacp/bare: RSS growth per turn {_ratio(ours.growth_per_turn, bare.growth_per_turn)}, "
        f"iopub bytes per turn (comms + outputs) {_ratio(ours_bytes, bare_bytes)}"
    )
    print(
        f"  (growth per turn: RSS after the last turn minus after turn {day_session.WARM_TURNS}, "
        "over the turns between)"
    )

    print("\n  per kind of turn, mean iopub bytes (nbacp comms + outputs | bare outputs)")
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for i in range(turns):
        row = sums[kind(i)]
        row[0] += ours.comm_bytes[i] + ours.output_bytes[i]
        row[1] += bare.output_bytes[i]
        row[2] += 1
    for name, (mine, theirs, count) in sums.items():
        print(
            f"    {name:<11} {count:>4.0f} turns {mine / count:>10,.0f} | {theirs / count:>8,.0f}  "
            f"{_ratio(mine, theirs)}"
        )
    questions = [i for i in range(turns) if kind(i) == "question"][1:]
    if questions:
        comm = sum(ours.comm_bytes[i] for i in questions) / len(questions)
        print(f"    comm bytes per question turn after the first: {comm:,.0f} ({len(questions)} turns)")
    first, last = _tenths([float(b) for b in ours.comm_bytes])
    print(f"    nbacp comm bytes per turn, first tenth {first:,.0f}, last tenth {last:,.0f} ({_ratio(last, first)})")
    for r in (ours, bare):
        first, last = _tenths(r.seconds)
        print(
            f"    {r.client} ms per turn (cell wall time), first tenth {1e3 * first:,.0f}, last tenth {1e3 * last:,.0f}"
        )

    asks = day_session.run("questions", turns, cards)
    if asks.outcomes != [f"accept:{turns}"]:
        raise AssertionError(f"one-question turns: {asks.outcomes}")
    later = asks.comm_bytes[1:] or asks.comm_bytes
    print(
        f"\n  {turns} one-question turns (roundtrip's agent and answer, nothing else), nbacp, real kernel:\n"
        f"    first turn {asks.comm_bytes[0]:,}, each later turn {sum(later) / len(later):,.0f} "
        f"(min {min(later):,}, max {max(later):,}), outputs {asks.per_turn(asks.output_bytes):,.0f} B/turn; "
        f"RSS growth/turn {asks.growth_per_turn:,.0f}"
    )

    spread = max(cards // day_session.PER_TURN, 1) * day_session.PER_TURN
    print(
        f"\n  {spread} one-question cards over {spread // day_session.PER_TURN} turns of {day_session.PER_TURN}, "
        "every result held (real kernel, in the kernel of the runs\n  above; kept = RSS after the last turn minus "
        "RSS before the first)"
    )
    for name, one, wanted in (("nbacp", asks, turns + spread), ("bare acp", bare, spread)):
        if one.spread_accepted != wanted:
            raise AssertionError(f"{name}: {one.spread_accepted} accepted over the turns, expected {wanted}")
        print(f"    {name:<9} kept {one.spread_kept:>12,} ({one.spread_kept / spread:>9,.0f} per card)")

    print(f"\n  one turn of {cards} one-question cards, answered by the policy (real kernel; kept = RSS after the turn")
    print("  ended, its result held, minus RSS before it; bytes: that turn's iopub; in the kernel of the runs above)")
    for name, one, wanted in (("nbacp", asks, turns + spread + cards), ("bare acp", bare, cards)):
        if one.cards_accepted != wanted:
            raise AssertionError(f"{name}: {one.cards_accepted} accepted, expected {wanted}")
        kept, sent = one.cards_kept, one.cards_bytes
        print(
            f"    {name:<9} kept {kept:>12,} ({kept / cards:>9,.0f} per card)  "
            f"iopub {sent:>12,} ({sent / cards:>8,.0f} per card)  {1e3 * one.cards_seconds:>8,.0f} ms"
        )

    saved, plain = day_session.notebooks(ours)
    text = sum(len(record.encode()) for _, record in ours.texts)
    message = sum(len(result.encode()) for result, _ in ours.texts)
    print("\n  the saved notebook, bytes per turn (nbformat, the outputs as the kernel sent them)")
    saved_bytes = day_session.size(saved)
    print(f"    {'saved .ipynb':<44} {saved_bytes / turns:>10,.0f}  {_ratio(saved_bytes, text)} the record text")
    print(f"    {'baseline .ipynb (each record as plain text)':<44} {day_session.size(plain) / turns:>10,.0f}")
    print(f"    {'plain text: the turn record':<44} {text / turns:>10,.0f}")
    print(f"    {'plain text: result.text':<44} {message / turns:>10,.0f}")

    books = {"day.ipynb": saved, "day-plain.ipynb": plain}
    times, html = day_browser.open_times(books, f"Done with turn {turns - 1}", rounds)
    med = day_browser.medians(times)
    print(f"\n  JupyterLab + chromium: open the notebook until its last output shows (median of {rounds}; {_load()})")
    for name, label in (("day.ipynb", "saved notebook"), ("day-plain.ipynb", "baseline (plain text)")):
        each = ", ".join(f"{t:.2f}" for t in times[name])
        print(f"    {label:<24} {med[name]:>7.2f} s  [{each}]  records drawn as HTML: {html.get(name, 0)}")
    print(f"    saved/baseline {_ratio(med['day.ipynb'], med['day-plain.ipynb'])}")
    if html.get("day.ipynb", 0) != turns:
        raise AssertionError(f"the page drew {html.get('day.ipynb')} records as HTML, expected {turns}")
