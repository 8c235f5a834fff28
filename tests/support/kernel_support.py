"""A real ipykernel driven through jupyter_client, playing the part of the JS widget manager.

The kernel is started from this interpreter (the venv), in a temp cwd, via a throwaway
kernelspec so the interrupt mode can be chosen. One pump thread reads iopub and the shell
replies; messages are kept per parent msg_id, and widget models (comm_open + update
comm_msgs) are mirrored so tests can read state and answer as a browser would: the
comm_msg packets sent here are byte-for-byte what @jupyter-widgets/base sends.

ipywidgets needs nothing from a front end to open its comms, so no handshake is faked.

Like @jupyter-widgets/base, a model's state edits are throttled: an edit goes out only when
the kernel has reported "idle" for the model's previous edit; edits made meanwhile are merged
into one held message (custom messages such as clicks are never held). Without this rule the
ipykernel 7.4 status bug and the Run All partial answer could not show.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from support import TESTS

Msg = dict[str, Any]
T = TypeVar("T")

DEFAULT_TIMEOUT = 30.0
KERNEL_NAME = "nbacp-test"

# A cell's set-up shared by the kernel tests: nbacp, the test agents, and one claude-style
# multi-select question ("Which formats?": CSV, Parquet, JSON, with an Other box).
FORMATS_SETUP = textwrap.dedent(f"""
    import sys
    sys.path.insert(0, {str(TESTS)!r})
    import nbacp
    from support.agents import SchemaAgent, claude_question_schema
    from support.peers import HoldingAgent
    message, schema = claude_question_schema([{{
        "question": "Which formats?", "multiSelect": True,
        "options": [{{"label": "CSV"}}, {{"label": "Parquet"}}, {{"label": "JSON"}}],
    }}])
""")


class KernelHarness:
    """One running kernel plus the bookkeeping a widget front end would keep."""

    def __init__(self, km: KernelManager, kc: BlockingKernelClient) -> None:
        self.km = km
        self.kc = kc
        self._cond = threading.Condition()
        self._shell_lock = threading.Lock()
        self._by_parent: dict[str, list[Msg]] = defaultdict(list)
        self._replies: dict[str, Msg] = {}
        self.comms: dict[str, Msg] = {}  # comm_id -> comm_open content (+ "closed")
        self.states: dict[str, dict[str, Any]] = {}
        self.customs: dict[str, list[Any]] = defaultdict(list)
        self._unconfirmed: dict[str, str] = {}  # comm_id -> msg_id of the edit awaiting its idle
        self._held: dict[str, Msg] = {}  # comm_id -> the merged edit waiting to go out
        self._sent: list[tuple[str, str]] = []  # (msg_type, msg_id) of every shell message, in order
        self._stop = threading.Event()
        self._pump = threading.Thread(target=self._run_pump, name="kernel-pump", daemon=True)
        self._pump.start()

    # -- pump -------------------------------------------------------------------------------
    def _run_pump(self) -> None:
        iopub = self.kc.iopub_channel
        shell = self.kc.shell_channel
        while not self._stop.is_set():
            try:
                if iopub.socket.poll(10):
                    self._record(iopub.get_msg(timeout=0))
                with self._shell_lock:
                    while shell.msg_ready():
                        reply = shell.get_msg(timeout=0)
                        with self._cond:
                            self._replies[reply["parent_header"].get("msg_id", "")] = reply
                            self._cond.notify_all()
            except Exception:
                if self._stop.is_set():
                    return
                time.sleep(0.01)

    def _record(self, msg: Msg) -> None:
        release = None
        with self._cond:
            self._record_locked(msg)
            if msg["msg_type"] == "status" and msg["content"].get("execution_state") == "idle":
                release = self._release_held(msg["parent_header"].get("msg_id", ""))
        if release is not None:
            self._send_msg(release)

    def _release_held(self, idle_for: str) -> Msg | None:
        """The idle of a model's unconfirmed edit lets its held (merged) edit go out."""
        for comm_id, msg_id in list(self._unconfirmed.items()):
            if msg_id == idle_for:
                del self._unconfirmed[comm_id]
                held = self._held.pop(comm_id, None)
                if held is not None:
                    self._unconfirmed[comm_id] = held["header"]["msg_id"]
                    held["header"]["date"] = datetime.now(UTC)  # stamped when sent, as the browser does
                return held
        return None

    def _record_locked(self, msg: Msg) -> None:
        now = time.perf_counter()
        parent = msg["parent_header"].get("msg_id", "")
        kind = msg["msg_type"]
        content = msg["content"]
        msg["received_at"] = now
        self._by_parent[parent].append(msg)
        if kind == "comm_open":
            comm_id = content["comm_id"]
            self.comms[comm_id] = dict(content, closed=False)
            self.states[comm_id] = dict(content.get("data", {}).get("state", {}))
        elif kind == "comm_msg":
            data = content.get("data", {})
            comm_id = content["comm_id"]
            if data.get("method") in ("update", "echo_update"):
                self.states.setdefault(comm_id, {}).update(data.get("state", {}))
            elif data.get("method") == "custom":
                self.customs[comm_id].append(data.get("content"))
        elif kind == "comm_close" and content["comm_id"] in self.comms:
            self.comms[content["comm_id"]]["closed"] = True
        self._cond.notify_all()

    def wait_for(self, predicate: Callable[[], T | None], timeout: float = DEFAULT_TIMEOUT, what: str = "") -> T:
        """Wait (bounded) until ``predicate()`` returns something truthy, and return it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"timed out after {timeout}s waiting for {what or predicate}")
                self._cond.wait(min(left, 0.1))

    # -- shell ------------------------------------------------------------------------------
    def _send(self, msg_type: str, content: dict[str, Any], metadata: dict[str, Any] | None = None) -> str:
        msg = self.kc.session.msg(msg_type, content, metadata=metadata)
        self._send_msg(msg)
        return str(msg["header"]["msg_id"])

    def _send_msg(self, msg: Msg) -> None:
        with self._shell_lock:
            self._sent.append((msg["header"]["msg_type"], msg["header"]["msg_id"]))
            self.kc.shell_channel.send(msg)

    def execute(self, code: str, cell_id: str | None = None) -> str:
        """Send an execute_request without waiting; returns its msg_id. ``cell_id``: the ``cellId``
        metadata JupyterLab and Notebook 7 send with a cell's request."""
        return self._send(
            "execute_request",
            {
                "code": code,
                "silent": False,
                "store_history": True,
                "user_expressions": {},
                "allow_stdin": False,
                "stop_on_error": False,
            },
            {"cellId": cell_id} if cell_id is not None else None,
        )

    def open_comm(self, target_name: str, data: dict[str, Any]) -> str:
        """Open a comm from the front end's side (a page that arrives); returns its comm id."""
        comm_id = uuid.uuid4().hex
        self._send("comm_open", {"comm_id": comm_id, "target_name": target_name, "data": data})
        return comm_id

    def comm_data(self, comm_id: str) -> list[dict[str, Any]]:
        """The data of every comm_msg the kernel sent on ``comm_id``, oldest first."""
        with self._cond:
            found = [
                m
                for ms in self._by_parent.values()
                for m in ms
                if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == comm_id
            ]
        return [m["content"]["data"] for m in sorted(found, key=lambda m: m["received_at"])]

    def run(self, code: str, timeout: float = DEFAULT_TIMEOUT) -> str:
        """Execute, wait for idle, fail on an error; returns the cell's stdout."""
        msg_id = self.execute(code)
        self.wait_idle(msg_id, timeout)
        err = self.error(msg_id)
        if err is not None:
            raise AssertionError(f"cell failed: {err['ename']}: {err['evalue']}\n" + "\n".join(err["traceback"]))
        return self.stream_text(msg_id)

    def reply(self, msg_id: str, timeout: float = DEFAULT_TIMEOUT) -> Msg:
        """The shell reply (execute_reply, comm_info_reply, ...) to ``msg_id``."""
        return self.wait_for(lambda: self._replies.get(msg_id), timeout, f"reply to {msg_id}")

    def send_update(self, comm_id: str, **state: Any) -> str:
        """A front-end state change, as the JS widget manager sends it: at once if the model has
        no unconfirmed edit, else merged into the held edit that goes out on that edit's idle.
        Returns the msg_id the change travels in."""
        with self._cond:
            self.states.setdefault(comm_id, {}).update(state)
            held = self._held.get(comm_id)
            if held is not None:
                held["content"]["data"]["state"].update(state)
                return str(held["header"]["msg_id"])
            data = {"method": "update", "state": dict(state), "buffer_paths": []}
            msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
            msg_id = str(msg["header"]["msg_id"])
            if comm_id in self._unconfirmed:
                self._held[comm_id] = msg
                return msg_id
            self._unconfirmed[comm_id] = msg_id
        self._send_msg(msg)
        return msg_id

    def held_edits(self) -> dict[str, dict[str, Any]]:
        """Edits the front end is holding back (comm_id -> merged state), as the browser would."""
        with self._cond:
            return {c: dict(m["content"]["data"]["state"]) for c, m in self._held.items()}

    def click(self, comm_id: str) -> str:
        """A Button click, exactly as the browser's widget manager sends it."""
        return self.send_custom(comm_id, {"event": "click"})

    def send_custom(self, comm_id: str, content: Any) -> str:
        """A custom front-end message, e.g. ``{"event": "click"}`` for a Button."""
        return self._send("comm_msg", {"comm_id": comm_id, "data": {"method": "custom", "content": content}})

    def comm_info(self, target_name: str | None = "jupyter.widget", timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        """The kernel's open comms (comm_info_request), as a front end asks after reconnecting."""
        content = {} if target_name is None else {"target_name": target_name}
        comms: dict[str, Any] = self.reply(self._send("comm_info_request", content), timeout)["content"]["comms"]
        return comms

    def interrupt(self) -> None:
        """The stop button: whatever the kernelspec's interrupt_mode says (signal or message)."""
        self.km.interrupt_kernel()

    # -- reading ----------------------------------------------------------------------------
    def request(self, msg_type: str, content: dict[str, Any] | None = None) -> str:
        """Send a shell request without waiting for its reply; returns its msg_id."""
        return self._send(msg_type, content or {})

    def sent(self, msg_type: str) -> list[str]:
        """The msg_ids of the shell messages of ``msg_type`` sent so far, in order."""
        with self._shell_lock:
            return [msg_id for kind, msg_id in self._sent if kind == msg_type]

    def messages(self, msg_id: str, msg_type: str | None = None) -> list[Msg]:
        with self._cond:
            return [m for m in self._by_parent.get(msg_id, []) if msg_type in (None, m["msg_type"])]

    def is_idle(self, msg_id: str) -> bool:
        return any(m["content"].get("execution_state") == "idle" for m in self.messages(msg_id, "status"))

    def wait_idle(self, msg_id: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        try:
            self.wait_for(lambda: self.is_idle(msg_id), timeout, f"idle after {msg_id}")
        except TimeoutError as exc:
            seen = [(m["msg_type"], m["content"]) for m in self.messages(msg_id)]
            raise TimeoutError(f"{exc}; messages so far: {seen!r}"[:4000]) from None

    def stream_text(self, msg_id: str, name: Literal["stdout", "stderr"] = "stdout") -> str:
        return "".join(m["content"]["text"] for m in self.messages(msg_id, "stream") if m["content"]["name"] == name)

    def error(self, msg_id: str) -> dict[str, Any] | None:
        errors = self.messages(msg_id, "error")
        return errors[-1]["content"] if errors else None

    def first_output_time(self, msg_id: str, contains: str) -> float | None:
        """perf_counter time at which ``contains`` first appeared in the cell's stdout."""
        for m in self.messages(msg_id, "stream"):
            if contains in m["content"]["text"]:
                return float(m["received_at"])
        return None

    def comm_opens(self, model_name: str | None = None) -> list[dict[str, Any]]:
        """Widget models created so far: ``{"comm_id", "model_name", "state", ...}``, oldest first."""
        with self._cond:
            found = []
            for comm_id, content in self.comms.items():
                name = content.get("data", {}).get("state", {}).get("_model_name")
                if model_name in (None, name):
                    found.append(
                        {
                            "comm_id": comm_id,
                            "model_name": name,
                            "state": dict(self.states[comm_id]),
                            "target_name": content.get("target_name"),
                            "closed": content["closed"],
                        }
                    )
            return found

    def wait_comm(self, model_name: str, count: int = 1, timeout: float = DEFAULT_TIMEOUT) -> list[dict[str, Any]]:
        """Wait until at least ``count`` models of ``model_name`` exist; returns them."""
        return self.wait_for(
            lambda: (lambda f: f if len(f) >= count else None)(self.comm_opens(model_name)),
            timeout,
            f"{count} x {model_name}",
        )

    def wait_widget(self, model_name: str, timeout: float = DEFAULT_TIMEOUT, **match: Any) -> dict[str, Any]:
        """The newest open ``model_name`` whose current state has every ``match`` item,
        e.g. ``wait_widget("ButtonModel", description="Accept")``."""

        def find() -> dict[str, Any] | None:
            hits = [
                c
                for c in self.comm_opens(model_name)
                if not c["closed"] and all(c["state"].get(k) == v for k, v in match.items())
            ]
            return hits[-1] if hits else None

        return self.wait_for(find, timeout, f"{model_name} with {match}")

    def widget_state(self, comm_id: str) -> dict[str, Any]:
        with self._cond:
            return dict(self.states[comm_id])

    def close(self) -> None:
        self._stop.set()
        self._pump.join(2)
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


# -- finding the cards the cell showed --------------------------------------------------
# The newest open one each time: a test that answers a card and then waits for the next one
# (a second question, a re-asked card after a refusal) must never get the answered card back,
# which is closed (or disabled while its answer is checked) but still in ``comm_opens``.
def question_card(kernel: KernelHarness, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """The newest open card asking ``FORMATS_SETUP``'s question (a field named ``question_0``)."""

    def find() -> dict[str, Any] | None:
        for comm in reversed(kernel.comm_opens()):
            if comm["closed"]:
                continue
            state = kernel.widget_state(comm["comm_id"])
            spec = state.get("spec")
            fields = spec.get("fields") if isinstance(spec, dict) else None
            if (
                state.get("phase") == "open"
                and isinstance(fields, list)
                and any(isinstance(f, dict) and f.get("name") == "question_0" for f in fields)
            ):
                return comm
        return None

    return kernel.wait_for(find, timeout, "the question card")


def accept(kernel: KernelHarness, card_id: str, draft: dict[str, Any], seq: int = 1) -> str:
    """The Accept click as the card's page sends it: one custom message carrying the draft (docs/cards.md)."""
    return kernel.send_custom(card_id, {"event": "accept", "seq": seq, "draft": draft})


# ipykernel 7.0-7.3 can leave a shell request unread (ipykernel#1554, fixed in 7.4); nbacp works
# around it from connect() and every card on (nbacp.kernel.ensure_stream_replies). A test's cells
# that run before nbacp is loaded would still meet the upstream bug at random, so test kernels
# install the same workaround at start-up; tests of that installation itself opt out.
STREAM_REPLIES_AT_START = "--IPKernelApp.exec_lines=import nbacp.kernel; nbacp.kernel.ensure_stream_replies()"


def write_kernelspec(
    root: Path,
    interrupt_mode: Literal["signal", "message"] = "signal",
    python: str | Path | None = None,
    *,
    stream_replies: bool = True,
) -> Path:
    """A kernelspec for ``python`` (default: this interpreter, so the venv's ipykernel)."""
    spec_dir = root / KERNEL_NAME
    spec_dir.mkdir(parents=True, exist_ok=True)
    start = [STREAM_REPLIES_AT_START] if stream_replies else []
    spec = {
        "argv": [str(python or sys.executable), "-m", "ipykernel_launcher", "-f", "{connection_file}", *start],
        "display_name": "nbacp test kernel",
        "language": "python",
        "interrupt_mode": interrupt_mode,
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    return root


@contextmanager
def start_kernel(
    cwd: Path,
    interrupt_mode: Literal["signal", "message"] = "signal",
    timeout: float = 60.0,
    env: dict[str, str] | None = None,
    python: str | Path | None = None,
    *,
    stream_replies: bool = True,
) -> Iterator[KernelHarness]:
    """Start a kernel in ``cwd`` (bounded startup) and shut it down afterwards.

    ``stream_replies=False`` leaves ipykernel's reply path as it is until nbacp installs its
    workaround (see ``STREAM_REPLIES_AT_START``).

    The kernel never inherits NBACP_ANSWERS (a headless answer policy would answer for the
    test); pass it in ``env`` to test that policy on purpose.
    """
    kernel_env = {k: v for k, v in os.environ.items() if k != "NBACP_ANSWERS"} | (env or {})
    specs = write_kernelspec(cwd / ".kernelspecs", interrupt_mode, python, stream_replies=stream_replies)
    km = KernelManager(
        kernel_name=KERNEL_NAME,
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(specs)]),
        transport="ipc",  # local sockets in the temp dir: no TCP ports, no plain-text warning
        connection_file=str(cwd / ".kernel-connection.json"),
    )
    km.start_kernel(cwd=str(cwd), env=kernel_env)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=timeout)
    except BaseException:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        raise
    harness = KernelHarness(km, kc)
    try:
        yield harness
    finally:
        harness.close()
