"""What a one-question turn sends the front end: comm opens, state updates and custom messages
(``benchmarks/comms.py`` counts all three), per turn, for turns after a session's first (the
first also opens the kernel's shared models: the cards' code, the shared layout).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import nbacp
from benchmarks.comms import counting_comms
from benchmarks.roundtrip import AskingAgent, answer_card, check_accepts
from nbacp.client.turns import turn as turn_module


class _Handle:
    """A display handle that shows nothing (the record's ``display_data`` is not comm traffic)."""

    def update(self, obj: Any) -> None:
        return None


@contextlib.contextmanager
def _as_in_a_cell() -> Iterator[None]:
    """The turn is displayed, as in a notebook cell: at its end the live view's model shows the
    record itself (``Transcript.show_record``) and is kept, as a kernel keeps it."""
    original = turn_module.show
    turn_module.show = lambda obj, **kwargs: _Handle()  # type: ignore[assignment]
    try:
        yield
    finally:
        turn_module.show = original


def per_turn(turns: int) -> list[int]:
    """Bytes sent during each of ``turns`` one-question turns of one session."""
    agent = AskingAgent(1)
    sizes: list[int] = []

    async def main() -> None:
        async with nbacp.connect(agent, answers=answer_card) as conn:
            session = await conn.new_session()
            for _ in range(turns):
                before = tally.bytes
                result = await session.prompt("go")
                if result.stop_reason != "end_turn" or len(result.answers) != 1:
                    raise AssertionError(f"nbacp turn: {result!r}")
                sizes.append(tally.bytes - before)

    with counting_comms() as tally, _as_in_a_cell():
        asyncio.run(main())
    check_accepts(agent, turns)
    return sizes


def report(turns: int) -> None:
    sizes = per_turn(turns)
    later = sizes[1:] or sizes
    print(f"turn traffic: {turns} one-question turns of one session, bytes sent to the front end per turn")
    print("(shown as in a cell: the live view, then its model showing the record)")
    print(f"  first turn {sizes[0]:>10,}")
    print(
        f"  later turns (mean of {len(later)}) {sum(later) / len(later):>10,.0f}"
        f"  (min {min(later):,}, max {max(later):,})"
    )
