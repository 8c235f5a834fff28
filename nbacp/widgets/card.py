"""The shared life cycle of every interactive card: shown, answered exactly once, then a record.

A card is an ipywidgets container that a person (or a headless policy acting through the
same methods) answers. The answer is delivered through ``await card``; after it the card's
controls are closed (their widget models freed in the kernel and the front end) and the
card shows, in the same place, one line saying what was sent: an answered card is two small
models (the card's box and its summary label), so a long session does not keep every form
it ever showed (docs/notebooks.md, 'What a card costs').
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Generator
from typing import Any, Generic, TypeVar

import ipywidgets as widgets

from nbacp import kernel
from nbacp.form.card_answer import ACTIONS, CardAnswer
from nbacp.widgets import shared
from nbacp.widgets.text import NO_TYPESET_CLASSES, visible_controls

T = TypeVar("T")
_NONE: list[Any] = []  # shared empty list for settled cards (never appended to: a settled card is resolved)


class Card(widgets.VBox, Generic[T]):  # type: ignore[misc]  # ipywidgets is untyped
    """Base for FormCard, UrlConsentCard and PermissionCard.

    Subclasses build their controls, call ``self._resolve(response, summary)`` from the
    action that answers, and implement ``_cancel_response()`` so that the client can close a
    card the agent no longer waits for (``cancel_pending``).
    """

    children: Any  # the traitlets descriptor of ipywidgets' Box (untyped)

    def __init__(self, **kwargs: Any) -> None:
        kernel.ensure_comm_status()  # or only the first edit of each control arrives while a cell awaits
        kernel.ensure_stream_replies()  # or ipykernel 7.0-7.3 can leave a request unread
        kernel.track_front_end_edits()  # so an answer is never sent before edits still on their way
        kwargs.setdefault("layout", shared.layout())
        kwargs.setdefault("_dom_classes", ("nbacp-card",))
        super().__init__(**kwargs)
        self._response: T | None = None
        self._resolved = False
        self._settled = False
        self._waiters: list[asyncio.Future[T]] = []
        self._on_resolve: list[Callable[[T], None]] = []
        self._summary_text = ""
        self._undelivered: T | None = None  # the response as sent, until the client has it
        self.asked_at = time.monotonic()
        self.withdrawn_after: float | None = None
        """Seconds the agent waited before it withdrew the request ($/cancel_request), or None."""
        self._summary: widgets.Label | None = None
        self._on_settle: list[Callable[[widgets.Label], None]] = []
        # Set by the client: why a response cannot be sent (e.g. over the websocket's size limit), or None.
        self.response_check: Callable[[T], str | None] | None = None

    @property
    def summary(self) -> widgets.Label:
        """The one-line record of the answer (made when first needed: a pending card has none)."""
        if self._summary is None:
            # The summary repeats agent text (chosen labels); keep MathJax from typesetting it.
            self._summary = widgets.Label(
                value=self._summary_text,
                layout=shared.layout(),
                style=shared.label_style(),
                _dom_classes=(*NO_TYPESET_CLASSES, "nbacp-summary"),
            )
        return self._summary

    # -- the answer -------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self._resolved

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
        # In a cell: widget messages flow while it waits, and the stop button cancels the card
        # (the agent gets a cancel) and ends the cell; elsewhere a plain await.
        return await kernel.wait_in_cell(future, on_interrupt=self._stopped)

    def _stopped(self) -> str:
        cancelled = self.cancel_pending("stopped from the notebook")
        done = "the question was answered as cancelled" if cancelled else "the question was already answered"
        return f"Stopped from the notebook: {done}."

    def _resolve(self, response: T, summary: str, *, checked: bool = True) -> bool:
        """Deliver ``response`` once; later calls (double clicks, late cancels) are ignored.

        A response the client cannot send (``response_check``) is refused: the card stays open
        and says why, so the person can shorten the answer instead of losing the connection.
        """
        if self._resolved:
            return False
        problem = self.response_check(response) if checked and self.response_check is not None else None
        if problem is not None:  # shown where the summary will be, and the card stays answerable
            label = self.summary
            label.value = visible_controls(f"Not sent: {problem}")
            label.add_class("nbacp-refusal")
            if label not in self.children:
                self.children = (*self.children, label)
            return False
        self._resolved = True
        self._response = self._kept(response)
        # The summary repeats agent text (a chosen label, a method's name): the same text safety
        # as the card's own buttons, since it is also the line the turn's record keeps.
        summary = visible_controls(summary)
        self._summary_text = summary
        if self._summary is not None:
            self._summary.value = summary
            self._summary.remove_class("nbacp-refusal")
        waiters, self._waiters = self._waiters, []
        if not waiters:  # answered before anyone awaited (a synchronous policy): the first await gets it
            self._undelivered = response
        callbacks, self._on_resolve = self._on_resolve, []
        if self._settles_on_resolve():
            self._settle()
        else:
            self._disable()
        for future in waiters:
            if not future.done():
                future.set_result(response)
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
        return [CardAnswer(kind, question, action, value, line=self._summary_text)]

    def _answer_value(self, response: Any) -> tuple[str, Any]:
        """(action, value) of a response: an elicitation's action and content, else accept/cancel."""
        action = getattr(response, "action", None)
        if isinstance(action, str) and action in ACTIONS:
            return action, getattr(response, "content", None) if action == "accept" else None
        return ("cancel", None) if response is None else ("accept", response)

    def __repr__(self) -> str:
        # Also the text/plain of the cell output: short and stable, so saved notebooks and
        # nbval's comparisons do not depend on the widget tree (ipywidgets' default repr does).
        state = self._summary_text if self._resolved else "waiting for an answer"
        return f"<{type(self).__name__}: {state}>"

    def _edits_may_lag(self) -> bool:
        """True when a front-end action arrived while the front end may still hold edits of
        this card's widgets (the kernel was busy): answering now could send a partial draft."""
        return kernel.edits_may_lag(_model_ids(self))

    def _edit_settle_delay(self) -> float:
        """Seconds before a front-end click may be answered (an edit held by the front end
        right after the previous one reached the kernel may still be on its way)."""
        return kernel.edit_settle_delay(_model_ids(self))

    # -- closing from outside ---------------------------------------------------------
    def note_policy_failure(self, exc: BaseException) -> None:
        """The headless answer policy raised on this card: say so under it; a person answers it."""
        note = widgets.Label(
            value=visible_controls(f"The answer policy failed ({type(exc).__name__}: {exc}); answer by hand."),
            _dom_classes=NO_TYPESET_CLASSES,
        )
        note.add_class("nbacp-policy-error")
        self.children = (*self.children, note)

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
    @property
    def settled(self) -> bool:
        """True once the controls are closed and only the summary is left."""
        return self._settled

    def _settles_on_resolve(self) -> bool:
        """Whether resolving ends the card's interaction (a URL card still waits after consent)."""
        return True

    def _settle(self) -> None:
        """Close every control and show only the summary, in place; drop what held the controls."""
        if self._settled:
            return
        self._settled = True
        summary = self.summary
        old = list(self.children)
        self.children = (summary,)
        shared.close_tree(old, keep=(summary,))
        self._release()
        callbacks, self._on_settle = self._on_settle, _NONE
        for callback in callbacks:
            callback(summary)

    def on_settle(self, callback: Callable[[widgets.Label], None]) -> None:
        """Run ``callback(summary)`` once the controls are closed (at once if they already are).

        A container that shows the card (the transcript) may then show the summary label in the
        card's place and close the card's own box: one model per answered card.
        """
        if self._settled:
            callback(self.summary)
        else:
            self._on_settle.append(callback)

    def _disable(self) -> None:
        """Disable every control inside the card (while a resolved card still shows them)."""
        stack: list[widgets.Widget] = list(self.children)
        while stack:
            child = stack.pop()
            if hasattr(child, "disabled"):
                child.disabled = True
            stack.extend(getattr(child, "children", ()))

    def _release(self) -> None:
        """Drop references to closed controls and callbacks (subclasses extend this)."""
        self._on_resolve = self._waiters = _NONE


def withdrawn_text(seconds: float) -> str:
    """The record's line for a request the agent withdrew after ``seconds``."""
    return f"Withdrawn by the agent after {round(seconds)} s."


def _model_ids(root: widgets.Widget) -> list[str]:
    ids: list[str] = []
    stack: list[widgets.Widget] = [root]
    while stack:
        widget = stack.pop()
        model_id = getattr(getattr(widget, "comm", None), "comm_id", None)
        if isinstance(model_id, str):
            ids.append(model_id)
        stack.extend(getattr(widget, "children", ()))
    return ids
