"""Memory of elicitation cards (tracemalloc): K open cards in nbacp against K parsed Forms held
by a bare client over the same in-process transport, and what is still allocated once the cards
were answered, the turn ended and the connection closed, with what holds it.
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
import types
import weakref
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ipywidgets.widgets.widget import _instances

import nbacp
from benchmarks.comms import counting_comms
from benchmarks.roundtrip import (
    FIXED_ACCEPT,
    SCHEMA,
    AskingAgent,
    BareClient,
    Leftovers,
    answer_card,
    bare_session,
    check_accepts,
)
from nbacp.widgets import FormCard


@dataclass
class Memory:
    """Bytes (tracemalloc) per card, and what is still allocated after the turn and the close."""

    k: int
    forms: float = 0.0  # one parsed nbacp.Form, held
    bare_open: float = 0.0  # one pending elicitation at the bare client, which holds a parsed Form
    bare_peak: float = 0.0
    nbacp_open: float = 0.0  # one open (unanswered) nbacp card in the turn's transcript
    nbacp_peak: float = 0.0
    held: int = 0  # left after close, the notebook still holding conn/session/result
    dropped: int = 0  # ... after dropping those too
    closed: int = 0  # ... after also closing the widgets left in ipywidgets' registry
    hooks: int = 0  # callbacks left on anywidget's class-level Card._esm.changed
    unhooked: int = 0  # ... after also disconnecting those
    leftover: Counter[str] = field(default_factory=Counter)  # widget classes left in the registry
    referrers: Counter[str] = field(default_factory=Counter)  # what refers to one answered card
    alive: list[int] = field(default_factory=list)  # answered FormCards alive at dropped/closed/unhooked
    top: list[str] = field(default_factory=list)  # the largest allocations still there at the end


def _now() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


async def _until(ready: Callable[[], bool]) -> None:
    while not ready():
        await asyncio.sleep(0.001)


async def _bare_open(k: int, memory: Memory) -> None:
    agent = AskingAgent(k, concurrent=True)
    loop = asyncio.get_running_loop()
    pending: list[asyncio.Future[Any]] = []
    forms: list[nbacp.Form] = []

    def respond(_message: str, mode: Any) -> asyncio.Future[Any]:
        forms.append(nbacp.Form.from_schema(mode.requested_schema))
        pending.append(loop.create_future())
        return pending[-1]

    async with bare_session(agent, BareClient(respond)) as (conn, session_id):
        before = _now()
        tracemalloc.reset_peak()
        turn = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[]))
        await _until(lambda: len(pending) == k)
        peak = tracemalloc.get_traced_memory()[1]
        memory.bare_open, memory.bare_peak = (_now() - before) / k, (peak - before) / k
        for future in pending:
            future.set_result(FIXED_ACCEPT)
        await turn
    check_accepts(agent, k)


async def _nbacp_open(k: int, memory: Memory) -> None:
    agent = AskingAgent(k, concurrent=True)
    mark = Leftovers.mark()
    snapshot = tracemalloc.take_snapshot()  # before ``start``: the snapshot's own objects are traced too
    start = _now()
    conn = await nbacp.connect(agent)  # no policy: every card waits for a person
    session = await conn.new_session()
    before = _now()
    tracemalloc.reset_peak()
    turn = session.start("go")
    await _until(_cards_open(conn.client, k))
    peak = tracemalloc.get_traced_memory()[1]
    memory.nbacp_open, memory.nbacp_peak = (_now() - before) / k, (peak - before) / k
    for card in conn.client.open_cards():
        answer_card(card)  # as a person would: answered cards from here on
    del card
    result = await turn
    await conn.close()
    check_accepts(agent, k)
    if len(result.answers) != k:
        raise AssertionError(f"{len(result.answers)} answers noted, expected {k}")
    memory.held = _now() - start
    del conn, session, turn, result
    memory.dropped = _now() - start
    left = mark.widgets()
    memory.leftover = Counter(type(w).__name__ for w in left)
    cards = weakref.WeakSet(w for w in left if isinstance(w, FormCard))
    memory.referrers = _referrers(next(iter(cards), None))
    del left
    memory.alive.append(len(cards))
    mark.close_widgets()
    memory.closed = _now() - start
    memory.alive.append(len(cards))
    memory.hooks = mark.unhook()
    memory.unhooked = _now() - start
    memory.alive.append(len(cards))
    grown = [s for s in tracemalloc.take_snapshot().compare_to(snapshot, "lineno") if s.size_diff > 0]
    memory.top = [str(stat) for stat in grown[:3]]


def _cards_open(client: Any, k: int) -> Callable[[], bool]:
    return lambda: len(client.open_cards()) == k


def _referrers(card: Any) -> Counter[str]:
    """What refers to ``card``, by kind: the ipywidgets registry, boxes' children, callbacks."""
    found: Counter[str] = Counter()
    for ref in gc.get_referrers(card) if card is not None else ():
        if ref is _instances:
            found["ipywidgets.widgets.widget._instances"] += 1
        elif isinstance(ref, tuple):
            found["a Box's children tuple (the Transcript's)"] += 1
        elif isinstance(ref, types.MethodType):
            name = ref.__func__.__qualname__
            found["its comm's message handler" if "_show_traceback" in name else f"bound method {name}"] += 1
        elif isinstance(ref, types.CellType):
            found["a closure cell (a callback of its own controls or the client)"] += 1
        elif not isinstance(ref, list | types.FrameType):  # this module's own lists and frames
            found[type(ref).__name__] += 1
    return found


def memory(k: int) -> Memory:
    """K open cards against K parsed Forms, then what outlives the turn and the connection."""
    result = Memory(k)
    tracemalloc.start(1)
    try:
        with counting_comms():
            asyncio.run(_warm_up())
            before = _now()
            forms = [nbacp.Form.from_schema(SCHEMA) for _ in range(k)]
            result.forms = (_now() - before) / k
            del forms
            asyncio.run(_bare_open(k, result))
            asyncio.run(_nbacp_open(k, result))
    finally:
        tracemalloc.stop()
    return result


async def _warm_up() -> None:
    """One small turn of each kind first, so imports and caches do not count as per-card cost."""
    mark = Leftovers.mark()
    async with nbacp.connect(AskingAgent(3), answers=answer_card) as conn:
        await (await conn.new_session()).prompt("warm up")
    async with bare_session(AskingAgent(3), BareClient(lambda _m, _mode: FIXED_ACCEPT)) as (bare, session_id):
        await bare.prompt(session_id=session_id, prompt=[])
    mark.release()
