"""Memory of one long turn: N agent message chunks through nbacp against a client that drops them.

Each client runs in a fresh interpreter (``python -m benchmarks.turn_memory CLIENT N``) so that
resident set sizes are comparable: the figures are the peak RSS during the turn and the RSS
after it (the result still held), each minus RSS before the prompt. The warm-up turn is short
(``WARM_CHUNKS``): a warm-up as long as the turn would leave its own peak in the heap, and a
client that queued the whole turn would then show nothing. The peak is the kernel's high-water
mark (``VmHWM``), reset before the turn through ``/proc/self/clear_refs``. The baseline is a
bare ``acp.Client`` whose ``session_update`` returns at once: what the transport and the SDK
cost by themselves.

Also: the ``children`` widget ids the transcript re-sends per sealed piece of a long message
(bytes per seal should not grow with the pieces sealed before it).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from acp.schema import (
    AgentMessageChunk,
    PromptResponse,
    TextContentBlock,
)

from benchmarks.agent_base import BenchAgent
from benchmarks.roundtrip import BareClient, bare_session

WARM_CHUNKS = 1_000


def rss(key: str = "VmRSS") -> int:
    """This process's resident set size in bytes (Linux); ``key="VmHWM"``: its peak."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {key} in /proc/self/status")


def reset_peak() -> None:
    """Start the peak (``VmHWM``) again from the current RSS (Linux 4.0+)."""
    with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
        refs.write("5")


class ChunkingAgent(BenchAgent):
    """The first prompt (the warm-up) streams ``WARM_CHUNKS``, each later one ``n`` small agent
    message chunks, then ends the turn; it yields to the event loop every 100 chunks, as a fast
    agent in the kernel does, so only the transport can make it wait."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n
        self.turns = 0

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        self.turns += 1
        for i in range(min(self.n, WARM_CHUNKS) if self.turns == 1 else self.n):
            text = f"word{i % 10} " if i % 50 else "\n\n"
            chunk = AgentMessageChunk(
                session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
            )
            await self.conn.session_update(session_id=session_id, update=chunk)
            if i % 100 == 99:
                await asyncio.sleep(0)
        return PromptResponse(stop_reason="end_turn")


async def _nbacp(n: int, *, keep: bool = True) -> tuple[int, int, int]:
    import nbacp
    from benchmarks.comms import counting_comms
    from nbacp.updates import UpdateLog

    if not keep:  # the baseline: the same client and view, but no update is kept anywhere
        UpdateLog.append = lambda self, update: None  # type: ignore[method-assign]

    with counting_comms():
        async with nbacp.connect(ChunkingAgent(n)) as conn:
            session = await conn.new_session()
            await session.prompt("warm up")  # imports and first-use caches
            reset_peak()
            before = rss()
            result = await session.prompt("go")
            after, peak = rss(), rss("VmHWM")
            if keep and len(result.updates) < n:
                raise AssertionError(f"{len(result.updates)} updates in the result, expected {n}")
    return before, after, peak


async def _drop(n: int) -> tuple[int, int, int]:
    async def nothing(session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    client = BareClient(lambda _m, _mode: None)
    client.session_update = nothing  # type: ignore[method-assign]
    agent = ChunkingAgent(n)
    async with bare_session(agent, client) as (conn, session_id):  # type: ignore[arg-type]
        await conn.prompt(session_id=session_id, prompt=[])
        reset_peak()
        before = rss()
        await conn.prompt(session_id=session_id, prompt=[])
        after, peak = rss(), rss("VmHWM")
    return before, after, peak


def _child(client: str, n: int) -> None:
    if client in ("nbacp", "nbacp-drop"):
        # the first turn is the warm-up; measure the second, as the baseline does
        before, after, peak = asyncio.run(_nbacp(n, keep=client == "nbacp"))
    else:
        before, after, peak = asyncio.run(_drop(n))
    print(json.dumps({"before": before, "after": after, "peak": peak}))


@dataclass
class Growth:
    client: str
    n: int
    before: int
    after: int
    peak: int

    @property
    def grown(self) -> int:
        """Peak RSS during the turn over RSS before it."""
        return max(self.peak - self.before, 1)

    @property
    def kept(self) -> int:
        """RSS after the turn (the result held) over RSS before it."""
        return self.after - self.before


def measure(client: str, n: int) -> Growth:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.turn_memory", client, str(n)], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(f"turn_memory {client} {n} failed:\n{out.stderr[-3000:]}")
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return Growth(client, n, data["before"], data["after"], data["peak"])


def stream_bytes(n: int) -> tuple[float, float]:
    """Bytes sent to the front end per 1,000 chunks over the first and the last tenth of one long
    message (equal = what a seal sends does not depend on how much was sealed before)."""
    from benchmarks.comms import counting_comms
    from nbacp.widgets.transcript import Transcript

    tenth = max(n // 10, 1)
    marks: list[int] = []
    with counting_comms() as tally:
        view = Transcript(prompt="go")
        for i in range(n):
            if i in (0, tenth, n - tenth):
                view.flush()
                marks.append(tally.bytes)
            text = f"word{i % 10} " if i % 50 else "\n\n"
            view.add(
                AgentMessageChunk(
                    session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
                )
            )
            if i % 100 == 99:
                view.flush()  # one frame per 100 chunks, as a fast agent gets
        view.flush()
        last = tally.bytes
    return 1000 * (marks[1] - marks[0]) / tenth, 1000 * (last - marks[2]) / tenth


def report(sizes: list[int]) -> None:
    print(
        "turn memory: N agent message chunks in one turn from a fast in-process agent, RSS growth over\n"
        "the turn (fresh process each): at its peak and after it; 'nbacp, drops' is nbacp with its update\n"
        "log switched off (the view alone), 'bare acp' a client whose session_update does nothing;\n"
        "this/drop = the peak growth over the view-only baseline's"
    )
    header = f"{'chunks':>8} {'client':<15} {'peak growth':>12} {'after':>12} {'bytes/chunk':>12} {'this/drop':>10}"
    print(header)
    print("-" * len(header))
    names = {"bare": "bare acp", "nbacp-drop": "nbacp, drops", "nbacp": "nbacp"}
    for n in sizes:
        bare, drop, ours = measure("bare", n), measure("nbacp-drop", n), measure("nbacp", n)
        for growth in (bare, drop, ours):
            print(
                f"{n:>8} {names[growth.client]:<15} {growth.grown:>12,} {growth.kept:>12,} "
                f"{growth.grown / n:>12,.0f} {growth.grown / drop.grown:>9.1f}x"
            )
    print("\nstreaming one long message into a transcript: bytes sent per 1,000 chunks")
    for n in sizes:
        first, last = stream_bytes(n)
        print(f"  {n:>8} chunks: first tenth {first:>10,.0f}  last tenth {last:>10,.0f}  last/first {last / first:.2f}")


if __name__ == "__main__":
    _child(sys.argv[1], int(sys.argv[2]))
