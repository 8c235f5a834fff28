"""The shared life cycle of every interactive card: shown, answered exactly once, then a record.

A card is an ipywidgets container that a person (or a headless policy acting through the
same methods) answers. The answer is delivered through ``await card``; after it the card is
disabled and shows a one-line summary of what was sent, so the cell output stays readable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from typing import Any, Generic, TypeVar

import ipywidgets as widgets

from nbacp import kernel

T = TypeVar("T")


class Card(widgets.VBox, Generic[T]):  # type: ignore[misc]  # ipywidgets is untyped
    """Base for ElicitationForm, UrlConsentCard and PermissionCard.

    Subclasses build their controls, call ``self._resolve(response, summary)`` from the
    action that answers, and implement ``_cancel_response()`` so that the client can close a
    card the agent no longer waits for (``cancel_pending``).
    """

    def __init__(self, **kwargs: Any) -> None:
        kernel.ensure_comm_status()  # or only the first edit of each control arrives while a cell awaits
        kernel.track_front_end_edits()  # so an answer is never sent before edits still on their way
        super().__init__(**kwargs)
        self.add_class("nbacp-card")
        self._response: T | None = None
        self._resolved = False
        self._waiters: list[asyncio.Future[T]] = []
        self._on_resolve: list[Callable[[T], None]] = []
        self.summary = widgets.Label(value="", layout=widgets.Layout(display="none"))
        self.summary.add_class("nbacp-summary")
        # The summary repeats agent text (chosen labels); keep MathJax from typesetting it.
        self.summary.add_class("mathjax_ignore")
        self.summary.add_class("tex2jax_ignore")
        # Set by the client: why a response cannot be sent (e.g. over the websocket's size limit), or None.
        self.response_check: Callable[[T], str | None] | None = None

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
        if self._resolved:
            return self._response  # type: ignore[return-value]
        refusal = kernel.cell_wait_refusal()
        if refusal is not None and kernel.in_cell_task():
            raise RuntimeError(refusal)
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        # In a cell: widget messages flow while it waits, and the stop button cancels the card
        # (the agent gets a cancel) and ends the cell; elsewhere a plain await.
        return await kernel.wait_in_cell(future, on_interrupt=self._stopped)

    def _stopped(self) -> None:
        self.cancel_pending("stopped from the notebook")

    def _resolve(self, response: T, summary: str, *, checked: bool = True) -> bool:
        """Deliver ``response`` once; later calls (double clicks, late cancels) are ignored.

        A response the client cannot send (``response_check``) is refused: the card stays open
        and says why, so the person can shorten the answer instead of losing the connection.
        """
        if self._resolved:
            return False
        problem = self.response_check(response) if checked and self.response_check is not None else None
        if problem is not None:  # shown where the summary will be, and the card stays answerable
            self.summary.value = f"Not sent: {problem}"
            self.summary.layout.display = None
            self.summary.add_class("nbacp-refusal")
            return False
        self.summary.remove_class("nbacp-refusal")
        self._resolved = True
        self._response = response
        self._disable()
        self.summary.value = summary
        self.summary.layout.display = None
        waiters, self._waiters = self._waiters, []
        for future in waiters:
            if not future.done():
                future.set_result(response)
        callbacks, self._on_resolve = self._on_resolve, []
        for callback in callbacks:
            callback(response)
        return True

    def __repr__(self) -> str:
        # Also the text/plain of the cell output: short and stable, so saved notebooks and
        # nbval's comparisons do not depend on the widget tree (ipywidgets' default repr does).
        state = self.summary.value if self._resolved else "waiting for an answer"
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
    def cancel_pending(self, reason: str) -> bool:
        """Close an open card as cancelled because the agent stopped waiting (turn ended, disconnect)."""
        return self._resolve(self._cancel_response(), f"Cancelled: {reason}", checked=False)

    def _cancel_response(self) -> T:
        raise NotImplementedError

    def _disable(self) -> None:
        """Disable every control inside the card; subclasses with custom widgets extend this."""
        stack: list[widgets.Widget] = list(self.children)
        while stack:
            child = stack.pop()
            if hasattr(child, "disabled"):
                child.disabled = True
            stack.extend(getattr(child, "children", ()))


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
