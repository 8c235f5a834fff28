"""Questions and permissions: ``elicitation/create``, ``elicitation/complete``,
``session/request_permission`` and ``$/cancel_request``.

Every request the agent makes of the person becomes a card on the surface of the turn running
for its session (or the connection's inbox), is offered to the headless policy if one was
given, and is awaited. The SDK never cancels a pending handler itself (docs/protocol.md, 'SDK
0.12 pitfalls'), so turn end, ``session/cancel`` and disconnects close open cards through
``cancel_cards``. A URL card is kept for its ``elicitation/complete`` only until it settles.
A subagent's request (its own session id) is a card in that child's block of its parent's turn,
headed with the child's name ("Explore asks"), and closes with the parent's turn.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from acp import RequestError
from acp.schema import (
    ElicitationFormRequestMode,
    ElicitationFormSessionMode,
    ElicitationUrlRequestMode,
    ElicitationUrlSessionMode,
    PermissionOption,
    ToolCallUpdate,
)

from nbacp import kernel, widgets
from nbacp.client.questions import notebook_writes
from nbacp.client.subagents import Subagents
from nbacp.client.surface import Surface, Surfaces
from nbacp.client.wire import raw_tap, sdk_compat
from nbacp.client.wire.guard import request_meta, request_schema
from nbacp.client.wire.replies import Reply
from nbacp.client.workspace import open_notebooks
from nbacp.errors import InvalidSchemaError
from nbacp.form.cache import FormCache
from nbacp.widgets.card import Card

log = logging.getLogger(__name__)

AnswerPolicy = Callable[[Any], Any]
"""A headless policy: called with each card right after it is shown; it acts through the
card's own methods (pick/fill/accept, choose, open...) or leaves it for a person."""


class Questions:
    """The open cards of one connection, by session and by the request each answers."""

    def __init__(
        self,
        surfaces: Surfaces,
        answers: AnswerPolicy | None,
        agent_name: str | None,
        subagents: Subagents | None = None,
    ) -> None:
        self.surfaces = surfaces
        self.subagents = subagents or Subagents()
        self.answers = answers
        self.agent_name = agent_name
        self.max_answer_bytes: int | None = None  # the transport's limit for one outgoing message
        self._open: dict[str, set[Card[Any]]] = {}
        self._by_request: dict[Any, Card[Any]] = {}
        self.url_cards: dict[str, Card[Any]] = {}  # by elicitation id, until the card settles
        self._policy_tasks: set[asyncio.Task[Any]] = set()
        self.notebook_tool_sessions: set[str] = set()  # sessions started with the notebook tools
        self.forms = FormCache()  # a schema asked again is not parsed again

    # -- the methods ------------------------------------------------------------------
    async def create_elicitation(self, message: str, mode: Any) -> dict[str, Any]:
        in_session = isinstance(mode, ElicitationFormSessionMode | ElicitationUrlSessionMode)
        session_id = mode.session_id if in_session else None
        # scoped to a request, not a session (codex's device-code sign-in during authenticate)
        where = self.surfaces.auth if session_id is None else None
        if isinstance(mode, ElicitationFormSessionMode | ElicitationFormRequestMode):
            try:
                # the raw schema keeps the ``_meta`` keys the SDK's model drops (codex's isSecret)
                form = self.forms.form(request_schema() or mode.requested_schema, request_meta())
            except InvalidSchemaError as exc:
                raise RequestError.invalid_params({"details": str(exc)}) from None
            card: Card[Any] = widgets.FormCard(message, form, agent=self._who(session_id), opened=False)
            return await self._reply(session_id, card, "question", message, surface=where)
        if isinstance(mode, ElicitationUrlSessionMode | ElicitationUrlRequestMode):
            elicitation_id = mode.elicitation_id
            card = widgets.UrlConsentCard(message, str(mode.url), elicitation_id, agent=self._who(session_id))
            self.url_cards[elicitation_id] = card
            card.on_settle(lambda _: self._forget_url(elicitation_id))
            return await self._reply(session_id, card, "url", message, surface=where)
        raise RequestError.invalid_params({"details": f"Unsupported elicitation mode: {type(mode).__name__}"})

    def _who(self, session_id: str | None) -> str | None:
        """Who asks: a subagent's title for its own requests, else the agent's name."""
        return self.subagents.name(session_id) or self.agent_name

    def _forget_url(self, elicitation_id: str) -> None:
        self.url_cards.pop(elicitation_id, None)

    def complete_elicitation(self, elicitation_id: str) -> None:
        card = self.url_cards.get(elicitation_id)
        if isinstance(card, widgets.UrlConsentCard):  # unknown or repeated ids are ignored, as the spec requires
            card.complete()

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> dict[str, Any]:
        tool_call = sdk_compat.with_tool_name(tool_call, raw_tap.current_tool_name())
        card = widgets.PermissionCard(
            tool_call,
            options,
            agent=self._who(session_id),
            warning=await self._notebook_warning(session_id, tool_call),
            opened=False,
        )
        title = tool_call.title or sdk_compat.tool_name(tool_call) or tool_call.tool_call_id
        return await self._reply(session_id, card, "permission", title)

    async def _notebook_warning(self, session_id: str, tool_call: ToolCallUpdate) -> str:
        """A write to a notebook open in Jupyter, which the agent does itself: said on the card."""
        # rawInput as it is: only its top-level path arguments are read, nothing of it is serialised
        wire = tool_call.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"raw_input", "raw_output"})
        wire["rawInput"] = tool_call.raw_input
        if not notebook_writes.targets(wire):  # no .ipynb named: no need to ask the server
            return ""
        protected = await asyncio.to_thread(open_notebooks.protected_notebooks, kernel.kernel_id())
        paths = notebook_writes.open_notebook_writes(wire, protected)
        return notebook_writes.warning(paths, notebook_tools=session_id in self.notebook_tool_sessions)

    def cancel_request(self, request_id: Any) -> bool:
        """``$/cancel_request`` from the agent: close the card answering that request as cancelled."""
        card = self._by_request.get(request_id)
        if card is None:  # unknown, or answered already: nothing to do
            return False
        return card.withdraw()

    # -- cards ------------------------------------------------------------------------
    def open_cards(self, session_id: str | None = None) -> list[Card[Any]]:
        if session_id is None:
            return [card for cards in self._open.values() for card in cards]
        return list(self._open.get(session_id, ()))

    def cancel_cards(self, reason: str, session_id: str | None = None) -> int:
        """Resolve every open card (of one session, or all) as cancelled; returns how many."""
        cards = self.open_cards(session_id)
        for card in cards:
            card.cancel_pending(reason)
        return len(cards)

    async def _reply(
        self, session_id: str | None, card: Card[Any], kind: str, question: str, *, surface: Surface | None = None
    ) -> dict[str, Any]:
        """``ask_card`` for a request of the agent: the answer as it goes on the wire, serialised once."""
        reply = Reply(self.max_answer_bytes)
        response = await self.ask_card(session_id, card, kind, question, surface=surface, reply=reply)
        return reply.wire(response)

    async def ask_card(
        self,
        session_id: str | None,
        card: Card[Any],
        kind: str,
        question: str,
        *,
        surface: Surface | None = None,
        reply: Reply | None = None,
    ) -> Any:
        """Show ``card`` (in ``surface``, else the session's turn or the inbox), offer it to the
        policy, await it. An answer too large for one message of the transport is refused on the card."""
        parent = self.subagents.parent_of(session_id)
        child, session_id = (session_id, parent) if parent is not None else (None, session_id)
        key = session_id or ""  # a child's card closes with its parent's turn
        self._open.setdefault(key, set()).add(card)
        request_id = raw_tap.current_request_id()
        if request_id is not None:
            self._by_request[request_id] = card
        explicit = surface
        if surface is None:
            surface = self.surfaces.for_session(session_id)

        def finished(_: Any) -> None:
            self._open.get(key, set()).discard(card)
            if request_id is not None:
                self._by_request.pop(request_id, None)
            target = explicit or self.surfaces.for_session(session_id) or surface
            if target is not None:
                target.note_answers(card.recorded_answers(kind, question))

        card.on_resolve(finished)
        if reply is not None or self.max_answer_bytes is not None:
            card.response_check = (reply or Reply(self.max_answer_bytes)).check
        # The policy first, then the page model (a card made with opened=False): a card answered
        # at once never needs its own (a turn shows its summary line as a node of its view;
        # anything that displays it opens it); any other card shows now.
        self._offer(card)
        if not card.settled:
            card.open_model()
        if surface is not None and child is not None and explicit is None:
            surface.add_child_card(child, card)
        elif surface is not None:
            surface.add_card(card)
        try:
            response = await card
        except asyncio.CancelledError:
            # Whoever waited went away (an mcp/disconnect, the session or the connection closing):
            # the card closes as cancelled at once, so no button is left that nothing would act on.
            card.cancel_pending("the request it answered was withdrawn")
            raise
        return response

    def _offer(self, card: Card[Any]) -> None:
        """Hand the card to the policy; a failing policy leaves the card to a person."""
        if self.answers is None:
            return
        try:
            # One state update for the policy's edits and the answer (a click's message is
            # handled the same way): the page needs only where they end, not each step.
            with card.hold_sync():
                outcome = self.answers(card)
        except Exception as exc:  # the policy is user code: report, never lose the card
            log.debug("answer policy failed", exc_info=True)  # the card says so; no traceback in the cell
            card.note_policy_failure(exc)
            return
        if inspect.isawaitable(outcome):
            task = asyncio.ensure_future(_guard_policy(card, outcome))
            self._policy_tasks.add(task)
            task.add_done_callback(self._policy_tasks.discard)

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
        log.debug("answer policy failed", exc_info=True)
        card.note_policy_failure(exc)
