"""The running turns, for a page that arrives while they run: comm target ``nbacp:turns``.

A page reloaded without saving read the notebook from disk, which holds no output of the
running cell, and JupyterLab routes the running cell's outputs only to the page that sent its
request: the kernel cannot put the live view back by itself. nbacp's front-end piece
(labextension/src/turns.ts) can: on every kernel connection it opens a comm to this target and
says ``hello`` with the cell ids it holds; the kernel answers ``show_turn`` for every running turn
whose prompt cell is among them, and the page shows the turn's live view (its widget model, with
the pending cards and their drafts) in that cell. When a turn ends the kernel sends ``end_turn``
with the record's bundle to every page that said hello, so the record takes the live view's
place there too, and what such a page saves is static. The messages: docs/reload.md, 'The
front-end contract'.

The target is registered when the first turn is shown in a cell (a page that says hello
earlier has nothing to be shown and gets the comm closed). Everything a page sends is checked
and bounded: a malformed hello is ignored, at most ``MAX_PAGES`` comms are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from nbacp.kernel import versions
from nbacp.kernel.notebook_link import prompt_cell_id
from nbacp.kernel.notebook_wire import LIMITS

TARGET = "nbacp:turns"
PROTOCOL_VERSION = 1
MAX_PAGES = 64
"""Comms kept open for ``end_turn``; the oldest is closed beyond (a page reloaded often leaves
its old comms behind: a closed tab does not say so)."""
RECORD_CHARS = LIMITS.read_chars
"""A record's bundle larger than this is not sent: the page keeps the live view's model, which
shows the record itself (``Transcript.show_record``)."""
LABEL_CHARS = 200


class PageComm(Protocol):
    """What this module uses of a kernel-side comm (``comm.base_comm.BaseComm``)."""

    comm_id: str

    def send(self, data: dict[str, Any]) -> None: ...

    def close(self) -> None: ...

    def on_msg(self, callback: Any) -> None: ...

    def on_close(self, callback: Any) -> None: ...


@dataclass(frozen=True)
class RunningTurn:
    """A turn whose live view (widget model ``model_id``) was shown in cell ``prompt_cell_id``."""

    prompt_cell_id: str
    model_id: str
    label: str


def parse_hello(data: object) -> frozenset[str] | str:
    """The cell ids a page's ``hello`` names, or why it is not a hello this kernel believes."""
    if not isinstance(data, dict):
        return "not an object"
    if data.get("v") != PROTOCOL_VERSION or data.get("type") != "hello":
        return "not a version 1 hello"
    cells = data.get("cells")
    if not isinstance(cells, list) or len(cells) > LIMITS.cells:
        return f"cells must be a list of at most {LIMITS.cells} ids"
    if not all(isinstance(c, str) and 0 < len(c) <= LIMITS.id for c in cells):
        return f"every cell id must be a string of 1 to {LIMITS.id} characters"
    return frozenset(cells)


class TurnPages:
    """The kernel's running turns and the pages that asked for them (one per kernel: :data:`PAGES`)."""

    def __init__(self) -> None:
        self._turns: dict[str, RunningTurn] = {}
        self._comms: OrderedDict[str, PageComm] = OrderedDict()
        self._registered = False

    @property
    def running(self) -> tuple[RunningTurn, ...]:
        return tuple(self._turns.values())

    def started(self, model_id: str, label: str, cell_id: str | None = None) -> RunningTurn | None:
        """Note a turn whose live view was just shown in the running cell (``cell_id``, or the
        current execute request's). None when the front end sent no cell id (VS Code, Colab):
        then no page could be told where it belongs."""
        cell = cell_id if cell_id is not None else prompt_cell_id()
        if cell is None:
            return None
        self._register()
        turn = RunningTurn(cell, model_id, label[:LABEL_CHARS])
        self._turns[model_id] = turn
        return turn

    def ended(self, model_id: str, record: Callable[[], tuple[str, str]]) -> None:
        """The turn is over: every page that said hello replaces the view with the record.

        ``record`` builds the record's (HTML, text) when a page is there to be told: a long
        turn's record is large, and most turns end with no page of nbacp's piece listening."""
        turn = self._turns.pop(model_id, None)
        if turn is None or not self._comms:
            return
        html, text = record()
        fits = len(html) + len(text) <= RECORD_CHARS
        message = {
            "v": PROTOCOL_VERSION,
            "type": "end_turn",
            "prompt_cell_id": turn.prompt_cell_id,
            "model_id": model_id,
            "bundle": {"text/html": html, "text/plain": text} if fits else None,
        }
        for comm in list(self._comms.values()):
            comm.send(message)

    def opened(self, comm: PageComm, data: object) -> None:
        """A page opened a comm (its ``hello`` in the open message)."""
        self._comms[comm.comm_id] = comm
        while len(self._comms) > MAX_PAGES:
            _, oldest = self._comms.popitem(last=False)
            oldest.close()
        comm.on_msg(lambda msg: self.hello(comm, _data(msg)))
        comm.on_close(lambda _msg: self._comms.pop(comm.comm_id, None))
        self.hello(comm, data)

    def hello(self, comm: PageComm, data: object) -> None:
        """Answer a page's hello: ``show_turn`` for each running turn in a cell it holds."""
        cells = parse_hello(data)
        if isinstance(cells, str):
            return
        for turn in list(self._turns.values()):
            if turn.prompt_cell_id in cells:
                comm.send(
                    {
                        "v": PROTOCOL_VERSION,
                        "type": "show_turn",
                        "prompt_cell_id": turn.prompt_cell_id,
                        "model_id": turn.model_id,
                        "label": turn.label,
                    }
                )

    def _register(self) -> None:
        if self._registered or not versions.running_in_kernel():
            return
        manager = _comm_manager()
        if manager is None:
            return
        manager.register_target(TARGET, lambda comm, msg: self.opened(comm, _data(msg)))
        self._registered = True


def _data(msg: object) -> object:
    """A comm message's ``data`` (None when the message is not shaped like one)."""
    content = msg.get("content") if isinstance(msg, dict) else None
    return content.get("data") if isinstance(content, dict) else None


def _comm_manager() -> Any:
    try:
        import comm
    except ImportError:  # ipykernel < 6.18 (Colab's 6.17.1): the kernel's own manager
        kernel = versions.current_kernel()
        return getattr(kernel, "comm_manager", None)
    return comm.get_comm_manager()


PAGES = TurnPages()
"""This kernel's running turns (the page side's counterpart lives as long as the kernel)."""

__all__ = ["MAX_PAGES", "PAGES", "TARGET", "PageComm", "RunningTurn", "TurnPages", "parse_hello"]
