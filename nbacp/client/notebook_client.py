"""NotebookClient: the ACP client half that lives in the kernel and answers through widgets.

Every request the agent makes of the person (an elicitation, a URL to open, a permission)
becomes a card in the output of the turn that is running for its session, is offered to the
headless policy if one was given, and is awaited. The client also closes cards the agent no
longer waits for: the SDK never cancels a pending handler itself (docs/protocol.md, 'SDK 0.12 pitfalls'), so turn end,
``session/cancel`` and disconnects go through ``cancel_cards``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from acp import RequestError
from acp.schema import (
    AuthCapabilities,
    BooleanConfigOptionCapabilities,
    ClientCapabilities,
    ClientSessionCapabilities,
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
    SessionConfigOptionsCapabilities,
    SessionInfoUpdate,
    ToolCallUpdate,
)

from nbacp import widgets
from nbacp.client.wire import extensions, raw_tap
from nbacp.client.wire.budget import answer_problem
from nbacp.client.wire.guard import Guard
from nbacp.form import InvalidSchemaError
from nbacp.updates import UpdateLog
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
        self.updates: dict[str, UpdateLog] = {}  # per session, each update held once (nbacp.updates)
        self._by_request: dict[Any, Card[Any]] = {}
        self.extension_notes: list[str] = []
        self.on_update: Callable[[str, Any], None] | None = None  # the connection keeps session settings current
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
        """Only what is implemented: form and URL elicitation, boolean config options.

        No fs, no terminal, and no terminal sign-in (``auth.terminal`` stays false).
        """
        return ClientCapabilities(
            elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities(), url=ElicitationUrlCapabilities()),
            session=ClientSessionCapabilities(
                config_options=SessionConfigOptionsCapabilities(boolean=BooleanConfigOptionCapabilities())
            ),
            auth=AuthCapabilities(terminal=False),
        )

    # -- routing ------------------------------------------------------------------------
    def attach(self, session_id: str, surface: Surface) -> None:
        self._surfaces[session_id] = surface

    def detach(self, session_id: str, surface: Surface) -> None:
        if self._surfaces.get(session_id) is surface:
            del self._surfaces[session_id]

    def surface_for(self, session_id: str | None) -> Surface | None:
        """Where a card or note of ``session_id`` goes: its running turn, else the inbox (or None)."""
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

    async def ask_card(
        self, session_id: str | None, card: Card[Any], kind: str, question: str, *, surface: Surface | None = None
    ) -> Any:
        """Show ``card`` (in ``surface``, else the session's turn or the inbox), offer it to the policy, await it."""
        key = session_id or ""
        self._open_cards.setdefault(key, set()).add(card)
        request_id = raw_tap.current_request_id()
        if request_id is not None:
            self._by_request[request_id] = card
        explicit = surface
        if surface is None:
            surface = self.surface_for(session_id)

        def finished(_: Any) -> None:
            self._open_cards.get(key, set()).discard(card)
            if request_id is not None:
                self._by_request.pop(request_id, None)
            target = explicit or self.surface_for(session_id) or surface
            if target is not None:
                target.note_answer(kind, question, card.summary)

        card.on_resolve(finished)
        if self.max_answer_bytes is not None:
            card.response_check = self._answer_fits
        if surface is not None:
            surface.add_card(card)
        self._offer(card)
        return await card

    def cancel_request(self, request_id: Any) -> bool:
        """``$/cancel_request`` from the agent: close the card answering that request as cancelled."""
        card = self._by_request.get(request_id)
        if card is None:  # unknown, or answered already: nothing to do
            return False
        return card.cancel_pending("the agent withdrew the request")

    def _answer_fits(self, response: Any) -> str | None:
        """Why ``response`` cannot be sent in one message of the transport, or None."""
        return answer_problem(response, self.max_answer_bytes)

    def _offer(self, card: Card[Any]) -> None:
        """Hand the card to the policy; a failing policy leaves the card to a person."""
        if self.answers is None:
            return
        try:
            outcome = self.answers(card)
        except Exception as exc:  # the policy is user code: report, never lose the card
            log.exception("answer policy failed")
            card.note_policy_failure(exc)
            return
        if inspect.isawaitable(outcome):
            task = asyncio.ensure_future(_guard_policy(card, outcome))
            self._policy_tasks.add(task)
            task.add_done_callback(self._policy_tasks.discard)

    # -- acp.Client ---------------------------------------------------------------------
    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> CreateElicitationResponse:
        session_id = getattr(mode, "session_id", None)
        if isinstance(mode, ElicitationFormSessionMode | ElicitationFormRequestMode):
            try:
                card: Card[Any] = widgets.FormCard(message, mode.requested_schema, agent=self.agent_name)
            except InvalidSchemaError as exc:
                raise RequestError.invalid_params({"details": str(exc)}) from None
            return await self.ask_card(session_id, card, "question", message)  # type: ignore[no-any-return]
        if isinstance(mode, ElicitationUrlSessionMode | ElicitationUrlRequestMode):
            card = widgets.UrlConsentCard(message, str(mode.url), mode.elicitation_id, agent=self.agent_name)
            self._url_cards[mode.elicitation_id] = card
            return await self.ask_card(session_id, card, "url", message)  # type: ignore[no-any-return]
        raise RequestError.invalid_params({"details": f"Unsupported elicitation mode: {type(mode).__name__}"})

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        card = self._url_cards.get(elicitation_id)
        if card is not None:  # unknown or repeated ids are ignored, as the spec requires
            card.complete()

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        card = widgets.PermissionCard(tool_call, options, agent=self.agent_name)
        title = tool_call.title or tool_call.tool_call_id
        return await self.ask_card(session_id, card, "permission", title)  # type: ignore[no-any-return]

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.session_log(session_id).append(update)
        if self.on_update is not None:
            self.on_update(session_id, update)
        surface = self.surface_for(session_id)
        if surface is not None:
            surface.add(update)
        if isinstance(update, SessionInfoUpdate):  # codex keeps retry / error status only in _meta
            status = extensions.meta_status(update.field_meta) or extensions.meta_status(kwargs)
            note = getattr(surface, "note_line", None)
            if status and note is not None:
                note("agent-status", f"Agent status: {status}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        """An extension notification (``_auth/status_update``, ...): one line where the person looks."""
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if isinstance(session_id, str) or len(self._surfaces) != 1:
            surface = self.surface_for(session_id if isinstance(session_id, str) else None)
        else:  # no session named and one turn running: that turn is where the person looks
            surface = next(iter(self._surfaces.values()))
        line = extensions.notification_line(method, params)
        self.extension_notes.append(line)
        note = getattr(surface, "note_line", None)
        if note is not None:
            note(f"ext:{method}", line)

    def session_log(self, session_id: str) -> UpdateLog:
        """The update log of one session (made on first use)."""
        log = self.updates.get(session_id)
        if log is None:
            log = self.updates[session_id] = UpdateLog()
        return log

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
        card.note_policy_failure(exc)
