"""What one card costs the kernel and the saved notebook, against a hand-written ipywidgets form.

Three measurements, all without a kernel (``benchmarks/comms.py`` counts what would be sent):

- **per card**: the widget models a pending card registers, the messages and JSON bytes it sends
  the front end (``comm_open`` + updates) and the CPU time to build it, for a one-question card
  (ACP Kit's ``ask_choice`` encoding) and a 12-field form, against the same questions written by
  hand with stock ipywidgets (the least a notebook author would write);
- **retained**: N cards answered one after the other inside one turn, measured while the turn is
  still open (the agent holds it) and again after it ended: live widget models and tracemalloc
  bytes per answered card (the notebook still holds conn, session and result);
- **saved**: the widget state JupyterLab's "save widget state" would write for those cards
  (``Widget.get_manager_state`` of the models they left alive), bytes per answered card.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
import tracemalloc
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets
from acp.schema import ElicitationFormSessionMode, ElicitationSchema, PromptResponse

import nbacp
from benchmarks.comms import Tally, counting_comms
from benchmarks.roundtrip import AskingAgent, Leftovers
from nbacp.widgets import FormCard

CHOICE_LABELS = ("Preview", "Production", "Staging")
MESSAGE = "Where should this be deployed?"


def choice_schema() -> dict[str, Any]:
    """ACP Kit's ``ask_choice`` encoding: one required string with ``oneOf`` tokens.

    (docs/agents.md, 'Other markers and clients')
    """
    return {
        "type": "object",
        "properties": {
            "choice": {
                "type": "string",
                "title": "Choice",
                "oneOf": [{"const": f"choice_{i}", "title": label} for i, label in enumerate(CHOICE_LABELS)],
                "default": "choice_1",
            }
        },
        "required": ["choice"],
    }


def twelve_field_schema() -> dict[str, Any]:
    """Twelve everyday fields: text, numbers, yes/no, single and multi choices."""
    colours = ["Red", "Green", "Blue", "Black"]
    props: dict[str, Any] = {
        "name": {"type": "string", "title": "Name", "maxLength": 80},
        "email": {"type": "string", "title": "Email", "format": "email"},
        "notes": {"type": "string", "title": "Notes"},
        "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150},
        "score": {"type": "number", "title": "Score", "default": 0.5},
        "seats": {"type": "integer", "title": "Seats", "minimum": 1, "maximum": 10, "default": 2},
        "subscribe": {"type": "boolean", "title": "Subscribe", "default": False},
        "agree": {"type": "boolean", "title": "Agree"},
        "colour": {"type": "string", "title": "Colour", "enum": colours},
        "size": {"type": "string", "title": "Size", "oneOf": [{"const": s, "title": s} for s in ("S", "M", "L")]},
        "tags": {"type": "array", "title": "Tags", "items": {"type": "string", "enum": ["a", "b", "c", "d"]}},
        "city": {"type": "string", "title": "City", "maxLength": 60},
    }
    return {"type": "object", "properties": props, "required": ["name", "colour"]}


def hand_written_choice() -> widgets.Widget:
    """The same question with stock widgets: message, radio buttons, accept/decline/cancel."""
    buttons = [widgets.Button(description=d) for d in ("Accept", "Decline", "Cancel")]
    return widgets.VBox([widgets.Label(MESSAGE), widgets.RadioButtons(options=CHOICE_LABELS), widgets.HBox(buttons)])


def hand_written_form() -> widgets.Widget:
    """The twelve fields with stock widgets (one control each, its description as the title)."""
    rows: list[widgets.Widget] = [
        widgets.Label(MESSAGE),
        widgets.Text(description="Name"),
        widgets.Text(description="Email"),
        widgets.Textarea(description="Notes"),
        widgets.Text(description="Age"),
        widgets.FloatText(description="Score", value=0.5),
        widgets.IntSlider(description="Seats", min=1, max=10, value=2),
        widgets.Checkbox(description="Subscribe"),
        widgets.ToggleButtons(description="Agree", options=["—", "Yes", "No"]),
        widgets.Dropdown(description="Colour", options=["Red", "Green", "Blue", "Black"]),
        widgets.RadioButtons(description="Size", options=["S", "M", "L"]),
        widgets.SelectMultiple(description="Tags", options=["a", "b", "c", "d"]),
        widgets.Text(description="City"),
        widgets.HBox([widgets.Button(description=d) for d in ("Accept", "Decline", "Cancel")]),
    ]
    return widgets.VBox(rows)


@dataclass
class Cost:
    """What building one view cost: models registered, messages and bytes sent, CPU microseconds."""

    name: str
    models: float
    tally: Tally
    us: float
    n: int

    @property
    def messages(self) -> float:
        return self.tally.messages / self.n

    @property
    def bytes(self) -> float:
        return self.tally.bytes / self.n


def build_cost(name: str, build: Any, n: int) -> Cost:
    """Build ``n`` views one after the other; per view: new models, front-end messages, bytes, CPU."""
    mark = Leftovers.mark()
    with counting_comms() as tally:
        start = time.process_time()
        views = [build() for _ in range(n)]
        cpu = time.process_time() - start
    models = len(mark.widgets()) / n
    del views
    mark.release()
    return Cost(name, models, tally, 1e6 * cpu / n, n)


def per_card(n: int) -> list[tuple[Cost, Cost]]:
    """(nbacp, hand-written) for the one-question card and for the 12-field form."""
    choice, form = (
        ElicitationSchema.model_validate(choice_schema()),
        ElicitationSchema.model_validate(twelve_field_schema()),
    )
    build_cost("warm-up", lambda: (FormCard(MESSAGE, choice), hand_written_form()), 2)
    return [
        (
            build_cost("nbacp one question", lambda: FormCard(MESSAGE, choice), n),
            build_cost("hand-written", hand_written_choice, n),
        ),
        (
            build_cost("nbacp 12 fields", lambda: FormCard(MESSAGE, form), n),
            build_cost("hand-written", hand_written_form, n),
        ),
    ]


# ---------------------------------------------------------------- retained by answered cards


class HoldingAgent(AskingAgent):
    """Asks ``questions`` ask_choice cards one after the other, then waits for ``release``."""

    def __init__(self, questions: int) -> None:
        super().__init__(questions)
        self.answered = asyncio.Event()
        self.release = asyncio.Event()

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        schema = ElicitationSchema.model_validate(choice_schema())
        mode = ElicitationFormSessionMode(session_id=session_id, requested_schema=schema)
        for _ in range(self.questions):
            reply = await self.conn.create_elicitation(message=MESSAGE, mode=mode)
            self.actions[getattr(reply, "action", "?")] += 1
        self.answered.set()
        await self.release.wait()
        return PromptResponse(stop_reason="end_turn")


def answer_choice(card: Any) -> None:
    card.pick("choice", "Staging")
    if not card.accept():
        raise AssertionError(f"the benchmark's answer did not validate: {card.errors}")


@dataclass
class Retained:
    n: int
    models_open_turn: float = 0.0  # live widget models per answered card, turn still running
    bytes_open_turn: float = 0.0  # tracemalloc bytes per answered card, turn still running
    models_after: float = 0.0  # ... after the turn ended (conn, session, result still held)
    bytes_after: float = 0.0
    saved_open_turn: float = 0.0  # saved widget state (JSON bytes) per answered card, turn running
    saved_after: float = 0.0


def _traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def _saved_state(mark: Leftovers) -> int:
    """JSON bytes of the widget state JupyterLab would save for the models created since ``mark``."""
    alive = mark.widgets()
    state = widgets.Widget.get_manager_state(drop_defaults=False, widgets=alive)
    return len(json.dumps(state, default=str))


async def _retained(n: int, out: Retained) -> None:
    agent = HoldingAgent(n)
    async with nbacp.connect(agent, answers=answer_choice) as conn:
        session = await conn.new_session()
        mark = Leftovers.mark()
        before = _traced()
        turn = session.start("go")
        await agent.answered.wait()
        await asyncio.sleep(0.1)  # one transcript frame
        out.bytes_open_turn = (_traced() - before) / n
        out.models_open_turn = len(mark.widgets()) / n
        out.saved_open_turn = _saved_state(mark) / n
        agent.release.set()
        result = await turn
        await asyncio.sleep(0.1)
        out.bytes_after = (_traced() - before) / n
        out.models_after = len(mark.widgets()) / n
        out.saved_after = _saved_state(mark) / n
        if agent.actions["accept"] != n or len(result.answers) != n:
            raise AssertionError(f"expected {n} accepts, got {dict(agent.actions)}")
        del result, turn
    mark.release()


def retained(n: int) -> Retained:
    out = Retained(n)
    with counting_comms():
        asyncio.run(_warm_up())
        tracemalloc.start(1)
        try:
            asyncio.run(_retained(n, out))
        finally:
            tracemalloc.stop()
    return out


async def _warm_up() -> None:
    mark = Leftovers.mark()
    agent = HoldingAgent(2)
    agent.release.set()
    async with nbacp.connect(agent, answers=answer_choice) as conn:
        await (await conn.new_session()).prompt("warm up")
    mark.release()


def report(sizes: int, answered: int) -> None:
    print("cards: one pending card against the same questions written by hand with stock ipywidgets")
    header = f"{'card':<22} {'models':>7} {'fe msgs':>8} {'bytes':>9} {'cpu us':>9} {'models x':>9} {'bytes x':>8}"
    print(header)
    print("-" * len(header))
    for ours, hand in per_card(sizes):
        for cost in (ours, hand):
            print(
                f"{cost.name:<22} {cost.models:>7.1f} {cost.messages:>8.1f} {cost.bytes:>9,.0f} {cost.us:>9,.0f} "
                f"{cost.models / hand.models:>8.1f}x {cost.bytes / hand.bytes:>7.1f}x"
            )
    kept = retained(answered)
    print(f"\nretained: {answered} one-question cards answered in one turn (per answered card)")
    print(f"  {'':<44} {'models':>8} {'bytes':>10} {'saved state':>12}")
    print(
        f"  {'turn still running (agent holds it)':<44} {kept.models_open_turn:>8.1f} "
        f"{kept.bytes_open_turn:>10,.0f} {kept.saved_open_turn:>12,.0f}"
    )
    print(
        f"  {'turn ended (conn, session, result held)':<44} {kept.models_after:>8.1f} "
        f"{kept.bytes_after:>10,.0f} {kept.saved_after:>12,.0f}"
    )
