"""The record of a turn: what a transcript reports beside its widgets (docs/record.md).

The agent's text with its message boundaries, the answers of its cards, its notices, compactions
and subagents (``nbacp.render.turn_events``), its tool calls and plan
(``nbacp.render.tool_calls.ActivityLog``) and its stop reason, rendered by
``nbacp.render`` as the inert markdown, text and HTML a saved notebook keeps.
"""

from __future__ import annotations

from nbacp.form.card_answer import CardAnswer
from nbacp.render.tool_calls import ActivityLog
from nbacp.render.turn_events import TurnEvents
from nbacp.render.turn_record_html import notes_html, record_html
from nbacp.render.turn_record_text import notes_text, record_markdown, record_text


class AgentText:
    """All agent message text of a turn, in arrival order, separate messages as separate paragraphs.

    A new message id, or a tool call, thought or plan between two chunks, begins a new
    message; a card placed mid-message does not split it.
    """

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0
        self._breaks: list[int] = []  # offsets in the raw text where a new message began
        self._message_id: str | None = None
        self._interrupted = False  # something other than agent text came since the last chunk

    def interrupt(self) -> None:
        """Something other than agent text arrived: the next chunk begins a new message."""
        self._interrupted = True

    def add(self, text: str, message_id: str | None) -> None:
        """One agent message chunk."""
        if self._length and (self._interrupted or message_id != self._message_id):
            self._breaks.append(self._length)
        self._interrupted = False
        self._message_id = message_id
        self._parts.append(text)
        self._length += len(text)

    @property
    def value(self) -> str:
        """The text, a blank line at each message boundary."""
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return with_breaks(self._parts[0], self._breaks) if self._parts else ""


def with_breaks(raw: str, breaks: list[int]) -> str:
    """``raw`` with a blank line at each message boundary, counting the newlines already there.

    Counted on the whole text, not per chunk: an agent that streams "\\n", then "\\nHere is"
    already made its blank line.
    """
    if not breaks:
        return raw
    out: list[str] = []
    start = 0
    for at in breaks:
        out.append(raw[start:at])
        before = at
        while before > 0 and raw[before - 1] == "\n":
            before -= 1
        after = at
        while after < len(raw) and raw[after] == "\n":
            after += 1
        out.append("\n" * max(0, 2 - (at - before) - (after - at)))
        start = at
    out.append(raw[start:])
    return "".join(out)


class TurnRecord:
    """What one turn reports: its prompt, agent text, answers, activity and stop reason."""

    def __init__(self, prompt: str, root: str = "") -> None:
        """``root``: the session's folder, so the record names files under it relative to it."""
        self.prompt = prompt
        self.agent_text = AgentText()
        self.answers: list[CardAnswer] = []
        self.activity = ActivityLog(root)  # the tool calls and plan (nbacp.render.tool_calls)
        self.stop_reason: str | None = None
        self.events = TurnEvents()  # notices, compactions, subagents (nbacp.render.turn_events)

    def markdown(self) -> str:
        """The static, widget-free record (inert markdown, see nbacp.render.turn_record_text)."""
        return record_markdown(
            self.prompt, self.agent_text.value, self.answers, self.stop_reason, self.activity, self.events
        )

    def text(self) -> str:
        """The record as plain text (``text/plain``: nbval, terminals)."""
        return record_text(
            self.prompt, self.agent_text.value, self.answers, self.stop_reason, self.activity, self.events
        )

    def html(self) -> str:
        """The record as HTML (what a saved notebook shows; docs/record.md)."""
        return record_html(
            self.prompt, self.agent_text.value, self.answers, self.stop_reason, self.activity, self.events
        )

    def notes(self, title: str, lines: list[str]) -> tuple[str, str] | None:
        """(text, HTML) of what a view outside any turn (the inbox) holds beside its ``lines``,
        or None when it holds nothing."""
        text = self.agent_text.value
        if not (lines or self.answers or text or self.activity.calls):
            return None
        parts = (title, text, lines, self.answers, self.activity)
        return notes_text(*parts), notes_html(*parts)
