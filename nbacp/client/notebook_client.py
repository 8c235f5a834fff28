"""NotebookClient: the ACP client half that lives in the kernel and answers through widgets.

Every request the agent makes of the person (an elicitation, a URL to open, a permission)
becomes a card in the output of the turn that is running for its session, is offered to the
headless policy if one was given, and is awaited. The client also closes cards the agent no
longer waits for: the SDK never cancels a pending handler itself (docs/protocol.md, 'SDK 0.12 pitfalls'), so turn end,
``session/cancel`` and disconnects go through ``cancel_cards``.

The ``fs/*`` and ``terminal/*`` requests are served by ``nbacp.client.files`` and
``nbacp.client.terminals`` (their rules are there); a method the client did not advertise is
answered "Method not found", as if it did not exist.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from acp import RequestError
from acp.schema import (
    AuthCapabilities,
    BooleanConfigOptionCapabilities,
    ClientCapabilities,
    ClientSessionCapabilities,
    CreateElicitationResponse,
    CreateTerminalResponse,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ElicitationFormRequestMode,
    ElicitationFormSessionMode,
    ElicitationUrlCapabilities,
    ElicitationUrlRequestMode,
    ElicitationUrlSessionMode,
    EnvVariable,
    FileSystemCapabilities,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    SessionConfigOptionsCapabilities,
    SessionInfoUpdate,
    TerminalExitStatus,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from nbacp import kernel, widgets
from nbacp.client import files, open_notebooks
from nbacp.client.terminals import Terminal, Terminals
from nbacp.client.wire import extensions, raw_tap
from nbacp.client.wire.budget import answer_problem
from nbacp.client.wire.guard import Guard, request_meta, request_schema
from nbacp.form import InvalidSchemaError
from nbacp.form.card_answer import CardAnswer
from nbacp.updates import UpdateLog
from nbacp.widgets.card import Card

log = logging.getLogger(__name__)

FileAccess = bool | Literal["write"]
"""``connect(fs=...)``: True (read and write), "write" (write only) or False (neither)."""
SHOWN_BYTES = 64 * 1024
"""How much of a client terminal's output is handed to the turn's view (which shows less)."""
DISPLAY_TERMINALS = {"terminal_output_delta": True}
"""The ``clientCapabilities._meta`` opt-in to claude-agent-acp's and codex-acp's display terminals
(docs/files-and-terminals.md, 'Display terminals')."""

AnswerPolicy = Callable[[Any], Any]
"""A headless policy: called with each card right after it is shown; it acts through the
card's own methods (pick/fill/accept, choose, open...) or leaves it for a person."""


class Surface(Protocol):
    """Where a card is shown: a turn's transcript, or the connection's inbox between turns."""

    def add_card(self, card: Any) -> None: ...

    def note_answers(self, answers: list[CardAnswer]) -> None: ...

    def add(self, update: Any) -> None: ...


class NotebookClient:
    """Implements ``acp.Client`` for one connection. Sessions register their surfaces here."""

    def __init__(
        self,
        *,
        answers: AnswerPolicy | None = None,
        agent_name: str | None = None,
        fs: FileAccess = True,
        terminal: bool = True,
    ) -> None:
        self.answers = answers
        self.fs_read = fs is True
        self.fs_write = fs in (True, "write")
        self.terminal = terminal
        self.roots: dict[str, tuple[Path, ...]] = {}  # per session: its cwd and additional directories, resolved
        self.terminals = Terminals(self._terminal_changed)
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
        # per session: its header's taker of session-level facts (title, mode, commands, config)
        self.session_facts: dict[str, Callable[[Any], bool]] = {}
        self.max_answer_bytes: int | None = None  # the transport's limit for one outgoing message
        self.guard: Guard | None = None  # installed on the SDK connection as soon as it exists
        self.auth_surface: Surface | None = None  # while ``authenticate`` runs: where its questions go

    def on_connect(self, conn: Any) -> None:
        """Called by the SDK's ClientSideConnection at the end of its constructor, before any
        message is read: the guard is in place for the agent's very first frame."""
        if self.guard is not None:
            self.guard.install(conn)

    # -- capabilities -------------------------------------------------------------------
    def capabilities(self) -> ClientCapabilities:
        """Only what is implemented: form and URL elicitation, boolean config options, the file
        system and terminals as chosen in ``connect(fs=..., terminal=...)``, and display terminals.

        No terminal sign-in (``auth.terminal`` stays false).
        """
        return ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=self.fs_read, write_text_file=self.fs_write),
            terminal=self.terminal,
            elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities(), url=ElicitationUrlCapabilities()),
            session=ClientSessionCapabilities(
                config_options=SessionConfigOptionsCapabilities(boolean=BooleanConfigOptionCapabilities())
            ),
            auth=AuthCapabilities(terminal=False),
            field_meta=dict(DISPLAY_TERMINALS),
        )

    def set_roots(self, session_id: str, cwd: str, additional: Sequence[str] = ()) -> None:
        """The folders ``session_id`` may read, write and run commands in (symlinks resolved)."""
        self.roots[session_id] = tuple(Path(os.path.realpath(p)) for p in (cwd, *additional))

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
                target.note_answers(card.recorded_answers(kind, question))

        card.on_resolve(finished)
        if self.max_answer_bytes is not None:
            card.response_check = self._answer_fits
        if surface is not None:
            surface.add_card(card)
        self._offer(card)
        try:
            return await card
        except asyncio.CancelledError:
            # Whoever waited went away (an mcp/disconnect, the session or the connection closing):
            # the card closes as cancelled at once, so no button is left that nothing would act on.
            card.cancel_pending("the request it answered was withdrawn")
            raise

    def cancel_request(self, request_id: Any) -> bool:
        """``$/cancel_request`` from the agent: close the card answering that request as cancelled."""
        card = self._by_request.get(request_id)
        if card is None:  # unknown, or answered already: nothing to do
            return False
        return card.withdraw()

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
            log.debug("answer policy failed", exc_info=True)  # the card says so; no traceback in the cell
            card.note_policy_failure(exc)
            return
        if inspect.isawaitable(outcome):
            task = asyncio.ensure_future(_guard_policy(card, outcome))
            self._policy_tasks.add(task)
            task.add_done_callback(self._policy_tasks.discard)

    # -- acp.Client ---------------------------------------------------------------------
    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> CreateElicitationResponse:
        session_id = getattr(mode, "session_id", None)
        # scoped to a request, not a session (codex's device-code sign-in during authenticate)
        where = self.auth_surface if session_id is None else None
        if isinstance(mode, ElicitationFormSessionMode | ElicitationFormRequestMode):
            try:
                # the raw schema keeps the ``_meta`` keys the SDK's model drops (codex's isSecret)
                schema = request_schema() or mode.requested_schema
                card: Card[Any] = widgets.FormCard(message, schema, agent=self.agent_name, meta=request_meta())
            except InvalidSchemaError as exc:
                raise RequestError.invalid_params({"details": str(exc)}) from None
            return await self.ask_card(session_id, card, "question", message, surface=where)  # type: ignore[no-any-return]
        if isinstance(mode, ElicitationUrlSessionMode | ElicitationUrlRequestMode):
            card = widgets.UrlConsentCard(message, str(mode.url), mode.elicitation_id, agent=self.agent_name)
            self._url_cards[mode.elicitation_id] = card
            return await self.ask_card(session_id, card, "url", message, surface=where)  # type: ignore[no-any-return]
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
        facts = self.session_facts.get(session_id) if session_id not in self._surfaces else None
        if facts is not None and facts(update):
            pass  # between turns a session's facts go to its header, not the inbox
        elif surface is not None:
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

    # -- fs/* and terminal/* (nbacp.client.files, nbacp.client.terminals) ------------------
    def _roots(self, session_id: str, method: str, allowed: bool) -> tuple[Path, ...]:
        if not allowed:
            raise RequestError.method_not_found(method)
        roots = self.roots.get(session_id)
        if roots is None:
            raise files.refusal(session_id, "unknown_session", f"Unknown session {session_id!r} for {method}.")
        return roots

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        roots = self._roots(session_id, "fs/read_text_file", self.fs_read)
        text = await asyncio.to_thread(files.read_text, path, roots, line, limit)
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> WriteTextFileResponse:
        roots = self._roots(session_id, "fs/write_text_file", self.fs_write)
        written = await asyncio.to_thread(_write, path, content, roots, kernel.kernel_id())
        surface = self.surface_for(session_id)
        if surface is not None:  # the turn shows the write as a diff block; its record lists it as an edit
            show_write = getattr(surface, "file_written", None)
            if show_write is not None:
                show_write(written.path, written.old_text, written.new_text, written.summary)
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        roots = self._roots(session_id, "terminal/create", self.terminal)
        terminal = await self.terminals.create(session_id, command, args, env, cwd, output_byte_limit, roots, roots[0])
        return CreateTerminalResponse(terminal_id=terminal.id)

    def _terminal(self, session_id: str, terminal_id: str, method: str) -> Terminal:
        self._roots(session_id, method, self.terminal)
        return self.terminals.get(session_id, terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> TerminalOutputResponse:
        terminal = self._terminal(session_id, terminal_id, "terminal/output")
        status = terminal.exit_status()
        return TerminalOutputResponse(
            output=terminal.output,
            truncated=terminal.truncated,
            exit_status=TerminalExitStatus(exit_code=status["exitCode"], signal=status["signal"]) if status else None,
        )

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        status = await self._terminal(session_id, terminal_id, "terminal/wait_for_exit").wait()
        return WaitForTerminalExitResponse(exit_code=status["exitCode"], signal=status["signal"])

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> KillTerminalResponse:
        await self._terminal(session_id, terminal_id, "terminal/kill").kill()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> ReleaseTerminalResponse:
        self._terminal(session_id, terminal_id, "terminal/release")
        await self.terminals.release(session_id, terminal_id)
        return ReleaseTerminalResponse()

    def _terminal_changed(self, session_id: str, terminal_id: str, terminal: Terminal) -> None:
        """New output or an exit: the turn's tool call that embeds the terminal shows it (frames bound the cost)."""
        surface = self.surface_for(session_id)
        show_output = getattr(surface, "terminal_output", None)
        if show_output is not None:  # only the tail the turn shows: a flood costs O(chunk) here, not O(output)
            text, omitted = terminal.tail(SHOWN_BYTES)
            show_output(terminal_id, text, exit_status=terminal.exit_status(), omitted=omitted)

    async def aclose(self) -> None:
        await self.terminals.close()
        for task in list(self._policy_tasks):
            task.cancel()
        if self._policy_tasks:
            await asyncio.gather(*self._policy_tasks, return_exceptions=True)


def _write(path: str, content: str, roots: Sequence[Path], kernel_id: str | None) -> files.Written:
    """In a worker thread: which notebooks are open (a local HTTP call), then the write."""
    return files.write_text(path, content, roots, open_notebooks.protected_notebooks(kernel_id))


async def _guard_policy(card: Card[Any], outcome: Awaitable[Any]) -> None:
    try:
        await outcome
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.debug("answer policy failed", exc_info=True)
        card.note_policy_failure(exc)
