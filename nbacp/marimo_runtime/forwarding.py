"""Widget messages of nbacp's models, let through while a marimo cell awaits.

marimo 0.25's kernel reads one command from its control queue, awaits its handling, then
reads the next (``marimo/_runtime/kernel_lifecycle.py: listen_messages``); running a cell is
one command, so a widget message (``ModelCommand``) the page sends while a cell awaits is
handled only after the cell ends (marimo/_runtime/commands.py says so of every command but
the out-of-band ones). For the duration of one wait, :func:`forwarding` reads the control
queue itself, in a worker thread: a ``ModelCommand`` of a model registered with
:func:`forward_model` is handed to marimo's comm manager on the loop at once (and its twin on
the batching queue, same token, dropped); every other command is put back, in order, when
the wait ends. A model is registered while its comm is open: closing it (an answered card
once the turn view drew its line, an ended turn's cards, a settled turn view) drops its id, and
so does :func:`forget_model` (a turn view that shows its record: the cell shows the record in
its place), so a long session keeps no per-card state here. The queues are found in the closure
of ``Kernel.enqueue_control_request`` (``make_control_enqueuer``). These are private marimo
internals, checked on 0.25.2 only: :func:`refusal` feature-detects them, and a wait refuses at
once where one is missing, since no click could ever end it (``nbacp.errors.CellWaitUnavailableError``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from nbacp.errors import CellWaitUnavailableError

_FORWARDED: set[str] = set()
_POLL = 0.05  # seconds a read of the control queue waits before it looks at the stop flag


def trace(text: str) -> None:
    """One line to the file named by ``NBACP_MARIMO_TRACE`` (what the forwarding did, for
    debugging a wait that does not end; nothing when unset)."""
    if os.environ.get("NBACP_MARIMO_TRACE"):
        with open(os.environ["NBACP_MARIMO_TRACE"], "a") as f:
            f.write(text + "\n")


class Model(Protocol):
    """An open widget model (an ipywidgets ``Widget``): its comm, observed until it closes."""

    comm: Any

    def observe(self, handler: Callable[[Any], None], names: str) -> Any: ...


def forward_model(model: Model) -> None:
    """Let this model's messages through during a wait, until its comm closes (nbacp's cards and
    turn views register themselves when their comm opens)."""
    model_id = str(model.comm.comm_id)
    _FORWARDED.add(model_id)

    def closed(change: Any) -> None:
        if change["new"] is None:  # ipywidgets' ``Widget.close`` sets ``comm`` to None
            _FORWARDED.discard(model_id)

    model.observe(closed, names="comm")


def forget_model(model: Model) -> None:
    """Stop letting this model's messages through (nothing if it was not registered or is closed)."""
    if model.comm is not None:
        _FORWARDED.discard(str(model.comm.comm_id))


def forwarded_models() -> frozenset[str]:
    """The model ids let through now (what a long session must not grow)."""
    return frozenset(_FORWARDED)


def refusal() -> str | None:
    """Why widget messages cannot be forwarded in this marimo, or None when they can."""
    try:
        from marimo._plugins.ui._impl.anywidget.init import WIDGET_COMM_MANAGER
        from marimo._runtime.commands import ModelCommand
    except ImportError as exc:
        return f"nbacp cannot reach marimo's widget comm manager ({exc}; nbacp was checked on marimo 0.25.2)"
    if not callable(getattr(WIDGET_COMM_MANAGER, "receive_comm_message", None)) or not isinstance(ModelCommand, type):
        return "this marimo's widget comm manager takes no model commands (nbacp was checked on marimo 0.25.2)"
    if _queues() is None:
        return "this marimo kernel's control queue was not found (nbacp was checked on marimo 0.25.2)"
    return None


def _queues() -> tuple[Any, Any] | None:
    try:
        from marimo._runtime.context import get_context
    except ImportError:
        return None
    try:
        kernel = getattr(get_context(), "_kernel", None)
    except Exception:  # marimo's ContextNotInitializedError: no kernel in this thread
        return None
    enqueue = getattr(kernel, "enqueue_control_request", None)
    code, cells = getattr(enqueue, "__code__", None), getattr(enqueue, "__closure__", None)
    if code is None or cells is None:
        return None
    found = dict(zip(code.co_freevars, (cell.cell_contents for cell in cells), strict=False))
    control, ui = found.get("control_queue"), found.get("set_ui_element_queue")
    return None if control is None or ui is None else (control, ui)


def _drop_twin(ui: Any, token: str) -> None:
    kept = []
    while True:
        try:
            item = ui.get_nowait()
        except (queue.Empty, asyncio.QueueEmpty):
            break
        if getattr(item, "token", None) != token:
            kept.append(item)
    for item in kept:
        ui.put_nowait(item)


@contextlib.asynccontextmanager
async def forwarding() -> AsyncIterator[None]:
    """Forward registered models' messages while inside; raises where :func:`refusal` says why not."""
    reason = refusal()
    found = _queues()
    if reason is not None or found is None:
        raise CellWaitUnavailableError(f"a marimo cell cannot wait for a card here: {reason}")
    from marimo._plugins.ui._impl.anywidget.init import WIDGET_COMM_MANAGER
    from marimo._runtime.commands import ModelCommand

    control, ui = found
    loop = asyncio.get_running_loop()
    stop = threading.Event()
    held: list[Any] = []

    def dispatch(command: Any) -> None:
        _drop_twin(ui, command.token)
        WIDGET_COMM_MANAGER.receive_comm_message(command)

    def read() -> None:
        while not stop.is_set():
            try:
                command = control.get(timeout=_POLL)
            except queue.Empty:
                continue
            if isinstance(command, ModelCommand) and command.model_id in _FORWARDED:
                loop.call_soon_threadsafe(dispatch, command)
            else:
                held.append(command)

    reader = threading.Thread(target=read, name="nbacp-marimo-forwarding", daemon=True)
    reader.start()
    try:
        yield
    finally:
        trace("forwarding: stopping")
        stop.set()
        await asyncio.shield(loop.run_in_executor(None, reader.join))
        for command in held:
            control.put(command)
        trace(f"forwarding: stopped, {len(held)} put back")
