"""Memory of one long turn: N agent message chunks through nbacp against a client that drops them.

Each client runs in a fresh interpreter (``python -m benchmarks.turn_memory CLIENT N``) so that
resident set sizes are comparable: the figure is RSS after the turn (the result still held)
minus RSS before the prompt. The baseline is a bare ``acp.Client`` whose ``session_update``
returns at once: what the transport and the SDK cost by themselves.

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


def rss() -> int:
    """This process's resident set size in bytes (Linux)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


class ChunkingAgent(BenchAgent):
    """Each prompt streams ``n`` small agent message chunks, then ends the turn."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        for i in range(self.n):
            text = f"word{i % 10} " if i % 50 else "\n\n"
            chunk = AgentMessageChunk(session_update="agent_message_chunk", content=TextContentBlock(type="text",
                                                                                                      text=text))
            await self.conn.session_update(session_id=session_id, update=chunk)
            if i % 100 == 99:
                await asyncio.sleep(0)
        return PromptResponse(stop_reason="end_turn")


async def _nbacp(n: int, *, keep: bool = True) -> tuple[int, int]:
    import nbacp
    from benchmarks.comms import counting_comms
    from nbacp.updates import UpdateLog

    if not keep:  # the baseline: the same client and view, but no update is kept anywhere
        UpdateLog.append = lambda self, update: None  # type: ignore[method-assign]

    with counting_comms():
        async with nbacp.connect(ChunkingAgent(n)) as conn:
            session = await conn.new_session()
            await session.prompt("warm up")  # imports and first-use caches
            before = rss()
            result = await session.prompt("go")
            after = rss()
            if keep and len(result.updates) < n:
                raise AssertionError(f"{len(result.updates)} updates in the result, expected {n}")
    return before, after


async def _drop(n: int) -> tuple[int, int]:
    async def nothing(session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    client = BareClient(lambda _m, _mode: None)
    client.session_update = nothing  # type: ignore[method-assign]
    agent = ChunkingAgent(n)
    async with bare_session(agent, client) as (conn, session_id):  # type: ignore[arg-type]
        await conn.prompt(session_id=session_id, prompt=[])
        before = rss()
        await conn.prompt(session_id=session_id, prompt=[])
        after = rss()
    return before, after


def _child(client: str, n: int) -> None:
    if client in ("nbacp", "nbacp-drop"):
        # the first turn is the warm-up; measure the second, as the baseline does
        before, after = asyncio.run(_nbacp(n, keep=client == "nbacp"))
    else:
        before, after = asyncio.run(_drop(n))
    print(json.dumps({"before": before, "after": after}))


@dataclass
class Growth:
    client: str
    n: int
    before: int
    after: int

    @property
    def grown(self) -> int:
        return max(self.after - self.before, 1)


def measure(client: str, n: int) -> Growth:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.turn_memory", client, str(n)], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(f"turn_memory {client} {n} failed:\n{out.stderr[-3000:]}")
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return Growth(client, n, data["before"], data["after"])


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
            view.add(AgentMessageChunk(session_update="agent_message_chunk",
                                       content=TextContentBlock(type="text", text=text)))
            if i % 100 == 99:
                view.flush()  # one frame per 100 chunks, as a fast agent gets
        view.flush()
        last = tally.bytes
    return 1000 * (marks[1] - marks[0]) / tenth, 1000 * (last - marks[2]) / tenth


def report(sizes: list[int]) -> None:
    print(
        "turn memory: N agent message chunks in one turn, RSS growth over the turn (fresh process each);\n"
        "'nbacp, drops' is nbacp with its update log switched off (the view alone), 'bare acp' a client\n"
        "whose session_update does nothing; this/drop = nbacp's growth over the view-only baseline"
    )
    header = f"{'chunks':>8} {'client':<15} {'rss growth':>12} {'bytes/chunk':>12} {'this/drop':>10}"
    print(header)
    print("-" * len(header))
    names = {"bare": "bare acp", "nbacp-drop": "nbacp, drops", "nbacp": "nbacp"}
    for n in sizes:
        bare, drop, ours = measure("bare", n), measure("nbacp-drop", n), measure("nbacp", n)
        for growth in (bare, drop, ours):
            print(
                f"{n:>8} {names[growth.client]:<15} {growth.grown:>12,} "
                f"{growth.grown / n:>12,.0f} {growth.grown / drop.grown:>9.1f}x"
            )
    print("\nstreaming one long message into a transcript: bytes sent per 1,000 chunks")
    for n in sizes:
        first, last = stream_bytes(n)
        print(f"  {n:>8} chunks: first tenth {first:>10,.0f}  last tenth {last:>10,.0f}  last/first {last / first:.2f}")


if __name__ == "__main__":
    _child(sys.argv[1], int(sys.argv[2]))
