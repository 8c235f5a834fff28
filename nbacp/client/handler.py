"""NotebookClient: the ACP client half that lives in the kernel and answers through widgets.

Every request the agent makes of the person (an elicitation, a URL to open, a permission)
becomes a card in the output of the turn that is running for its session, is offered to the
headless policy if one was given, and is awaited. The client also closes cards the agent no
longer waits for: the SDK never cancels a pending handler itself (field notes), so turn end,
``session/cancel`` and disconnects go through ``cancel_cards``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from acp import RequestError
from acp.schema import (
    ClientCapabilities,
    CreateElicitationResponse,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ElicitationFormRequestMode,
    ElicitationFormSessionMode,
    ElicitationUrlCapabilities,
    ElicitationUrlRequestMode,
    ElicitationUrlSessionMode,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from nbacp.form import InvalidSchemaError

if TYPE_CHECKING:
    from nbacp.client.guard import Guard
    from nbacp.widgets.card import Card

log = logging.getLogger(__name__)

AnswerPolicy = Callable[[Any], Any]
"""A headless policy: called with each card right after it is shown; it acts through the
card's own methods (pick/fill/accept, choose, open...) or leaves it for a person."""


class Surface(Protocol):
    """Where a card is shown: a turn's transcript, or the connection's inbox between turns."""

    def add_card(self, card: Any) -> None: ...

    def note_answer(self, kind: str, question: str, answer: str) -> None: ...

    def add(self, update: Any) -> None: ...


class NotebookClient:
    """Implements ``acp.Client`` for one connection. Sessions register their surfaces here."""

    def __init__(self, *, answers: AnswerPolicy | None = None, agent_name: str | None = None) -> None:
        self.answers = answers
        self.agent_name = agent_name
        self.inbox: Surface | None = None
        self._surfaces: dict[str, Surface] = {}
        self._open_cards: dict[str, set[Card[Any]]] = {}
        self._url_cards: dict[str, Any] = {}
        self._policy_tasks: set[asyncio.Task[Any]] = set()
        self.updates: dict[str, list[Any]] = {}
        self.max_answer_bytes: int | None = None  # the transport's limit for one outgoing message
        self.guard: Guard | None = None  # installed on the SDK connection as soon as it exists

    def on_connect(self, conn: Any) -> None:
        """Called by the SDK's ClientSideConnection at the end of its constructor, before any
        message is read: the guard is in place for the agent's very first frame."""
        if self.guard is not None:
            self.guard.install(conn)

    # -- capabilities -------------------------------------------------------------------
    @staticmethod
    def capabilities() -> ClientCapabilities:
        """Only what is implemented: form and URL elicitation. No fs, no terminal."""
        return ClientCapabilities(
            elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities(), url=ElicitationUrlCapabilities()),
        )

    # -- routing ------------------------------------------------------------------------
    def attach(self, session_id: str, surface: Surface) -> None:
        self._surfaces[session_id] = surface

    def detach(self, session_id: str, surface: Surface) -> None:
        if self._surfaces.get(session_id) is surface:
            del self._surfaces[session_id]

    def _surface(self, session_id: str | None) -> Surface | None:
        if session_id is not None and session_id in self._surfaces:
            return self._surfaces[session_id]
        return self.inbox

    def show_note(self, line: str) -> None:
        """A line of the connection's log, shown in every running turn (or the inbox between turns)."""
        targets = list(self._surfaces.values()) or ([self.inbox] if self.inbox is not None else [])
        for surface in targets:
            note = getattr(surface, "note", None)
            if note is not None:
                note(line)

    def open_cards(self, session_id: str | None = None) -> list[Card[Any]]:
        if session_id is None:
            return [card for cards in self._open_cards.values() for card in cards]
        return list(self._open_cards.get(session_id, ()))

    def cancel_cards(self, reason: str, session_id: str | None = None) -> int:
        """Resolve every open card (of one session, or all) as cancelled; returns how many."""
        cards = self.open_cards(session_id)
        for card in cards:
            card.cancel_pending(reason)
        return len(cards)

    async def _ask(self, session_id: str | None, card: Card[Any], kind: str, question: str) -> Any:
        key = session_id or ""
        self._open_cards.setdefault(key, set()).add(card)
        surface = self._surface(session_id)

        def finished(_: Any) -> None:
            self._open_cards.get(key, set()).discard(card)
            target = self._surface(session_id) or surface
            if target is not None:
                target.note_answer(kind, question, card.summary.value)

        card.on_resolve(finished)
        if self.max_answer_bytes is not None:
            card.response_check = self._answer_fits
        if surface is not None:
            surface.add_card(card)
        self._offer(card)
        return await card

    def _answer_fits(self, response: Any) -> str | None:
        """Why ``response`` cannot be sent in one message of the transport, or None."""
        from nbacp.client.budget import answer_problem

        return answer_problem(response, self.max_answer_bytes)

    def _offer(self, card: Card[Any]) -> None:
        """Hand the card to the policy; a failing policy leaves the card to a person."""
        if self.answers is None:
            return
        try:
            outcome = self.answers(card)
        except Exception as exc:  # the policy is user code: report, never lose the card
            log.exception("answer policy failed")
            _note_policy_error(card, exc)
            return
        if inspect.isawaitable(outcome):
            task = asyncio.ensure_future(_guard_policy(card, outcome))
            self._policy_tasks.add(task)
            task.add_done_callback(self._policy_tasks.discard)

    # -- acp.Client ---------------------------------------------------------------------
    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> CreateElicitationResponse:
        from nbacp.widgets import ElicitationForm, UrlConsentCard

        session_id = getattr(mode, "session_id", None)
        if isinstance(mode, ElicitationFormSessionMode | ElicitationFormRequestMode):
            try:
                card: Card[Any] = ElicitationForm(message, mode.requested_schema, agent=self.agent_name)
            except InvalidSchemaError as exc:
                raise RequestError.invalid_params({"details": str(exc)}) from None
            return await self._ask(session_id, card, "question", message)  # type: ignore[no-any-return]
        if isinstance(mode, ElicitationUrlSessionMode | ElicitationUrlRequestMode):
            card = UrlConsentCard(message, str(mode.url), mode.elicitation_id, agent=self.agent_name)
            self._url_cards[mode.elicitation_id] = card
            return await self._ask(session_id, card, "url", message)  # type: ignore[no-any-return]
        raise RequestError.invalid_params({"details": f"Unsupported elicitation mode: {type(mode).__name__}"})

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        card = self._url_cards.get(elicitation_id)
        if card is not None:  # unknown or repeated ids are ignored, as the spec requires
            card.complete()

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        from nbacp.widgets import PermissionCard

        card = PermissionCard(tool_call, options, agent=self.agent_name)
        title = tool_call.title or tool_call.tool_call_id
        return await self._ask(session_id, card, "permission", title)  # type: ignore[no-any-return]

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.setdefault(session_id, []).append(update)
        surface = self._surface(session_id)
        if surface is not None:
            surface.add(update)

    async def aclose(self) -> None:
        for task in list(self._policy_tasks):
            task.cancel()
        if self._policy_tasks:
            await asyncio.gather(*self._policy_tasks, return_exceptions=True)


async def _guard_policy(card: Card[Any], outcome: Awaitable[Any]) -> None:
    try:
        await outcome
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.exception("answer policy failed")
        _note_policy_error(card, exc)


def _note_policy_error(card: Card[Any], exc: Exception) -> None:
    import ipywidgets as widgets

    note = widgets.Label(value=f"The answer policy failed ({type(exc).__name__}: {exc}); answer by hand.")
    note.add_class("nbacp-policy-error")
    card.children = (*card.children, note)
