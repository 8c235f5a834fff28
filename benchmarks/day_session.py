"""A day's session in a real kernel: N turns of mixed traffic (``day_agent``), one cell each.

The kernel is an ipykernel driven through jupyter_client (``tests/support/kernel_support``, the
kernel tests' harness), the agent in process in it, so what reaches the front end is the
kernel's real iopub traffic. Per client, from outside the kernel: its RSS (``/proc/PID/status``)
after every turn, and the bytes of each turn's iopub messages (their JSON ``content`` plus
binary buffers; headers not counted), comms (``comm_open``/``comm_msg``/``comm_close``) and
outputs (``display_data``/``update_display_data``/``execute_result``/``stream``) apart. The
baseline is the bare ACP client of ``roundtrip`` in the same kind of kernel, answering the same
questions and printing each turn's message text: what the transport and the SDK cost, and the
least a client shows. Then nbacp's cells are saved as JupyterLab would save them (each output
as the kernel sent it, updates through a display id applied; ``nbformat``) beside the turns'
plain text (each turn's record text, and ``result.text``); ``day_browser`` times opening that
notebook in JupyterLab.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output, output_from_msg

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
TURN_TIMEOUT = 120.0
WARM_TURNS = 10  # one cycle of every kind: RSS growth per turn is counted after it
COMMS = ("comm_open", "comm_msg", "comm_close")
OUTPUTS = ("display_data", "update_display_data", "execute_result", "stream")

NBACP_SETUP = """
import sys, json
sys.path.insert(0, {tests!r})
import nbacp
from nbacp.answers import Script
from benchmarks.day_agent import DayAgent, script
from support.memory_notebook import MemoryNotebook, cell
book = MemoryNotebook("day.ipynb", [cell("load", "df = load()"), cell("ask", "prompt")], "ask")
agent = DayAgent()
conn = await nbacp.connect(agent, answers=Script(script({n})))
session = await conn.new_session(tools=nbacp.kernel_tools(namespace={{}}, notebook=book))
texts = []
"""
NBACP_TURN = "result = await session.prompt({prompt!r})\ntexts.append((result.text, session.turn.record.text))"
NBACP_END = "print(json.dumps({'texts': texts, 'outcomes': agent.outcomes}))"

BARE_SETUP = """
import json
from benchmarks.day_agent import DayAgent, BareDayClient
from benchmarks.roundtrip import bare_session
agent, client = DayAgent(), BareDayClient()
bare = bare_session(agent, client)
conn, sid = await bare.__aenter__()
"""
BARE_TURN = "await conn.prompt(session_id=sid, prompt=[])\nprint(client.take())"
BARE_END = "print(json.dumps({'texts': [], 'outcomes': agent.outcomes}))"

# one-question turns (roundtrip's agent and answer): what a turn that only asks costs on the wire
QUESTIONS_SETUP = """
import json
import nbacp
from benchmarks.roundtrip import AskingAgent, answer_card
agent = AskingAgent(1)
conn = await nbacp.connect(agent, answers=answer_card)
session = await conn.new_session()
texts = []
"""
QUESTIONS_END = "print(json.dumps({'texts': texts, 'outcomes': [f'{k}:{v}' for k, v in agent.actions.items()]}))"
CLIENTS = {
    "nbacp": (NBACP_SETUP, NBACP_TURN, NBACP_END),
    "bare": (BARE_SETUP, BARE_TURN, BARE_END),
    "questions": (QUESTIONS_SETUP, NBACP_TURN, QUESTIONS_END),
}
# then, in the same kernel, RSS kept per answered card: ``cards`` questions over ``cards / PER_TURN``
# turns, every result held (``SPREAD``), then one turn of ``cards`` questions (``CARDS``); each is
# the set-up, the turn and how many cards the agent got accepted; nbacp's one-question agent asks
# that many now, the bare client gets a session of its own with ``roundtrip``'s agent and fixed accept
PER_TURN = 10
SPREAD = {
    "questions": (
        f"agent.questions = {PER_TURN}\nheld = []",
        "held.append(await session.prompt('spread'))",
        "print(agent.actions['accept'])",
    ),
    "bare": (
        "from benchmarks.roundtrip import FIXED_ACCEPT, AskingAgent, BareClient\n"
        f"spread_agent = AskingAgent({PER_TURN})\n"
        "spread = bare_session(spread_agent, BareClient(lambda _message, _mode: FIXED_ACCEPT))\n"
        "spread_conn, spread_sid = await spread.__aenter__()\n"
        "held = []",
        "held.append(await spread_conn.prompt(session_id=spread_sid, prompt=[]))",
        "print(spread_agent.actions['accept'])",
    ),
}
CARDS = {
    "questions": ("agent.questions = {cards}", NBACP_TURN.format(prompt="cards"), "print(agent.actions['accept'])"),
    "bare": (
        "from benchmarks.roundtrip import FIXED_ACCEPT, AskingAgent, BareClient\n"
        "cards_agent = AskingAgent({cards})\n"
        "cards = bare_session(cards_agent, BareClient(lambda _message, _mode: FIXED_ACCEPT))\n"
        "cards_conn, cards_sid = await cards.__aenter__()",
        "await cards_conn.prompt(session_id=cards_sid, prompt=[])",
        "print(cards_agent.actions['accept'])",
    ),
}


def _kernel_support() -> Any:
    sys.path[:0] = [str(TESTS)]
    from support import kernel_support

    return kernel_support


def rss_of(pid: int, key: str = "VmRSS") -> int:
    """Resident set size of process ``pid`` in bytes (Linux); ``key="VmHWM"``: its peak."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {key} for process {pid}")


def message_bytes(msg: dict[str, Any]) -> int:
    return len(json.dumps(msg["content"], default=str)) + sum(len(b) for b in msg.get("buffers") or ())


@dataclass
class Run:
    """One client's session: RSS after setup and after each turn, bytes per turn, the saved cells."""

    client: str
    n: int
    setup_rss: int = 0
    rss: list[int] = field(default_factory=list)
    peak: int = 0
    comm_bytes: list[int] = field(default_factory=list)
    output_bytes: list[int] = field(default_factory=list)
    cells: list[Any] = field(default_factory=list)  # nbformat code cells, outputs as the kernel sent them
    texts: list[tuple[str, str]] = field(default_factory=list)  # (result.text, record text) per turn
    outcomes: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # wall time of each turn's cell
    spread_kept: int = 0  # RSS after the turns of PER_TURN questions minus before them
    spread_accepted: int = 0  # as the agent counts them (all its accepts so far)
    cards_kept: int = 0  # RSS after the turn of many questions minus before it
    cards_bytes: int = 0  # that turn's iopub bytes (comms + outputs)
    cards_seconds: float = 0.0
    cards_accepted: int = 0  # as the agent counts them

    @property
    def growth_per_turn(self) -> float:
        """RSS growth per turn after the warm-up cycle (bytes)."""
        start = min(WARM_TURNS, self.n - 1) - 1
        return (self.rss[-1] - self.rss[start]) / max(self.n - 1 - start, 1)

    def per_turn(self, values: list[int]) -> float:
        return sum(values) / self.n


def _outputs(messages: list[dict[str, Any]], by_display: dict[str, list[dict[str, Any]]]) -> list[Any]:
    """The cell's outputs as a front end keeps them: streams merged, display-id updates applied."""
    outputs: list[Any] = []
    for msg in messages:
        kind = msg["msg_type"]
        if kind == "update_display_data":
            for shown in by_display.get(msg["content"].get("transient", {}).get("display_id", ""), []):
                shown["data"], shown["metadata"] = msg["content"]["data"], msg["content"]["metadata"]
        elif kind == "stream" and outputs and outputs[-1].get("name") == msg["content"]["name"]:
            outputs[-1]["text"] += msg["content"]["text"]
        elif kind in ("display_data", "execute_result", "stream", "error"):
            out = output_from_msg(msg)
            outputs.append(out)
            display_id = msg["content"].get("transient", {}).get("display_id")
            if display_id:
                by_display.setdefault(display_id, []).append(out)
    return outputs


def run(client: str, n: int, cards: int = 0) -> Run:
    """``client``: one of ``CLIENTS``; ``n`` turns, each its own cell; then, with ``cards``, one
    turn of that many questions (``CARDS``)."""
    support = _kernel_support()
    setup, turn, end = CLIENTS[client]
    setup = setup.format(tests=str(TESTS), n=n)
    out = Run(client, n)
    with tempfile.TemporaryDirectory(prefix="nbacp-day-") as cwd, support.start_kernel(Path(cwd)) as kernel:
        pid = kernel.km.provisioner.pid
        kernel.run(setup, timeout=TURN_TIMEOUT)
        out.setup_rss = rss_of(pid)
        ids, sources = [], []
        for i in range(n):
            sources.append(turn.format(prompt=f"turn {i}"))
            start = time.perf_counter()
            ids.append(kernel.execute(sources[-1]))
            kernel.wait_idle(ids[-1], TURN_TIMEOUT)
            out.seconds.append(time.perf_counter() - start)
            error = kernel.error(ids[-1])
            if error is not None:
                raise AssertionError(f"{client} turn {i} failed: {error['ename']}: {error['evalue']}")
            out.rss.append(rss_of(pid))
        out.peak = rss_of(pid, "VmHWM")
        report = json.loads(kernel.run(end, timeout=TURN_TIMEOUT).strip().splitlines()[-1])
        out.texts, out.outcomes = [tuple(t) for t in report["texts"]], report["outcomes"]
        time.sleep(0.5)  # a last frame sent after a turn's idle still carries that turn's parent
        by_display: dict[str, list[dict[str, Any]]] = {}
        for i, msg_id in enumerate(ids):
            messages = kernel.messages(msg_id)
            out.comm_bytes.append(sum(message_bytes(m) for m in messages if m["msg_type"] in COMMS))
            out.output_bytes.append(sum(message_bytes(m) for m in messages if m["msg_type"] in OUTPUTS))
            out.cells.append(new_code_cell(sources[i], outputs=_outputs(messages, by_display), execution_count=i + 2))
        if cards:
            _spread(kernel, pid, client, cards, out)
            _cards(kernel, pid, client, cards, out)
    return out


def _spread(kernel: Any, pid: int, client: str, cards: int, out: Run) -> None:
    prepare, turn, count = SPREAD[client]
    kernel.run(prepare, timeout=TURN_TIMEOUT)
    before = rss_of(pid)
    for i in range(max(cards // PER_TURN, 1)):
        msg_id = kernel.execute(turn)
        kernel.wait_idle(msg_id, TURN_TIMEOUT)
        error = kernel.error(msg_id)
        if error is not None:
            raise AssertionError(f"{client}: spread turn {i} failed: {error['ename']}: {error['evalue']}")
    out.spread_kept = rss_of(pid) - before
    out.spread_accepted = int(kernel.run(count, timeout=TURN_TIMEOUT).strip())


def _cards(kernel: Any, pid: int, client: str, cards: int, out: Run) -> None:
    prepare, turn, count = CARDS[client]
    kernel.run(prepare.format(cards=cards), timeout=TURN_TIMEOUT)
    before, start = rss_of(pid), time.perf_counter()
    msg_id = kernel.execute(turn)
    kernel.wait_idle(msg_id, TURN_TIMEOUT * 5)
    out.cards_seconds = time.perf_counter() - start
    out.cards_kept = rss_of(pid) - before
    error = kernel.error(msg_id)
    if error is not None:
        raise AssertionError(f"{client}: the turn of {cards} questions failed: {error['ename']}: {error['evalue']}")
    out.cards_accepted = int(kernel.run(count, timeout=TURN_TIMEOUT).strip())
    time.sleep(0.5)
    out.cards_bytes = sum(message_bytes(m) for m in kernel.messages(msg_id) if m["msg_type"] in COMMS + OUTPUTS)


def check(ours: Run, bare: Run) -> None:
    """The session's own sanity checks: every card answered as the script says, on both clients."""
    from benchmarks.day_agent import kind

    wanted = []
    for i in range(ours.n):
        what = kind(i)
        wanted += {"question": ["question:accept"], "declined": ["declined:decline"]}.get(what, [])
        wanted += {"permission": ["permission:allow"], "cell": ["cell:accepted"]}.get(what, [])
    if ours.outcomes != wanted:
        raise AssertionError(f"nbacp's answers: {ours.outcomes} != {wanted}")
    if bare.outcomes != [w for w in wanted if not w.startswith("cell")]:
        raise AssertionError(f"the bare client's answers: {bare.outcomes}")
    if len(ours.texts) != ours.n:
        raise AssertionError(f"{len(ours.texts)} turn texts for {ours.n} turns")


def notebooks(ours: Run) -> tuple[Any, Any]:
    """(the notebook as saved, its baseline: the same cells, each with its turn's record as plain text)."""
    spec = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    plain = [
        new_code_cell(
            c.source, outputs=[new_output("stream", name="stdout", text=record)], execution_count=c.execution_count
        )
        for c, (_text, record) in zip(ours.cells, ours.texts, strict=True)
    ]
    return new_notebook(cells=ours.cells, metadata=spec), new_notebook(cells=plain, metadata=spec)


def size(notebook: Any) -> int:
    return len(nbformat.writes(notebook).encode())
