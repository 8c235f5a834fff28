"""Elicitation round trips over the in-process ACP transport: nbacp against a bare acp client.

One raw ``acp.Agent`` sends N claude-agent-acp style questions (multi-select + "Other") one
after the other in one prompt. The bare client returns a fixed accept at once; nbacp builds an
``FormCard`` per question and a policy answers it through the methods clicks call. Same
agent, same transport: the ratio is what nbacp adds. The memory side is in roundtrip_memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import comm
from acp import PROTOCOL_VERSION, Agent, Client, connect_to_agent
from acp._transport import memory_transport_pair  # in-process pair; private in SDK 0.12
from acp.agent.connection import AgentSideConnection
from acp.schema import (
    AcceptElicitationResponse,
    ClientCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ElicitationFormSessionMode,
    ElicitationSchema,
    PromptResponse,
    RequestPermissionResponse,
)
from ipywidgets.widgets.widget import _instances

import nbacp
from benchmarks.agent_base import BenchAgent
from benchmarks.comms import Tally, counting_comms
from nbacp import widgets as widgets_module
from nbacp.widgets import FormCard, shared
from nbacp.widgets.card import Card

PICKS = ("Tests", "Docs")
CUSTOM = "and a benchmark"
ANSWER = {"question_0": list(PICKS), "question_0_custom": CUSTOM}
MESSAGE = "What should this change include?"


def question_schema() -> dict[str, Any]:
    """claude-agent-acp's AskUserQuestion encoding of one multi-select question with Other."""
    options = [("Tests", "Unit tests"), ("Docs", "A README section"), ("Benchmark", "A ratio"), ("Changelog", "A line")]
    marker = {"questionId": "question_0", "isCustomAnswer": True}
    return {
        "type": "object",
        "properties": {
            "question_0": {
                "title": "Scope",
                "type": "array",
                "items": {"anyOf": [{"const": label, "title": label, "description": d} for label, d in options]},
            },
            "question_0_custom": {
                "type": "string",
                "title": "Other",
                "_meta": {"jetbrains": {"air": {"customAnswer": marker}}, "_askUserQuestionCustomAnswer": marker},
            },
        },
    }


SCHEMA = ElicitationSchema.model_validate(question_schema())


def answer_card(card: Any) -> None:
    """The headless person: two picks, custom text, accept (the methods clicks call)."""
    card.pick("question_0", *PICKS)
    card.fill("question_0_custom", CUSTOM)
    if not card.accept():
        raise AssertionError(f"the benchmark's answer did not validate: {card.errors}")


# ---------------------------------------------------------------- the agent


class AskingAgent(BenchAgent):
    """Each prompt sends ``questions`` form elicitations: one after the other, or all at once."""

    def __init__(self, questions: int, *, concurrent: bool = False) -> None:
        super().__init__()
        self.questions = questions
        self.concurrent = concurrent
        self.actions: Counter[str] = Counter()
        self.last_content: dict[str, Any] | None = None

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        mode = ElicitationFormSessionMode(session_id=session_id, requested_schema=SCHEMA)
        if self.concurrent:
            asks = [self.conn.create_elicitation(message=MESSAGE, mode=mode) for _ in range(self.questions)]
            replies = await asyncio.gather(*asks, return_exceptions=True)
        else:
            replies = [await self.conn.create_elicitation(message=MESSAGE, mode=mode) for _ in range(self.questions)]
        for reply in replies:
            self.actions[getattr(reply, "action", type(reply).__name__)] += 1
            self.last_content = getattr(reply, "content", None)
        return PromptResponse(stop_reason="end_turn")


# ---------------------------------------------------------------- the bare baseline client


class BareClient:
    """The least a client can do: ``respond(message, mode)`` answers each elicitation."""

    def __init__(self, respond: Callable[[str, Any], Any]) -> None:
        self.respond = respond

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        reply = self.respond(message, mode)
        return await reply if asyncio.isfuture(reply) else reply

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    async def request_permission(self, options: Any, session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        return RequestPermissionResponse.model_validate({"outcome": {"outcome": "cancelled"}})

    async def read_text_file(self, path: str, session_id: str, **kwargs: Any) -> Any:
        raise NotImplementedError  # never advertised

    write_text_file = read_text_file


FIXED_ACCEPT = AcceptElicitationResponse(action="accept", content=ANSWER)
FORM_CAPABILITIES = ClientCapabilities(elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()))


@contextlib.asynccontextmanager
async def bare_session(agent: AskingAgent, client: BareClient) -> AsyncIterator[tuple[Any, str]]:
    """The bare client connected in process, the way nbacp.connect wires an agent object."""
    client_end, agent_end = memory_transport_pair()
    agent_side = AgentSideConnection(cast(Agent, agent), agent_end)
    conn = connect_to_agent(cast(Client, client), client_end, use_unstable_protocol=True)
    try:
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=FORM_CAPABILITIES)
        session = await conn.new_session(cwd=".", mcp_servers=[])
        yield conn, session.session_id
    finally:
        await conn.close()
        await agent_side._conn.close()


# ---------------------------------------------------------------- 1. round trips


@dataclass
class Trip:
    """One turn of N questions: its CPU time, what it sent the front end, and where nbacp spent it."""

    client: str
    n: int
    cpu: float
    answered: int
    tally: Tally = field(default_factory=Tally)
    child_ids: int = 0  # widget ids sent in ``children`` updates (each ~45 bytes of JSON)
    build: float = 0.0  # CPU seconds in FormCard(...) during the turn
    answer: float = 0.0  # CPU seconds in the policy (pick, fill, accept: validation + compose)
    collect: float = 0.0  # CPU seconds in garbage collection during the turn (any step)
    full_collections: int = 0  # of those, collections of the oldest generation

    @property
    def per_question_us(self) -> float:
        return 1e6 * self.cpu / self.n


def check_accepts(agent: AskingAgent, n: int) -> int:
    if agent.actions["accept"] != n or agent.last_content != ANSWER:
        raise AssertionError(f"expected {n} accepts of {ANSWER}, got {dict(agent.actions)} / {agent.last_content}")
    return agent.actions["accept"]


def run_bare(n: int, repeat: int = 3) -> Trip:
    """Best of ``repeat`` runs: the baseline is cheap and noisy, and a low baseline only raises the ratio."""

    async def main(agent: AskingAgent) -> float:
        async with bare_session(agent, BareClient(lambda _m, _mode: FIXED_ACCEPT)) as (conn, session_id):
            start = time.process_time()
            await conn.prompt(session_id=session_id, prompt=[])
            return time.process_time() - start

    agents = [AskingAgent(n) for _ in range(repeat)]
    cpu = min(asyncio.run(main(agent)) for agent in agents)
    return Trip("bare acp", n, cpu, min(check_accepts(agent, n) for agent in agents))


def run_nbacp_plain(n: int, repeat: int = 3) -> Trip:
    """Best of ``repeat`` turns with nothing timed inside them, as the baseline is measured: the
    ratio. (:func:`run_nbacp` wraps the comms, the card class and the collector to give the
    breakdown, and that wrapping costs CPU of its own.)"""

    async def main(agent: AskingAgent) -> float:
        async with nbacp.connect(agent, answers=answer_card) as conn:
            session = await conn.new_session()
            start = time.process_time()
            result = await session.prompt("go")
            cpu = time.process_time() - start
            if result.stop_reason != "end_turn" or len(result.answers) != n:
                raise AssertionError(f"nbacp turn: {result!r}, {len(result.answers)} answers")
            return cpu

    best, agents = float("inf"), []
    for _ in range(repeat):
        agent, mark = AskingAgent(n), Leftovers.mark()
        best = min(best, asyncio.run(main(agent)))
        mark.release()
        agents.append(agent)
    return Trip("nbacp", n, best, min(check_accepts(agent, n) for agent in agents))


def run_nbacp(n: int) -> Trip:
    """One turn with its steps timed inside it (the breakdown)."""
    agent = AskingAgent(n)
    trip = Trip("nbacp (timed)", n, 0.0, 0)
    children = [0]
    mark = Leftovers.mark()

    def policy(card: Any) -> None:
        start = time.process_time()
        answer_card(card)
        trip.answer += time.process_time() - start

    async def main() -> None:
        async with nbacp.connect(agent, answers=policy) as conn:
            session = await conn.new_session()
            start = time.process_time()
            result = await session.prompt("go")
            trip.cpu = time.process_time() - start
            if result.stop_reason != "end_turn" or len(result.answers) != n:
                raise AssertionError(f"nbacp turn: {result!r}, {len(result.answers)} answers")

    with counting_comms() as trip.tally, _counting_children(children), _timing_forms(trip), _timing_gc(trip):
        asyncio.run(main())
    mark.release()  # what nbacp leaves behind (see roundtrip_memory) must not slow the next run down
    trip.answered, trip.child_ids = check_accepts(agent, n), children[0]
    if trip.build == 0.0:
        raise AssertionError("no FormCard construction was timed: has the client stopped looking it up?")
    return trip


@contextlib.contextmanager
def _timing_forms(trip: Trip) -> Iterator[None]:
    """Times each ``FormCard(...)`` the client builds (it looks the class up per request)."""

    def build(*args: Any, **kwargs: Any) -> FormCard:
        start = time.process_time()
        card = FormCard(*args, **kwargs)
        trip.build += time.process_time() - start
        return card

    setattr(widgets_module, "FormCard", build)  # noqa: B010
    try:
        yield
    finally:
        setattr(widgets_module, "FormCard", FormCard)  # noqa: B010


@contextlib.contextmanager
def _timing_gc(trip: Trip) -> Iterator[None]:
    """Adds the CPU time of every garbage collection to ``trip.collect`` (and counts full ones)."""
    started = [0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.process_time()
            return
        trip.collect += time.process_time() - started[0]
        trip.full_collections += info["generation"] == 2

    gc.callbacks.append(callback)
    try:
        yield
    finally:
        gc.callbacks.remove(callback)


@contextlib.contextmanager
def _counting_children(total: list[int]) -> Iterator[None]:
    """Adds the length of every synced ``children`` list to ``total[0]`` (inside counting_comms)."""
    inner = comm.create_comm

    def create(*args: Any, **kwargs: Any) -> Any:
        made = inner(*args, **kwargs)
        publish = made.publish_msg

        def publish_msg(msg_type: str, data: dict[str, Any] | None = None, *rest: Any, **more: Any) -> None:
            state = (data or {}).get("state", {})
            if msg_type == "comm_msg" and "children" in state:
                total[0] += len(state["children"])
            publish(msg_type, data, *rest, **more)

        made.publish_msg = publish_msg  # type: ignore[method-assign]
        return made

    comm.create_comm = create
    try:
        yield
    finally:
        comm.create_comm = inner


def per_call_us(n: int, step: Callable[[], Any]) -> float:
    """CPU microseconds per call of ``step``, over ``n`` calls."""
    start = time.process_time()
    for _ in range(n):
        step()
    return 1e6 * (time.process_time() - start) / n


def parse_us(n: int) -> float:
    return per_call_us(n, lambda: nbacp.Form.from_schema(SCHEMA))


def validate_us(n: int) -> float:
    form = nbacp.Form.from_schema(SCHEMA)
    return per_call_us(n, lambda: form.content(ANSWER))


# ---------------------------------------------------------------- what nbacp leaves behind


@dataclass
class Leftovers:
    """The widgets and anywidget hot-reload callbacks created since ``mark()``, which nothing frees.

    ipywidgets keeps every widget in its module-level registry until ``close()``; anywidget 0.11
    connects a strong callback per instance to the class-level ``_esm`` file's ``changed``
    signal (manzt/anywidget#929), so a card outlives close().
    """

    registered: set[str]
    connected: int

    @classmethod
    def mark(cls) -> Leftovers:
        signal = _esm_changed()
        return cls(set(_instances), 0 if signal is None else len(signal))

    def widgets(self) -> list[Any]:
        """Widgets made since ``mark()``, except the per-kernel models every card shares."""
        return [w for key, w in list(_instances.items()) if key not in self.registered and not shared.is_shared(w)]

    def close_widgets(self) -> None:
        for widget in self.widgets():
            widget.close()

    def unhook(self) -> int:
        signal = _esm_changed()
        if signal is None:
            return 0
        hooks = [slot.dereference() for slot in signal._slots[self.connected :]]
        for hook in hooks:
            signal.disconnect(hook)
        return len(hooks)

    def release(self) -> None:
        self.close_widgets()
        self.unhook()


def _esm_changed() -> Any:
    """The psygnal signal anywidget made of the cards' ``_esm`` file, or None.

    Only a file-backed ``_esm`` (``ANYWIDGET_HMR=1``) has one: nbacp ships the JS as text so
    that no such signal pins every card (see nbacp.widgets.card_code).
    """
    return getattr(getattr(Card, "_esm", None), "changed", None)
