"""The base of every interactive card: actions, the answer given once, awaiting it, and settling.

The state and the page model are ``nbacp.widgets.card_model.CardModel`` (docs/cards.md). An
action (Accept, Decline, Cancel, a permission option...) is a custom message that carries the
page's draft with it, and the kernel answers only from that message's draft, validated exactly
as an edit would be. ipywidgets holds a model's next state update until the kernel confirmed
the previous one, but never a custom message, so the answer is what the page showed at the
click on any link (docs/slow-links.md). The kernel then writes ``errors``, ``handled``,
``phase`` and ``summary``, never ``draft`` in reply to an action.

Headless policies and ``view.pick`` / ``view.fill`` / ``view.accept`` act on the same state
through the same handler a click's message runs (``_handle``). An answered card is the same
model with its state shrunk to ``{phase, summary}``; a transcript then puts the summary line
in its place and closes it (docs/notebooks.md, 'What a card costs').
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable, Generator, Mapping
from typing import Any, Generic, TypeVar

from nbacp import kernel
from nbacp.form.card_answer import ACTIONS, CardAnswer
from nbacp.widgets.card_model import ANSWERED, SENT, CardModel
from nbacp.widgets.text import visible_controls

T = TypeVar("T")
_NONE: list[Any] = []  # shared empty list for answered cards (never appended to)


class Card(CardModel, Generic[T]):
    """One card, one model. Subclasses give ``spec`` and a starting ``draft`` and implement
    ``_action(event, content)`` (answer through ``_resolve``) and ``_cancel_response()``.
    ``opened``: see ``CardModel``.
    """

    def __init__(
        self, spec: Mapping[str, Any], draft: Mapping[str, Any] | None = None, *, opened: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(spec, draft, opened=opened, **kwargs)
        self._lock = threading.RLock()  # front-end messages may run on a kernel subshell thread
        self._response: T | None = None
        self._resolved = False
        self._waiters: list[asyncio.Future[T]] = []
        self._on_resolve: list[Callable[[T], None]] = []
        self._undelivered: T | None = None  # the response as sent, until the client has it
        self.asked_at = time.monotonic()
        self.withdrawn_after: float | None = None
        """Seconds the agent waited before it withdrew the request ($/cancel_request), or None."""
        self._on_settle: list[Callable[[str], None]] = []
        # Set by the client: why a response cannot be sent (e.g. over the websocket's size limit), or None.
        self.response_check: Callable[[T], str | None] | None = None

    # -- the answer -------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self._resolved

    @property
    def settled(self) -> bool:
        """True once only the summary is left (spec and draft emptied)."""
        return self.phase == ANSWERED

    @property
    def response(self) -> T | None:
        """The response sent, or None while the card is still open."""
        return self._response

    def on_resolve(self, callback: Callable[[T], None]) -> None:
        """Run ``callback(response)`` once the card is answered (immediately if it already was)."""
        if self._resolved:
            callback(self._response)  # type: ignore[arg-type]
        else:
            self._on_resolve.append(callback)

    def __await__(self) -> Generator[Any, None, T]:
        # A coroutine's iterator, so that a cell awaiting the card stays in its own task (the
        # stop button handling needs that; see nbacp.kernel.wait_in_cell).
        return self._wait().__await__()

    async def _wait(self) -> T:
        __tracebackhide__ = True  # hidden from IPython tracebacks (docs/kernels.md, 'The stop button')
        if self._resolved:
            sent, self._undelivered = self._undelivered, None
            return sent if sent is not None else self._response  # type: ignore[return-value]
        kernel.refuse_to_wait_in_cell()
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        return await kernel.wait_in_cell(future, on_interrupt=self._stopped)

    def _stopped(self) -> str:
        cancelled = self.cancel_pending("stopped from the notebook")
        done = "the question was answered as cancelled" if cancelled else "the question was already answered"
        return f"Stopped from the notebook: {done}."

    # -- actions: a click's message and a Python call run the same handler -------------
    def _handle_custom_msg(self, content: Any, buffers: Any) -> None:
        """ipywidgets' hook for a custom message: the card's own handler first (a method, not an
        ``on_msg`` callback: no dispatcher and callback list kept per card), then any ``on_msg``."""
        self._on_front_end(self, content, buffers)
        super()._handle_custom_msg(content, buffers)

    def _on_front_end(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """A custom message from the page: ``{"event", "seq", "draft"?, ...}`` (docs/cards.md)."""
        if not isinstance(content, dict):
            return
        seq = content.get("seq")
        with self.hold_sync():  # errors and handled reach the page together
            self._handle(content)
            if isinstance(seq, int) and not isinstance(seq, bool) and seq > self.handled and not self.settled:
                self.handled = seq  # the page unfreezes (a refused accept) once it sees its seq handled

    def _handle(self, content: Mapping[str, Any]) -> bool:
        """Run one action; False when it did not answer (refused, unknown, or already answered).

        Late messages (a double click, a held update's companion after the answer) are ignored.
        """
        event = content.get("event")
        with self._lock:
            if self._resolved or not isinstance(event, str):
                return False
            return self._action(event, content)

    def _action(self, event: str, content: Mapping[str, Any]) -> bool:
        """Subclasses: answer ``event`` (through ``_resolve``) or refuse it (set ``errors``)."""
        raise NotImplementedError

    def _resolve(self, response: T, summary: str, *, checked: bool = True) -> bool:
        """Deliver ``response`` once; later calls (double clicks, late cancels) are ignored.

        A response the client cannot send (``response_check``) is refused: the card stays open
        and says why, so the person can shorten the answer instead of losing the connection.
        """
        with self._lock:
            if self._resolved:
                return False
            problem = self.response_check(response) if checked and self.response_check is not None else None
            if problem is not None:
                self.errors = {"": [visible_controls(f"Not sent: {problem}")]}
                return False
            self._resolved = True
            self.response_check = None  # nothing more to check (and the client's Reply is let go)
            self._response = self._kept(response)
            waiters, self._waiters = self._waiters, _NONE
            if not waiters:  # answered before anyone awaited (a synchronous policy): the first await gets it
                self._undelivered = response
            callbacks, self._on_resolve = self._on_resolve, _NONE
            with self.hold_sync():
                # The summary repeats agent text (a chosen label, a method's name): the same text
                # safety as the card's own buttons, since it is also the line the turn's record keeps.
                self.summary = visible_controls(summary)
                if self._settles_on_resolve():
                    self._settle()
                else:
                    self.phase = SENT
        for future in waiters:
            _set_result(future, response)
        for callback in callbacks:
            callback(self._response)
        return True

    def _kept(self, response: T) -> T:
        """What the card keeps (and shows as ``response``) of what it sent: a form drops secrets."""
        return response

    def recorded_answers(self, kind: str, question: str) -> list[CardAnswer]:
        """The typed answers this card gave, for ``result.answers`` and the turn record.

        The one protocol between a card and the record (docs/record.md, 'Answers'): the client
        calls it once the card is resolved, with the card's ``kind`` and the question it asked.
        By default one answer for the card, read from the response by ``_answer_value``; a card
        that asks several questions (the form) gives one per question.
        """
        action, value = self._answer_value(self._response)
        return [CardAnswer(kind, question, action, value, line=self.summary)]

    def _answer_value(self, response: Any) -> tuple[str, Any]:
        """(action, value) of a response: an elicitation's action and content, else accept/cancel."""
        action = getattr(response, "action", None)
        if isinstance(action, str) and action in ACTIONS:
            return action, getattr(response, "content", None) if action == "accept" else None
        return ("cancel", None) if response is None else ("accept", response)

    def __repr__(self) -> str:
        # Also the text/plain of the cell output: short and stable, so saved notebooks and
        # nbval's comparisons do not depend on the widget state.
        state = self.summary if self._resolved else "waiting for an answer"
        return f"<{type(self).__name__}: {state}>"

    # -- closing from outside ---------------------------------------------------------
    def note_policy_failure(self, exc: BaseException) -> None:
        """The headless answer policy raised on this card: say so on it; a person answers it."""
        note = visible_controls(f"The answer policy failed ({type(exc).__name__}: {exc}); answer by hand.")
        self.errors = {**self.errors, "": [note]}

    def cancel_pending(self, reason: str) -> bool:
        """Close an open card as cancelled because the agent stopped waiting (turn ended, disconnect)."""
        return self._resolve(self._cancel_response(), f"Cancelled: {reason}", checked=False)

    def withdraw(self) -> bool:
        """The agent withdrew the request ($/cancel_request, e.g. codex after its deadline): closed as
        cancelled, and the record says "Withdrawn by the agent after N s" (``withdrawn_after``)."""
        if self._resolved:
            return False
        self.withdrawn_after = time.monotonic() - self.asked_at
        return self._resolve(self._cancel_response(), withdrawn_text(self.withdrawn_after), checked=False)

    def _cancel_response(self) -> T:
        raise NotImplementedError

    # -- giving the memory back -------------------------------------------------------
    def _settles_on_resolve(self) -> bool:
        """Whether resolving ends the card (a URL card still reports after consent: ``_settle`` later)."""
        return True

    def _settle(self) -> None:
        """Shrink the state to the summary (and the card's kind) and drop what Python held for the open card."""
        if self.phase == ANSWERED:
            return
        with self.hold_sync():
            kind = self.spec.get("kind")
            self.spec = {"kind": kind} if isinstance(kind, str) else {}  # the page keeps its card's class
            self.draft = {}
            if self.errors:
                self.errors = {}
            self.phase = ANSWERED
        self._release()
        callbacks, self._on_settle = self._on_settle, _NONE
        for callback in callbacks:
            callback(self.summary)

    def line_classes(self) -> tuple[str, ...]:
        """The classes of this card's element as the page draws it (js/src/base.js: ``nbacp-card``
        and its kind's), with the model's own: an answered card's line keeps its look without it."""
        kind = re.sub("[^a-z]", "", str(self.spec.get("kind") or "none"))
        return ("nbacp-card", f"nbacp-kind-{kind}", *self._dom_classes)

    def on_settle(self, callback: Callable[[str], None]) -> None:
        """Run ``callback(summary)`` once the interaction is over (at once if it already is): a
        cell showing the card outside a turn may then replace it with that line of text
        (docs/record.md, 'Saved notebooks')."""
        if self.settled:
            callback(self.summary)
        else:
            self._on_settle.append(callback)

    def _release(self) -> None:
        """Drop references held for the open card (subclasses extend this)."""
        self._on_resolve = self._waiters = _NONE


def _set_result(future: asyncio.Future[Any], value: Any) -> None:
    """Resolve ``future`` from any thread: card messages may run on a kernel subshell thread
    (ipykernel 7.4 with JupyterLab's widget manager), where ``set_result`` would not wake the
    loop awaiting it (docs/kernels.md, 'Subshells')."""
    try:
        running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    loop = future.get_loop()
    if running is loop or loop.is_closed():
        if not future.done():
            future.set_result(value)
        return

    def settle() -> None:
        if not future.done():
            future.set_result(value)

    loop.call_soon_threadsafe(settle)


def withdrawn_text(seconds: float) -> str:
    """The record's line for a request the agent withdrew after ``seconds``."""
    return f"Withdrawn by the agent after {round(seconds)} s."
