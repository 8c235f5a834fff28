"""Size budgets: what one oversized request costs the kernel, refused, against building it.

A raw agent (in process, real SDK connection, nbacp's client and guard) sends one request at
a time; for each the benchmark measures the agent's wait for the reply, the longest stall of
the event loop meanwhile (a 5 ms ticker), and the growth of the process's resident memory.
The baseline is what the same request cost before the budgets: the card built for it
(``ElicitationForm`` with every field, ``PermissionCard`` with every option), timed the same
way in the same run. The largest requests still accepted are measured too (answered at once
by a policy), so the table shows the budget keeps accepted work well under the 1 s bound.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from acp.schema import PromptResponse

import nbacp
from benchmarks.agent_base import BenchAgent
from nbacp.client.wire.budget import Budget
from nbacp.widgets import ElicitationForm, PermissionCard

BOUND_BLOCK_S = 1.0
BOUND_RSS_MB = 200.0
_BUDGET = Budget()


def rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def form_params(session_id: str, fields: int, text: int = 0) -> dict[str, Any]:
    props = {f"p{i}": {"type": "string", "title": f"Field {i}"} for i in range(fields)}
    return {"mode": "form", "sessionId": session_id, "message": "m" + "x" * text,
            "requestedSchema": {"type": "object", "properties": props}}


def permission_params(session_id: str, options: int, depth: int = 0) -> dict[str, Any]:
    raw: Any = 1
    for _ in range(depth):
        raw = {"a": raw}
    return {"sessionId": session_id, "toolCall": {"toolCallId": "t", "title": "x", "rawInput": raw},
            "options": [{"optionId": f"o{i}", "name": f"Option {i}", "kind": "reject_once"} for i in range(options)]}


CASES: list[tuple[str, str, Callable[[str], dict[str, Any]]]] = [
    ("10,000 fields", "elicitation/create", lambda s: form_params(s, 10_000)),
    ("10,000 options", "session/request_permission", lambda s: permission_params(s, 10_000)),
    ("3,000-deep rawInput", "session/request_permission", lambda s: permission_params(s, 2, depth=3_000)),
    ("9 MiB message", "elicitation/create", lambda s: form_params(s, 1, text=9 * 2**20)),
    (f"{_BUDGET.max_properties} fields (largest accepted)", "elicitation/create",
     lambda s: form_params(s, _BUDGET.max_properties)),
    (f"{_BUDGET.max_options} options (largest accepted)", "session/request_permission",
     lambda s: permission_params(s, _BUDGET.max_options)),
]


@dataclass
class Row:
    case: str
    outcome: str
    seconds: float
    block: float
    rss: float


class FloodAgent(BenchAgent):
    """Sends each case as one request during the prompt and times the reply."""

    session_id = "flood"

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[Row] = []

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        for case, method, build in CASES:
            params = build(session_id)

            async def send(method: str = method, params: dict[str, Any] = params) -> str:
                try:
                    reply = await self.conn._conn.send_request(method, params)
                except Exception as exc:  # the refusal: a JSON-RPC error
                    return f"error {getattr(exc, 'code', '?')}"
                return "answered" if reply else "empty"

            outcome, seconds, block, rss = await measure(send)
            self.rows.append(Row(case, outcome, seconds, block, rss))
        return PromptResponse(stop_reason="end_turn")


async def measure(run: Callable[[], Awaitable[str]]) -> tuple[str, float, float, float]:
    """Run ``run``; its result, wall seconds, the longest loop stall and the RSS growth (MB)."""
    gc.collect()
    before = rss_mb()
    longest = 0.0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal longest
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            longest = max(longest, now - last - 0.005)
            last = now

    tick = asyncio.ensure_future(ticker())
    await asyncio.sleep(0.01)
    start = time.perf_counter()
    result = await run()
    seconds = time.perf_counter() - start
    stop.set()
    await tick
    return result, seconds, max(longest, 0.0), rss_mb() - before


def decline(card: Any) -> None:
    if isinstance(card, PermissionCard):
        card.choose(card.options[0].option_id)
    elif isinstance(card, ElicitationForm):
        card.decline()


async def run_guarded() -> list[Row]:
    agent = FloodAgent()
    async with nbacp.connect(agent, answers=decline) as conn:
        session = await conn.new_session()
        await session.prompt("flood")
    return agent.rows


async def run_baseline() -> list[Row]:
    """The cards the two large cases would have built without the budget (no transport)."""
    rows = []

    async def fields() -> str:
        ElicitationForm("m", form_params("s", 10_000)["requestedSchema"])
        return "built"

    async def options() -> str:
        from acp.schema import PermissionOption, ToolCallUpdate

        opts = [PermissionOption.model_validate(o) for o in permission_params("s", 10_000)["options"]]
        PermissionCard(ToolCallUpdate(tool_call_id="t"), opts)
        return "built"

    for case, run in (("10,000 fields", fields), ("10,000 options", options)):
        outcome, seconds, block, rss = await measure(run)
        rows.append(Row(case, outcome, seconds, block, rss))
    return rows


def main() -> None:
    guarded = asyncio.run(run_guarded())
    baseline = {row.case: row for row in asyncio.run(run_baseline())}
    print("budgets: one request each, in process, nbacp's client (refused -> JSON-RPC -32602)")
    header = f"{'request':<34} {'outcome':<11} {'reply s':>8} {'max stall s':>11} {'rss +MB':>8} {'built/refused':>13}"
    print(header)
    print("-" * len(header))
    worst_block = worst_rss = 0.0
    for row in guarded:
        base = baseline.get(row.case)
        ratio = f"{base.seconds / row.seconds:.0f}x" if base is not None and row.seconds > 0 else ""
        print(f"{row.case:<34} {row.outcome:<11} {row.seconds:>8.3f} {row.block:>11.3f} {row.rss:>8.1f} {ratio:>13}")
        worst_block, worst_rss = max(worst_block, row.block), max(worst_rss, row.rss)
    for row in baseline.values():
        print(f"{'  built, no budget: ' + row.case:<34} {row.outcome:<11} {row.seconds:>8.3f} {row.block:>11.3f} "
              f"{row.rss:>8.1f}")
    print(f"\nlongest stall / {BOUND_BLOCK_S:g} s bound: {worst_block / BOUND_BLOCK_S:.2f}; "
          f"largest RSS growth / {BOUND_RSS_MB:g} MB bound: {worst_rss / BOUND_RSS_MB:.2f}")


if __name__ == "__main__":
    main()
