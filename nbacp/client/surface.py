"""Where what the agent sends is shown: the ``Surface`` protocol, and the routing between surfaces.

A surface is a turn's transcript (``nbacp.widgets.Transcript`` implements all of it), the
connection's inbox between turns (a transcript too), or a cell slot that shows only cards
(``QuietSurface``: sign-in before a session exists). The handlers call every method of the
protocol on whichever surface is current; a surface that has nothing to show for one kind of
thing implements it as a no-op, so no caller asks what a surface can do.
"""

from __future__ import annotations

from typing import Any, Protocol

from nbacp.form.card_answer import CardAnswer
from nbacp.render.exit_status import ExitStatus


class Surface(Protocol):
    """Everything the client hands to the place the person looks."""

    def add_card(self, card: Any) -> None:
        """Show a card (a question, a URL, a permission) the agent is waiting on."""

    def note_answers(self, answers: list[CardAnswer]) -> None:
        """A card settled: its answer lines, for the view and the record."""

    def add(self, update: Any) -> None:
        """One ``session/update`` (a message chunk, a tool call, a plan...)."""

    def add_child(self, child_id: str, update: Any) -> None:
        """One ``session/update`` of a subagent session of this surface's session."""

    def add_child_card(self, child_id: str, card: Any) -> None:
        """A card a subagent's request is waiting on (shown in that child's block)."""

    def note(self, text: str) -> None:
        """A line of the connection's log (cut updates, refused requests)."""

    def note_line(self, key: str, text: str) -> None:
        """A status line that replaces the previous one with the same ``key``."""

    def file_written(self, path: str, old_text: str | None, new_text: str, summary: str) -> None:
        """The agent wrote a file through ``fs/write_text_file``: shown as a diff block."""

    def terminal_output(
        self, terminal_id: str, output: str, *, exit_status: ExitStatus | None = None, omitted: int = 0
    ) -> None:
        """New output (the shown tail) or the exit of a client terminal the turn embeds."""


class QuietSurface:
    """A surface that shows cards only: every other method is a no-op (subclasses define ``add_card``)."""

    def add_card(self, card: Any) -> None:
        return None

    def note_answers(self, answers: list[CardAnswer]) -> None:
        return None

    def add(self, update: Any) -> None:
        return None

    def add_child(self, child_id: str, update: Any) -> None:
        return None

    def add_child_card(self, child_id: str, card: Any) -> None:
        self.add_card(card)

    def note(self, text: str) -> None:
        return None

    def note_line(self, key: str, text: str) -> None:
        return None

    def file_written(self, path: str, old_text: str | None, new_text: str, summary: str) -> None:
        return None

    def terminal_output(
        self, terminal_id: str, output: str, *, exit_status: ExitStatus | None = None, omitted: int = 0
    ) -> None:
        return None


class Surfaces:
    """Which surface each session's traffic goes to: its running turn, else the connection's inbox."""

    def __init__(self) -> None:
        self.inbox: Surface | None = None
        self.auth: Surface | None = None  # while ``authenticate`` runs: where its questions go
        self._turns: dict[str, Surface] = {}

    def attach(self, session_id: str, surface: Surface) -> None:
        self._turns[session_id] = surface

    def detach(self, session_id: str, surface: Surface) -> None:
        if self._turns.get(session_id) is surface:
            del self._turns[session_id]

    def running(self, session_id: str) -> bool:
        """Whether ``session_id`` has a turn (or a replay) showing its traffic."""
        return session_id in self._turns

    def for_session(self, session_id: str | None) -> Surface | None:
        """Where a card or note of ``session_id`` goes: its running turn, else the inbox (or None)."""
        if session_id is not None and session_id in self._turns:
            return self._turns[session_id]
        return self.inbox

    def for_unnamed(self) -> Surface | None:
        """Where traffic that names no session goes: the one running turn, else the inbox."""
        if len(self._turns) == 1:
            return next(iter(self._turns.values()))
        return self.inbox

    def note(self, line: str) -> None:
        """A line of the connection's log, shown in every running turn (or the inbox between turns)."""
        for surface in list(self._turns.values()) or ([self.inbox] if self.inbox is not None else []):
            surface.note(line)
