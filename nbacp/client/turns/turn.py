"""A turn: one prompt, its live view in the prompting cell, then its static record.

The live view is displayed by ``Turn`` while the prompting cell is still executing, so it
lands in that cell; everything that arrives later (updates, cards) mutates that view over the
widget comm, which works from any task. When the turn ends the live view gives way to the
record (one view per turn; docs/notebooks.md, 'Saved widget state'): its display output is
replaced through its display id by the ``TurnRecord`` (HTML rendered by the safe markdown
renderer, beside plain text), and its widgets are closed, so the saved notebook reads well
without widgets. An awaited ``prompt()`` blanks the live view and displays the record as a
plain output instead, because nbval compares display_data and ignores update_display_data.

"Record" means one thing throughout: the static, widget-free account of a turn. It is
``PromptResult.record`` (its inert markdown), ``Turn.record`` (the ``TurnRecord`` displayed)
and what ``nbacp.render.turn_record_text`` / ``turn_record_html`` build.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from nbacp import kernel
from nbacp.client import auth
from nbacp.client.connection_view import ConnectionView
from nbacp.client.turns.attachments import Attachment
from nbacp.client.wire.rpc_errors import agent_errors
from nbacp.client.wire.sdk_compat import text_block
from nbacp.client.wire.transports.process import exit_note, stderr_after_failure
from nbacp.display import Static, show
from nbacp.errors import AgentError, ConnectionLostError
from nbacp.form.card_answer import CardAnswer
from nbacp.kernel.turn_pages import PAGES
from nbacp.widgets.shared import close_tree
from nbacp.widgets.stderr_view import stderr_panel
from nbacp.widgets.transcript import Transcript


@dataclass
class PromptResult:
    """What a turn produced. ``stop_reason`` is the agent's (end_turn, cancelled, ...)."""

    stop_reason: str
    text: str
    updates: Sequence[Any] = field(default_factory=list)  # a window on the session's log: no copy
    answers: list[CardAnswer] = field(default_factory=list)  # typed; each still unpacks as (kind, question, line)
    record: str = ""

    def __repr__(self) -> str:
        return f"PromptResult(stop_reason={self.stop_reason!r}, text={self.text!r})"


class TurnRecord:
    """The static turn record: HTML (or inert markdown) for renderers, plain text for text/plain (nbval)."""

    def __init__(self, markdown: str, text: str | None = None, html: str | Callable[[], str] | None = None) -> None:
        """``html``: the HTML, or what builds it when it is shown. A turn's record is built from what
        its transcript keeps anyway, so the largest of its three forms need not be held beside them
        all day (docs/limits.md)."""
        self.markdown = markdown
        self.text = markdown if text is None else text
        self._html = html

    @property
    def html(self) -> str | None:
        """The record as HTML (built now, when it is built on demand), or None: markdown only."""
        return self._html() if callable(self._html) else self._html

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        html = self.html
        if html is not None:
            return {"text/html": html, "text/plain": self.text}
        return {"text/markdown": self.markdown, "text/plain": self.text}

    def __repr__(self) -> str:
        return self.text


class TurnOwner(Protocol):
    """What a turn uses of its session (``nbacp.client.sessions.session.Session`` satisfies it)."""

    connection: ConnectionView
    id: str

    async def cancel(self) -> str: ...

    def turn_started(self) -> None: ...

    def turn_ended(self) -> None: ...

    def keep_ended(self, view: Transcript) -> None: ...


class Turn:
    """A running prompt. Await it (any number of times) for the PromptResult."""

    def __init__(
        self,
        session: TurnOwner,
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
        self.record: TurnRecord | None = None  # set when the turn ends
        # The live view, replaced by the record through its display id at turn end (start()). An
        # awaited prompt() blanks it and displays the record itself (nbval ignores updates).
        self._view_handle = show(transcript, display_id=True)
        if self._view_handle is not None:  # a page reloaded without saving can ask for it (docs/reload.md)
            PAGES.started(transcript.model_id, repr(transcript))
        self.record_inline = not placeholder  # an awaited prompt() displays the record itself
        self._task = asyncio.ensure_future(self._run())
        # a turn nobody awaits (start() and then close()) must not log "Task exception was never retrieved"
        self._task.add_done_callback(_retrieve)

    @property
    def task(self) -> asyncio.Task[PromptResult]:
        """The task running the turn (the connection cancels it on close; ``prompt()`` waits on it)."""
        return self._task

    @property
    def done(self) -> bool:
        return self._task.done()

    def __await__(self) -> Generator[Any, None, PromptResult]:
        # The wait must run in the awaiting cell's own task (its stop button handling raises
        # KeyboardInterrupt there), so this hands out a coroutine's iterator, not a new Task.
        return self._wait().__await__()

    async def _wait(self) -> PromptResult:
        __tracebackhide__ = True  # hidden from IPython tracebacks (docs/kernels.md, 'The stop button')
        if self._task.done():
            return self._task.result()
        kernel.refuse_to_wait_in_cell()
        return await kernel.wait_in_cell(asyncio.shield(self._task), on_interrupt=self.session.cancel)

    async def cancel(self) -> None:
        await self.session.cancel()

    async def _run(self) -> PromptResult:
        session = self.session
        connection = session.connection
        client = connection.client
        client.surfaces.attach(session.id, self.transcript)
        error: BaseException | None = None
        stop_reason, reason = "error", "the turn failed"
        session.turn_started()
        try:
            blocks = [a.block for a in self.attachments] or [text_block(self.text)]
            with agent_errors():
                response = await auth.retrying(
                    connection,
                    lambda: connection.agent.prompt(session_id=session.id, prompt=blocks),
                    surface=self.transcript,
                )
            stop_reason = str(response.stop_reason)
            reason = "the agent ended the turn"
        except AgentError as exc:  # the agent's refusal, or a failed authentication
            error = exc
            reason = "the agent failed the turn"
        except ConnectionError as exc:
            why = connection.disconnect_reason() or str(exc)
            error = ConnectionLostError(f"The connection to the agent was lost during the turn ({why}).")
            stop_reason, reason = "disconnected", "the connection to the agent was lost"
        except asyncio.CancelledError:
            stop_reason, reason = "cancelled", "the connection was closed"
            error = ConnectionLostError("The connection was closed during the turn.")
        except Exception as exc:  # e.g. a reply the SDK could not parse: end the turn cleanly, then raise it
            error = exc
        finally:
            if connection.guard is not None:  # a half emoji still held back becomes U+FFFD
                await connection.guard.end_turn(session.id)
            client.cancel_cards(reason, session.id)  # before detaching, so the record notes them
            client.surfaces.detach(session.id, self.transcript)
            session.turn_ended()
        if error is not None:
            agent = await stderr_after_failure(connection)
            if agent is not None:  # what the agent wrote, collapsed under the turn
                self.transcript.add_card(stderr_panel(agent.stderr.lines, agent.stderr.total_bytes, agent.returncode))
            if isinstance(error, ConnectionLostError):
                error = ConnectionLostError(f"{error}{exit_note(connection)}")
        self.transcript.finish(stop_reason)
        result = PromptResult(
            stop_reason=stop_reason,
            text=self.transcript.text,
            updates=self.transcript.updates,
            answers=list(self.transcript.answers),
            record=self.transcript.record_markdown(),
        )
        t = self.transcript
        self.record = TurnRecord(result.record, t.record_text(), t.record_html)
        self._give_way()
        if error is not None:
            raise error
        return result

    def _give_way(self) -> None:
        """The live view makes room for the record, in every page that shows it.

        The page that started the turn gets the record through the display id (what it saves is
        static). Display ids are not saved, so a page that shows the cell's saved outputs
        (reloaded, reopened, a second tab) holds the live view's model instead: the model itself
        shows the record (``Transcript.show_record``: its blocks forgotten, the record built for
        each view that asks) and stays open, one model, among the session's last 16 until it is settled
        (docs/reload.md); pages with nbacp's front-end piece replace it with the record
        themselves (``end_turn``, :mod:`nbacp.kernel.turn_pages`). In plain Python, where nothing
        showed it, the transcript is closed at once: ipywidgets' registry would keep it for the
        life of the kernel, and its Python side (text, answers, record) stays readable after
        ``close()`` (docs/notebooks.md, 'What a card costs')."""
        if self._view_handle is None:
            close_tree([self.transcript])
            return
        assert self.record is not None
        self.transcript.show_record()
        record = self.record
        # an awaited prompt's record follows as the cell's result: its live view becomes blank
        self._view_handle.update(Static() if self.record_inline else record)
        self._view_handle = None
        PAGES.ended(self.transcript.model_id, lambda: (record.html or "", record.text))  # pages with the piece
        self.session.keep_ended(self.transcript)


def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()
