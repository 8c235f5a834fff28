"""Size budgets: what one oversized request costs the kernel, refused, against building it.

A raw agent (in process, real SDK connection, nbacp's client and guard) sends one request at
a time; for each the benchmark measures the agent's wait for the reply, the longest stall of
the event loop meanwhile (a 5 ms ticker), and the growth of the process's resident memory.
The baseline is what the same request cost before the budgets: the card built for it
(``FormCard`` with every field, ``PermissionCard`` with every option), timed the same
way in the same run. The largest requests still accepted are measured too (answered at once
by a policy), so the table shows the budget keeps accepted work well under the 1 s bound.

``stalls_main`` measures what replies, notifications and bursts cost (docs/protocol.md,
'Budgets'): 5,000 auth methods in ``initialize`` (and the auth card they make), 5,000 modes in
``session/new`` with the toolbar built, 100 config-option updates with the toolbar shown, a
30,000-chunk history replay on ``session/load``; for each, the wall time and the longest stall
of the event loop. Run the same file against an older tree for the before figures.
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
from nbacp.widgets import FormCard, PermissionCard

BOUND_BLOCK_S = 1.0
BOUND_RSS_MB = 200.0
_BUDGET = Budget()


def rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def form_params(session_id: str, fields: int, text: int = 0) -> dict[str, Any]:
    props = {f"p{i}": {"type": "string", "title": f"Field {i}"} for i in range(fields)}
    return {
        "mode": "form",
        "sessionId": session_id,
        "message": "m" + "x" * text,
        "requestedSchema": {"type": "object", "properties": props},
    }


def permission_params(session_id: str, options: int, depth: int = 0) -> dict[str, Any]:
    raw: Any = 1
    for _ in range(depth):
        raw = {"a": raw}
    return {
        "sessionId": session_id,
        "toolCall": {"toolCallId": "t", "title": "x", "rawInput": raw},
        "options": [{"optionId": f"o{i}", "name": f"Option {i}", "kind": "reject_once"} for i in range(options)],
    }


CASES: list[tuple[str, str, Callable[[str], dict[str, Any]]]] = [
    ("10,000 fields", "elicitation/create", lambda s: form_params(s, 10_000)),
    ("10,000 options", "session/request_permission", lambda s: permission_params(s, 10_000)),
    ("3,000-deep rawInput", "session/request_permission", lambda s: permission_params(s, 2, depth=3_000)),
    ("9 MiB message", "elicitation/create", lambda s: form_params(s, 1, text=9 * 2**20)),
    (
        f"{_BUDGET.max_properties} fields (largest accepted)",
        "elicitation/create",
        lambda s: form_params(s, _BUDGET.max_properties),
    ),
    (
        f"{_BUDGET.max_options} options (largest accepted)",
        "session/request_permission",
        lambda s: permission_params(s, _BUDGET.max_options),
    ),
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
    elif isinstance(card, FormCard):
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
        FormCard("m", form_params("s", 10_000)["requestedSchema"])
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
        print(
            f"{'  built, no budget: ' + row.case:<34} {row.outcome:<11} {row.seconds:>8.3f} {row.block:>11.3f} "
            f"{row.rss:>8.1f}"
        )
    print(
        f"\nlongest stall / {BOUND_BLOCK_S:g} s bound: {worst_block / BOUND_BLOCK_S:.2f}; "
        f"largest RSS growth / {BOUND_RSS_MB:g} MB bound: {worst_rss / BOUND_RSS_MB:.2f}"
    )


# -- replies, notifications and bursts: the longest stall of the event loop -----------------
AUTH_METHODS = 5_000
MODES = 5_000
CONFIG_UPDATES = 100
CONFIG_OPTIONS, CONFIG_VALUES = 20, 100
HISTORY_CHUNKS = 30_000


class ReplyFloodAgent(BenchAgent):
    """Raw-dict replies (the SDK's agent side sends them as they are): long lists, update bursts, a long replay."""

    def __init__(self) -> None:
        super().__init__()
        self.authenticated = False

    async def initialize(self, protocol_version: int, **kwargs: Any) -> Any:
        methods = [{"id": f"m{i}", "name": f"Method {i}", "description": "sign in"} for i in range(AUTH_METHODS)]
        return {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}, "authMethods": methods}

    async def authenticate(self, method_id: str, **kwargs: Any) -> Any:
        self.authenticated = True
        return {}

    async def new_session(self, cwd: str, **kwargs: Any) -> Any:
        if not self.authenticated:
            from acp import RequestError

            raise RequestError(-32000, "Authentication required")
        modes = [{"id": f"mode{i}", "name": f"Mode {i}"} for i in range(MODES)]
        return {
            "sessionId": "flood",
            "modes": {"currentModeId": "mode0", "availableModes": modes},
            "configOptions": _config_options(0),
        }

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> Any:
        rpc = self.conn._conn
        for i in range(HISTORY_CHUNKS):
            update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"w{i} "}}
            await rpc.send_notification("session/update", {"sessionId": session_id, "update": update})
        return {}

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        rpc = self.conn._conn
        for n in range(1, CONFIG_UPDATES + 1):
            update = {"sessionUpdate": "config_option_update", "configOptions": _config_options(n)}
            await rpc.send_notification("session/update", {"sessionId": session_id, "update": update})
        return PromptResponse(stop_reason="end_turn")


def _config_options(n: int) -> list[dict[str, Any]]:
    """Options whose current values move with ``n`` (what an agent's own changes look like)."""
    values = [{"value": f"v{j}", "name": f"Value {j}"} for j in range(CONFIG_VALUES)]
    return [
        {
            "id": f"o{i}",
            "name": f"Option {i}",
            "type": "select",
            "currentValue": f"v{(n + i) % CONFIG_VALUES}",
            "options": values,
        }
        for i in range(CONFIG_OPTIONS)
    ]


def _auth(card: Any) -> None:
    methods = getattr(card, "methods", None)
    if methods:
        card.choose(str(methods[0].id if hasattr(methods[0], "id") else methods[0]["id"]))


async def run_stalls() -> list[tuple[str, float, float]]:
    """(case, seconds, longest stall) for each hostile reply / burst, nbacp's client in process."""
    rows: list[tuple[str, float, float]] = []
    agent = ReplyFloodAgent()
    conn: Any = None

    async def connect() -> str:
        nonlocal conn
        conn = await nbacp.connect(agent, answers=_auth)
        return "connected"

    session: Any = None

    async def new_session() -> str:
        nonlocal session
        session = await conn.new_session()
        session.toolbar  # noqa: B018  (built, as displaying it in a cell does)
        return "session"

    async def updates() -> str:
        await session.prompt("go")
        return "prompted"

    async def load() -> str:
        await conn.load_session("flood")
        return "loaded"

    cases = [
        (f"initialize: {AUTH_METHODS:,} auth methods", connect),
        (f"session/new (auth card): {MODES:,} modes", new_session),
        (f"{CONFIG_UPDATES} config updates, toolbar shown", updates),
        (f"session/load: {HISTORY_CHUNKS:,}-chunk replay", load),
    ]
    for case, run in cases:
        _outcome, seconds, block, _rss = await measure(run)
        rows.append((case, seconds, block))
    await conn.close()
    return rows


def stalls_main(scale: float = 1.0) -> None:
    """``scale`` < 1 shrinks every case (``--quick``: checks that the benchmark runs)."""
    global AUTH_METHODS, MODES, CONFIG_UPDATES, HISTORY_CHUNKS
    AUTH_METHODS, MODES = max(1, int(AUTH_METHODS * scale)), max(1, int(MODES * scale))
    CONFIG_UPDATES, HISTORY_CHUNKS = max(1, int(CONFIG_UPDATES * scale)), max(1, int(HISTORY_CHUNKS * scale))
    rows = asyncio.run(run_stalls())
    print("budgets/stalls: hostile replies and bursts, in process, nbacp's client (5 ms ticker)")
    header = f"{'case':<44} {'seconds':>8} {'max stall s':>11}"
    print(header)
    print("-" * len(header))
    for case, seconds, block in rows:
        print(f"{case:<44} {seconds:>8.3f} {block:>11.3f}")


if __name__ == "__main__":
    main()
    print()
    stalls_main()
