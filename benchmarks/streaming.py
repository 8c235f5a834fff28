"""Streaming N agent message chunks into a view: nbacp's Transcript against the naive view.

The naive baseline is the obvious implementation: keep the message text in one
``ipywidgets.HTML`` and, on every chunk, re-render the whole message with the same safe
markdown renderer. Both views get the same chunks from the same driver on a running event
loop, which delivers them in bursts (``burst`` chunks, then a 1 ms sleep: about 10,000 chunks
a second, faster than any model streams). Cost is CPU time (``time.process_time``) of the
whole run, so the pacing sleeps do not count. The naive view is stopped after ``budget``
CPU seconds because it is quadratic; its cost per chunk is then measured on the chunks it
got through, which makes the reported ratio a lower bound.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

import ipywidgets as widgets
from acp import schema

from benchmarks.comms import counting_comms
from nbacp.render.markdown import render_markdown
from nbacp.widgets.transcript import Transcript


def chunks(n: int) -> list[str]:
    """Model-like markdown in small chunks: words, emphasis, lists, a code block now and then."""
    out: list[str] = []
    for i in range(n):
        if i % 300 == 299:
            out.append("\n\n```python\nfor item in items:\n    print(item)\n```\n\n")
        elif i % 60 == 59:
            out.append("\n\n- a point\n- another **point**\n\n")
        elif i % 15 == 14:
            out.append(f"`w{i}`. ")
        else:
            out.append(f"word{i % 10} ")
    return out


@dataclass
class Run:
    view: str
    n: int
    chunks_in: int
    messages_out: int
    updates_out: int
    bytes_out: int
    cpu: float
    complete: bool

    @property
    def per_chunk_us(self) -> float:
        return 1e6 * self.cpu / max(self.chunks_in, 1)


async def _drive(add: Callable[[str], None], pieces: list[str], burst: int, budget: float) -> tuple[int, bool]:
    start = time.process_time()
    for i, piece in enumerate(pieces):
        add(piece)
        if i % burst == burst - 1:
            if time.process_time() - start > budget:
                return i + 1, False
            await asyncio.sleep(0.001)
    return len(pieces), True


def _chunk(text: str) -> schema.AgentMessageChunk:
    return schema.AgentMessageChunk(
        session_update="agent_message_chunk", content=schema.TextContentBlock(type="text", text=text)
    )


def run_transcript(n: int, burst: int = 10) -> Run:
    pieces = chunks(n)
    updates = [_chunk(p) for p in pieces]
    with counting_comms() as tally:

        async def main() -> tuple[int, bool]:
            view = Transcript(prompt="benchmark")
            got = await _drive(lambda p: view.add(updates[len(view.updates)]), pieces, burst, float("inf"))
            view.finish("end_turn")
            assert view.text == "".join(pieces)
            return got

        start = time.process_time()
        got, complete = asyncio.run(main())
        cpu = time.process_time() - start
    return Run("transcript", n, got, tally.messages, tally.updates, tally.bytes, cpu, complete)


def run_naive(n: int, burst: int = 10, budget: float = 10.0) -> Run:
    pieces = chunks(n)
    with counting_comms() as tally:

        async def main() -> tuple[int, bool]:
            view = widgets.HTML()
            parts: list[str] = []

            def add(piece: str) -> None:
                parts.append(piece)
                view.value = render_markdown("".join(parts))

            return await _drive(add, pieces, burst, budget)

        start = time.process_time()
        got, complete = asyncio.run(main())
        cpu = time.process_time() - start
    return Run("naive", n, got, tally.messages, tally.updates, tally.bytes, cpu, complete)


def run_connected(n: int) -> float:
    """Kernel CPU microseconds per chunk of the whole path: an in-process agent streams ``n``
    chunks through ``nbacp.connect`` (link, guard, client, update log, transcript), after a
    1,000-chunk warm-up turn. The comms are counted, not sent, as for the views above."""
    import nbacp
    from benchmarks.turn_memory import ChunkingAgent

    async def main() -> float:
        async with nbacp.connect(ChunkingAgent(n)) as conn:
            session = await conn.new_session()
            await session.prompt("warm up")
            start = time.process_time()
            result = await session.prompt("go")
            cpu = time.process_time() - start
            if len(result.updates) != n:
                raise AssertionError(f"{len(result.updates)} updates, expected {n}")
            return 1e6 * cpu / n

    with counting_comms():
        return asyncio.run(main())
