"""Sessions and turns: one prompt, its live view in the prompting cell, then its static record.

The live view is displayed by ``start()`` while the prompting cell is still executing, so
it lands in that cell; everything that arrives later (updates, cards) mutates that view
over the widget comm, which works from any task. When the turn ends the live view gives way
to the record (one view per turn; docs/notebooks.md, 'Saved widget state'): its display output is replaced through its
display id by the record (HTML rendered by the safe markdown renderer, beside plain text),
and its widgets are closed, so the saved notebook reads well without widgets. An awaited
``prompt()`` blanks the live view and displays the record as a plain output instead,
because nbval compares display_data and ignores update_display_data.

Session-level facts (title, mode, commands, config) are not turn content: each session shows
them once, in a compact header output that is updated in place (``SessionHeader``).
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp import RequestError, text_block

from nbacp import kernel
from nbacp.client import attachments, auth
from nbacp.client.attachments import Attachment
from nbacp.client.budget import prompt_problem
from nbacp.client.controls import SessionControls
from nbacp.client.namespace import name_of
from nbacp.client.process import exit_note, show_stderr
from nbacp.errors import AgentError, ConnectionLost
from nbacp.render.record import record_text
from nbacp.render.record_html import record_html

if TYPE_CHECKING:
    from nbacp.client.connection import Connection
    from nbacp.client.tools.server import KernelToolServer
    from nbacp.widgets.transcript import Transcript


@dataclass
class PromptResult:
    """What a turn produced. ``stop_reason`` is the agent's (end_turn, cancelled, ...)."""

    stop_reason: str
    text: str
    updates: Sequence[Any] = field(default_factory=list)  # a window on the session's log: no copy
    answers: list[tuple[str, str, str]] = field(default_factory=list)
    record: str = ""

    def __repr__(self) -> str:
        return f"PromptResult(stop_reason={self.stop_reason!r}, text={self.text!r})"


class Record:
    """The static turn record: HTML (or inert markdown) for renderers, plain text for text/plain (nbval)."""

    def __init__(self, markdown: str, text: str | None = None, html: str | None = None) -> None:
        self.markdown = markdown
        self.text = markdown if text is None else text
        self.html = html

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        if self.html is not None:
            return {"text/html": self.html, "text/plain": self.text}
        return {"text/markdown": self.markdown, "text/plain": self.text}

    def __repr__(self) -> str:
        return self.text


class _Blank:
    """What the live view of an awaited prompt becomes: nothing (the record follows it)."""

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": ""}


class SessionHeader:
    """The session's title, mode, commands and config, shown once and updated in place."""

    FACTS: tuple[str, ...] = ("Session", "Mode", "Config", "Commands")

    def __init__(self) -> None:
        self.facts: dict[str, str] = {}
        self._handle: Any = None
        self._shown = False

    def note(self, update: Any) -> bool:
        """Take ``update`` if it is a session-level fact (then the transcript shows no line for it)."""
        from acp import schema

        from nbacp.widgets.transcript import describe

        if isinstance(update, schema.AvailableCommandsUpdate):
            line = describe.commands(update)
        elif isinstance(update, schema.CurrentModeUpdate):
            line = describe.clip(f"Mode: {update.current_mode_id}")
        elif isinstance(update, schema.ConfigOptionUpdate):
            line = describe.config(update)
        elif isinstance(update, schema.SessionInfoUpdate):
            line = describe.clip(f"Session: {update.title}") if update.title else ""
            if not line:
                return True  # only a timestamp: nothing worth a line in any turn
        else:
            return False
        name, _, value = line.partition(": ")
        if self.facts.get(name) != value:
            self.facts[name] = value
            self.facts = {key: self.facts[key] for key in self.FACTS if key in self.facts}
            if self._handle is not None:
                self._handle.update(self)
        return True

    def show(self) -> None:
        """Display the header (once per session) where the first turn starts; facts fill it in place.

        Always shown at the first turn, even empty: whether an agent's first facts (commands
        sent right after session/new) arrive before or after the first prompt is a race, and
        a notebook's outputs must not depend on it (nbval; sanitize.cfg normalises the facts).
        """
        if not self._shown:
            self._shown = True
            self._handle = _display(self, display_id=True)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from nbacp.render.record_html import header_html

        return {"text/html": header_html(self.facts), "text/plain": repr(self)}

    def __repr__(self) -> str:
        from nbacp.render.record_html import header_text

        return f"[session] {header_text(self.facts)}".rstrip()


def _display(obj: Any, **kwargs: Any) -> Any:
    """Display only inside IPython; plain Python (tests, scripts) gets no stray reprs."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency of ipykernel
        return None
    if get_ipython() is None:
        return None
    from IPython.display import display

    return display(obj, **kwargs)  # type: ignore[no-untyped-call]


def refuse_to_wait_in_cell() -> None:
    """Raise at once, instead of hanging, where a cell that waits could never be answered."""
    refusal = kernel.cell_wait_refusal()
    if refusal is not None and kernel.in_cell_task():
        raise RuntimeError(refusal)


class Turn:
    """A running prompt. Await it (any number of times) for the PromptResult."""

    def __init__(
        self,
        session: Session,
        text: str,
        transcript: Transcript,
        *,
        placeholder: bool = True,
        attachments: list[Attachment] | None = None,
    ) -> None:
        self.session = session
        self.text = text
        self.transcript = transcript
        self.attachments = list(attachments or [])
        self.record: Record | None = None  # set when the turn ends
        # The live view, replaced by the record through its display id at turn end (start()). An
        # awaited prompt() blanks it and displays the record itself (nbval ignores updates).
        self._view_handle = _display(transcript, display_id=True)
        self._record_inline = not placeholder
        self._task = asyncio.ensure_future(self._run())
        # a turn nobody awaits (start() and then close()) must not log "Task exception was never retrieved"
        self._task.add_done_callback(_retrieve)

    @property
    def done(self) -> bool:
        return self._task.done()

    def __await__(self) -> Generator[Any, None, PromptResult]:
        # The wait must run in the awaiting cell's own task (its stop button handling raises
        # KeyboardInterrupt there), so this hands out a coroutine's iterator, not a new Task.
        return self._wait().__await__()

    async def _wait(self) -> PromptResult:
        if self._task.done():
            return self._task.result()
        refuse_to_wait_in_cell()
        return await kernel.wait_in_cell(asyncio.shield(self._task), on_interrupt=self.session.cancel)

    async def cancel(self) -> None:
        await self.session.cancel()

    async def _run(self) -> PromptResult:
        session = self.session
        client = session.connection.client
        client.attach(session.id, self.transcript)
        error: BaseException | None = None
        stop_reason, reason = "error", "the turn failed"
        session._turn_started()
        try:
            blocks = [a.block for a in self.attachments] or [text_block(self.text)]
            response = await auth.retrying(
                session.connection,
                lambda: session.connection.agent.prompt(session_id=session.id, prompt=blocks),
                surface=self.transcript,
            )
            stop_reason = str(response.stop_reason)
            reason = "the agent ended the turn"
        except RequestError as exc:
            error = AgentError(exc.code, str(exc), exc.data)
            reason = "the agent failed the turn"
        except AgentError as exc:  # the agent's refusal, or a failed authentication
            error = exc
            reason = "the agent failed the turn"
        except ConnectionError as exc:
            why = session.connection.disconnect_reason() or str(exc)
            error = ConnectionLost(f"The connection to the agent was lost during the turn ({why}).")
            stop_reason, reason = "disconnected", "the connection to the agent was lost"
        except asyncio.CancelledError:
            stop_reason, reason = "cancelled", "the connection was closed"
            error = ConnectionLost("The connection was closed during the turn.")
        except Exception as exc:  # e.g. a reply the SDK could not parse: end the turn cleanly, then raise it
            error = exc
        finally:
            if session.connection.guard is not None:  # a half emoji still held back becomes U+FFFD
                await session.connection.guard.end_turn(session.id)
            client.cancel_cards(reason, session.id)  # before detaching, so the record notes them
            client.detach(session.id, self.transcript)
            session._turn_ended()
        if error is not None:
            await show_stderr(session.connection, self.transcript)
            if isinstance(error, ConnectionLost):
                error = ConnectionLost(f"{error}{exit_note(session.connection)}")
        self.transcript.finish(stop_reason)
        result = PromptResult(
            stop_reason=stop_reason,
            text=self.transcript.text,
            updates=self.transcript.updates,
            answers=list(self.transcript.answers),
            record=self.transcript.record_markdown(),
        )
        t = self.transcript
        self.record = Record(
            result.record,
            record_text(t.prompt, t.text, t.answers, t.stop_reason),
            record_html(t.prompt, t.text, t.answers, t.stop_reason),
        )
        self._give_way()
        if error is not None:
            raise error
        return result

    def _give_way(self) -> None:
        """The live view makes room for the record and its widgets are closed (kernel and page)."""
        if self._view_handle is None:
            return  # not shown (plain Python): keep the widgets for whoever reads them
        self._view_handle.update(_Blank() if self._record_inline else self.record)
        self._view_handle = None
        from nbacp.widgets.shared import close_tree

        close_tree([self.transcript])


def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()


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

    def __init__(self, connection: Connection, session_id: str, cwd: str, response: Any = None) -> None:
        _mark_used(self)
        self.connection = connection
        self.id = session_id
        self.cwd = cwd
        self.response = response
        self.turn: Turn | None = None
        self.header = SessionHeader()
        self.settings = connection.settings_for(session_id)
        self.history: Transcript | None = None  # the replayed transcript of a loaded session
        self.tools: KernelToolServer | None = None  # the kernel's MCP server, when started with tools=

    @property
    def updates(self) -> list[Any]:
        """Every session/update received for this session, in order, inside turns or not."""
        return list(self.connection.client.updates.get(self.id, ()))

    def start(self, text: str, *objects: Any, max_rows: int = attachments.MAX_ROWS) -> Turn:
        """Send a prompt without waiting: the turn's view is shown in the current cell.

        ``objects`` (DataFrames, figures, file paths, more text) are attached as in ``prompt``.
        """
        return self._start(text, objects, max_rows, placeholder=True)

    def attach(self, text: str, *objects: Any, max_rows: int = attachments.MAX_ROWS) -> list[Attachment]:
        """The content blocks a prompt would send, checked against the agent's promptCapabilities.

        Raises ``AttachmentError`` naming the missing capability; nothing is sent either way.
        """
        return attachments.convert(
            [text, *objects], self.connection.agent_capabilities, namer=name_of, max_rows=max_rows
        )

    def _start(self, text: str, objects: Sequence[Any], max_rows: int, *, placeholder: bool) -> Turn:
        from nbacp.widgets.transcript import Transcript

        if self.turn is not None and not self.turn.done:
            raise RuntimeError("This session already has a turn running; await it or cancel it first.")
        parts = self.attach(text, *objects, max_rows=max_rows) if objects else []  # raises before sending
        limit = self.connection.client.max_answer_bytes
        if (problem := prompt_problem([p.block for p in parts] or [text_block(text)], limit)) is not None:
            raise ValueError(problem)  # a websocket would close over it (server limit): refuse before sending
        _mark_used(self)
        line = attachments.summary_line(parts)
        log = self.connection.client.session_log(self.id)
        for update in log:  # facts that arrived before this turn (e.g. commands right after session/new)
            self.header.note(update)
        self.header.show()
        transcript = Transcript(prompt=f"{text}\n\n{line}" if line else text, updates=log,
                                session_facts=self.header.note)
        self.turn = Turn(self, text, transcript, placeholder=placeholder, attachments=parts)
        return self.turn

    async def prompt(self, text: str, *objects: Any, max_rows: int = attachments.MAX_ROWS) -> PromptResult:
        """Prompt and wait for the turn; the stop button cancels the turn and its open questions.

        ``objects`` go with the text: a pandas/polars DataFrame as an embedded CSV resource (schema,
        row count, the first ``max_rows`` rows), a matplotlib figure or any ``_repr_png_`` object as
        an image, a path as a resource link (embedded when small and the agent accepts embedded
        context). Whatever the agent's promptCapabilities do not allow is refused before sending.
        """
        refuse_to_wait_in_cell()
        turn = self._start(text, objects, max_rows, placeholder=False)
        try:
            return await kernel.wait_in_cell(asyncio.shield(turn._task), on_interrupt=self.cancel)
        finally:
            if turn.record is not None:
                _display(turn.record)  # still in the prompting cell: a plain display_data
            else:  # interrupted before the turn ended: the record replaces the view later, as start() does
                turn._record_inline = False

    async def cancel(self) -> None:
        """Cancel the running turn: close its open cards, then tell the agent (session/cancel)."""
        self.connection.client.cancel_cards("cancelled from the notebook", self.id)
        if self.turn is not None and not self.turn.done:
            self.turn.transcript.cancel_tools()
        if not self.connection.closed:
            with contextlib.suppress(ConnectionError):
                await self.connection.agent.cancel(session_id=self.id)

    def __repr__(self) -> str:
        return f"Session(id={self.id!r}, cwd={self.cwd!r})"
