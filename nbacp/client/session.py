"""Sessions and turns: one prompt, its live view in the prompting cell, and its static record.

The live view is displayed by ``start()`` while the prompting cell is still executing, so
it lands in that cell; everything that arrives later (updates, cards) mutates that view
over the widget comm, which works from any task. The record is a separate display output,
filled at turn end through its display id, so the saved notebook reads well without widgets.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp import RequestError, text_block

from nbacp import kernel
from nbacp.errors import AgentError, ConnectionLost
from nbacp.render.record import record_text

if TYPE_CHECKING:
    from nbacp.client.connection import Connection
    from nbacp.widgets.transcript import Transcript


@dataclass
class PromptResult:
    """What a turn produced. ``stop_reason`` is the agent's (end_turn, cancelled, ...)."""

    stop_reason: str
    text: str
    updates: list[Any] = field(default_factory=list)
    answers: list[tuple[str, str, str]] = field(default_factory=list)
    record: str = ""

    def __repr__(self) -> str:
        return f"PromptResult(stop_reason={self.stop_reason!r}, text={self.text!r})"


class Record:
    """The static turn record: inert markdown for renderers, plain text for text/plain (nbval)."""

    def __init__(self, markdown: str, text: str | None = None) -> None:
        self.markdown = markdown
        self.text = markdown if text is None else text

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __repr__(self) -> str:
        return self.text


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

    def __init__(self, session: Session, text: str, transcript: Transcript, *, placeholder: bool = True) -> None:
        self.session = session
        self.text = text
        self.transcript = transcript
        self.record: Record | None = None  # set when the turn ends
        # A placeholder filled through its display id reaches the cell after it went idle (start()),
        # but nbval ignores update_display_data; an awaited prompt() displays the record itself.
        self._record_handle = _display(Record(""), display_id=True) if placeholder else None
        self._task = asyncio.ensure_future(self._run())

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
        try:
            response = await session.connection.agent.prompt(session_id=session.id, prompt=[text_block(self.text)])
            stop_reason = str(response.stop_reason)
            reason = "the agent ended the turn"
        except RequestError as exc:
            error = AgentError(exc.code, str(exc), exc.data)
            reason = "the agent failed the turn"
        except ConnectionError as exc:
            error = ConnectionLost(f"The connection to the agent was lost during the turn ({exc}).")
            stop_reason, reason = "disconnected", "the connection to the agent was lost"
        except asyncio.CancelledError:
            stop_reason, reason = "cancelled", "the connection was closed"
            error = ConnectionLost("The connection was closed during the turn.")
        except Exception as exc:  # e.g. a reply the SDK could not parse: end the turn cleanly, then raise it
            error = exc
        finally:
            client.cancel_cards(reason, session.id)  # before detaching, so the record notes them
            client.detach(session.id, self.transcript)
        self.transcript.finish(stop_reason)
        result = PromptResult(
            stop_reason=stop_reason,
            text=self.transcript.text,
            updates=list(self.transcript.updates),
            answers=list(self.transcript.answers),
            record=self.transcript.record_markdown(),
        )
        t = self.transcript
        self.record = Record(result.record, record_text(t.prompt, t.text, t.answers, t.stop_reason))
        if self._record_handle is not None:
            self._record_handle.update(self.record)
        if error is not None:
            raise error
        return result


class Session:
    """One ACP session of a connection. ``prompt`` renders into the cell that awaits it."""

    def __init__(self, connection: Connection, session_id: str, cwd: str, response: Any = None) -> None:
        self.connection = connection
        self.id = session_id
        self.cwd = cwd
        self.response = response
        self.turn: Turn | None = None

    @property
    def updates(self) -> list[Any]:
        """Every session/update received for this session, in order, inside turns or not."""
        return list(self.connection.client.updates.get(self.id, ()))

    def start(self, text: str) -> Turn:
        """Send a prompt without waiting: the turn's view is shown in the current cell."""
        return self._start(text, placeholder=True)

    def _start(self, text: str, *, placeholder: bool) -> Turn:
        from nbacp.widgets.transcript import Transcript

        if self.turn is not None and not self.turn.done:
            raise RuntimeError("This session already has a turn running; await it or cancel it first.")
        transcript = Transcript(prompt=text)
        _display(transcript)
        self.turn = Turn(self, text, transcript, placeholder=placeholder)
        return self.turn

    async def prompt(self, text: str) -> PromptResult:
        """Prompt and wait for the turn; the stop button cancels the turn and its open questions."""
        refuse_to_wait_in_cell()
        turn = self._start(text, placeholder=False)
        try:
            return await kernel.wait_in_cell(asyncio.shield(turn._task), on_interrupt=self.cancel)
        finally:
            if turn.record is not None:
                _display(turn.record)  # still in the prompting cell: a plain display_data
            else:  # interrupted before the turn ended: fill a placeholder later, as start() does
                turn._record_handle = _display(Record(""), display_id=True)

    async def cancel(self) -> None:
        """Cancel the running turn: close its open cards, then tell the agent (session/cancel)."""
        self.connection.client.cancel_cards("cancelled from the notebook", self.id)
        if not self.connection.closed:
            with contextlib.suppress(ConnectionError):
                await self.connection.agent.cancel(session_id=self.id)

    def __repr__(self) -> str:
        return f"Session(id={self.id!r}, cwd={self.cwd!r})"
