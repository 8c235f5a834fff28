"""``python -m benchmarks``: run every benchmark and print one table (see README.md)."""

from __future__ import annotations

import argparse

from benchmarks import streaming


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000], help="chunk counts")
    parser.add_argument("--budget", type=float, default=10.0, help="CPU seconds the naive baseline may use")
    args = parser.parse_args()

    print("streaming: agent message chunks into one view (ratios are against the naive view of the same run)")
    header = (
        f"{'chunks':>7} {'view':<11} {'chunks in':>9} {'fe msgs':>8} {'updates':>8} {'bytes out':>11} "
        f"{'cpu s':>7} {'us/chunk':>9} {'naive/this':>10}"
    )
    print(header)
    print("-" * len(header))
    per_chunk: dict[tuple[str, int], float] = {}
    for n in args.sizes:
        naive = streaming.run_naive(n, budget=args.budget)
        ours = streaming.run_transcript(n)
        for run in (naive, ours):
            per_chunk[(run.view, n)] = run.per_chunk_us
            ratio = naive.per_chunk_us / run.per_chunk_us
            bound = "" if naive.complete or run is naive else ">="
            cut = "" if run.complete else f" (stopped at budget of {args.budget:g} s)"
            print(
                f"{n:>7} {run.view:<11} {run.chunks_in:>9} {run.messages_out:>8} {run.updates_out:>8} "
                f"{run.bytes_out:>11,} {run.cpu:>7.2f} {run.per_chunk_us:>9.1f} {bound + f'{ratio:.1f}x':>10}{cut}"
            )
    if len(args.sizes) >= 2:
        small, large = min(args.sizes), max(args.sizes)
        print(f"\nscaling: cost per chunk at {large} chunks / at {small} chunks (1.0 = linear total cost)")
        for view in ("transcript", "naive"):
            growth = per_chunk[(view, large)] / per_chunk[(view, small)]
            print(f"  {view:<11} {growth:.2f}")


if __name__ == "__main__":
    main()
