"""Sessions: one ACP session of a connection, where prompts are sent and turns are shown.

A session starts turns (``nbacp.client.turns.turn``), shows its header once (``SessionHeader``),
holds its settings (``nbacp.client.sessions.settings``, changed through ``SessionControls``) and, for
``%%agent`` without a name, is remembered as the session used last.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nbacp import kernel
from nbacp.client.connection_view import ConnectionView
from nbacp.client.sessions.controls import SessionControls
from nbacp.client.sessions.header import SessionHeader
from nbacp.client.turns import attachments
from nbacp.client.turns.attachments import Attachment
from nbacp.client.turns.namespace import name_of
from nbacp.client.turns.turn import PromptResult, Turn
from nbacp.client.wire.budget import prompt_problem
from nbacp.client.wire.sdk_compat import text_block
from nbacp.display import show
from nbacp.widgets.transcript import Transcript

STOP_GRACE = 30.0
"""Seconds a new prompt waits for a turn stopped from the notebook to end (the agent's reply to
its session/cancel); the wait ends as soon as the turn does."""

if TYPE_CHECKING:
    from nbacp.client.tools.server import KernelToolServer


_last_session: list[weakref.ref[Session]] = []


def last_session() -> Session | None:
    """The session created or prompted most recently (``%%agent`` without a name), if still alive."""
    session = _last_session[0]() if _last_session else None
    return session if session is not None and not session.connection.closed else None


def _mark_used(session: Session) -> None:
    _last_session[:] = [weakref.ref(session)]


class Session(SessionControls):
    """One ACP session of a connection. ``prompt`` renders into the cell that awaits it.

    Modes, config options, models and ``close()`` come from ``SessionControls``.
    """

    def __init__(self, connection: ConnectionView, session_id: str, cwd: str, response: Any = None) -> None:
        _mark_used(self)
        self.connection = connection
        self.id = session_id
        self.cwd = cwd
        self.response = response
        self.turn: Turn | None = None
        self._ended = []  # ended turns' views, the last 16 until the session is settled (SessionControls.keep_ended)
        self._stopped: Turn | None = None  # the turn session/cancel was sent for, until it ends
        self.header = SessionHeader()
        # facts between turns (docs/record.md)
        connection.client.session_updates.session_facts[session_id] = self.header.note
        self._facts_read = 0  # the session log's updates the header has been given at a turn's start
        self.settings = connection.settings_for(session_id)
        self.history: Transcript | None = None  # the replayed transcript of a loaded session
        self.tools: KernelToolServer | None = None  # the kernel's MCP server, when started with tools=
        # the client system prompt sent with the session's request (nbacp.client.sessions.system_prompt), or None
        self.system_prompt: dict[str, Any] | None = None

    @property
    def updates(self) -> list[Any]:
        """Every session/update received for this session, in order, inside turns or not."""
        return list(self.connection.client.session_updates.logs.get(self.id, ()))

    def start(self, text: str, *objects: Any, max_rows: int = attachments.MAX_ROWS) -> Turn:
        """Send a prompt without waiting: the turn's view is shown in the current cell.

        ``objects`` (DataFrames, figures, file paths, more text) are attached as in ``prompt``.
        """
        return self._start(text, objects, max_rows, placeholder=True)

    def attach(self, text: str, *objects: Any, max_rows: int = attachments.MAX_ROWS) -> list[Attachment]:
        """The content blocks a prompt would send, checked against the agent's promptCapabilities.

        Raises ``AttachmentError`` naming the missing capability; nothing is sent either way.
        """
        return attachments.prompt_parts(
            text, objects, self.connection.agent_capabilities, namer=name_of, max_rows=max_rows
        )

    def _start(self, text: str, objects: Sequence[Any], max_rows: int, *, placeholder: bool) -> Turn:
        if self.turn is not None and not self.turn.done:
            raise RuntimeError("This session already has a turn running; await it or cancel it first.")
        parts = self.attach(text, *objects, max_rows=max_rows) if objects else []  # raises before sending
        limit = self.connection.client.questions.max_answer_bytes
        if (problem := prompt_problem([p.block for p in parts] or [text_block(text)], limit)) is not None:
            raise ValueError(problem)  # a websocket would close over it (server limit): refuse before sending
        _mark_used(self)
        line = attachments.summary_line(parts)
        log = self.connection.client.session_updates.session_log(self.id)
        # facts that arrived before this turn (e.g. commands right after session/new), read from
        # where the last turn's start stopped: a day's session must not re-read its whole log
        for update in log.iter_range(self._facts_read, len(log)):
            self.header.note(update)
        self._facts_read = len(log)
        self.header.prompted(text, [uri for p in parts if (uri := _uri(p.block)) is not None])
        self.header.show()
        if self.tools is not None:  # here, in the prompt cell: the notebook link notes that cell
            self.tools.turn_started()
        transcript = Transcript(
            prompt=f"{text}\n\n{line}" if line else text,
            updates=log,
            session_facts=self.header.note,
            root=os.path.abspath(self.cwd),
        )
        self.turn = Turn(self, text, transcript, placeholder=placeholder, attachments=parts)
        return self.turn

    async def prompt(self, text: str, *objects: Any, max_rows: int = attachments.MAX_ROWS) -> PromptResult:
        """Prompt and wait for the turn; the stop button cancels the turn and its open questions.

        ``objects`` go with the text: a pandas/polars DataFrame as an embedded CSV resource (schema,
        row count, the first ``max_rows`` rows), a matplotlib figure or any ``_repr_png_`` object as
        an image, a path as a resource link (embedded when small and the agent accepts embedded
        context). Whatever the agent's promptCapabilities do not allow is refused before sending.
        """
        __tracebackhide__ = True  # hidden from IPython tracebacks (docs/kernels.md, 'The stop button')
        kernel.refuse_to_wait_in_cell()
        await self._let_the_stopped_turn_end()
        turn = self._start(text, objects, max_rows, placeholder=False)
        try:
            return await kernel.wait_in_cell(asyncio.shield(turn.task), on_interrupt=self.cancel)
        finally:
            if turn.record is not None:
                show(turn.record)  # still in the prompting cell: a plain display_data
            else:  # interrupted before the turn ended: the record replaces the view later, as start() does
                turn.record_inline = False

    async def _let_the_stopped_turn_end(self) -> None:
        """A turn stopped from the notebook ends once the agent answers its prompt with
        ``cancelled``, a moment after session/cancel: the next prompt waits for that (up to
        ``STOP_GRACE`` seconds, interruptible) instead of refusing to start (docs/kernels.md,
        'The stop button')."""
        stopped = self._stopped
        if stopped is None or stopped is not self.turn or stopped.done:
            return
        done, _ = await asyncio.wait([stopped.task], timeout=STOP_GRACE)  # how it ended is its own cell's business
        if not done:
            raise RuntimeError(
                f"The turn stopped from the notebook has not ended: the agent did not answer session/cancel "
                f"within {STOP_GRACE:.0f} s. Try again, or close the connection."
            )

    async def cancel(self) -> str:
        """Cancel the running turn: close its open cards, then tell the agent (session/cancel).

        Returns what was done, in a sentence (the stop button's KeyboardInterrupt says it).
        """
        if self.tools is not None:  # first: a proposal still on its way to a card gets none
            self.tools.turn_stopped()
        cards = self.connection.client.cancel_cards("cancelled from the notebook", self.id)
        if self.turn is not None and not self.turn.done:
            self.turn.transcript.cancel_tools()
            self._stopped = self.turn
        told = "the connection is closed, so the agent was not told"
        if not self.connection.closed:
            told = "the agent was told to stop the turn (session/cancel)"
            try:
                await self.connection.agent.cancel(session_id=self.id)
                # and every running subagent that advertised cancel (docs/protocol.md, 'Subagents, notices, compaction')
                children = self.connection.client.subagents.cancellable(self.id)
                for child in children:
                    await self.connection.agent.cancel(session_id=child)
                if children:
                    told += f", and {len(children)} running subagent{'s' if len(children) != 1 else ''}"
            except ConnectionError:
                told = "the agent could not be told (the connection was lost)"
        questions = f"{cards} open question{'s' if cards != 1 else ''} cancelled, " if cards else ""
        return f"Stopped from the notebook: {questions}{told}."

    def __repr__(self) -> str:
        return f"Session(id={self.id!r}, cwd={self.cwd!r})"


def _uri(block: Any) -> str | None:
    """The URI a prompt block names (a resource link, an embedded resource), if any."""
    uri = getattr(block, "uri", None) or getattr(getattr(block, "resource", None), "uri", None)
    return uri if isinstance(uri, str) else None
