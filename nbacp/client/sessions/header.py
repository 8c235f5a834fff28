"""The session header: the facts that belong to a session, not to a turn, shown once per session.

Title, mode, commands and config are not turn content: each session shows them once, in a
compact header output (HTML beside plain text) that is updated in place through its display id.
Facts that arrive between turns (commands right after ``session/new``, claude's title after the
first turn) come here too, never as lines in the connection's inbox (docs/record.md, 'The header').

The title is the agent's, unless it is the prompt with its attachments flattened into it:
agents derive a title from the whole first prompt (claude-agent-acp takes it verbatim, ACP
Kit joins every block), so an attached DataFrame's URI and context markup would become the
title. Then the header shows the text the person typed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from acp import schema

from nbacp.display import show
from nbacp.render.turn_record_html import header_html, header_text
from nbacp.widgets.transcript import describe

FACT_TYPES = (
    schema.AvailableCommandsUpdate,
    schema.CurrentModeUpdate,
    schema.ConfigOptionUpdate,
    schema.SessionInfoUpdate,
)


def is_session_fact(update: Any) -> bool:
    """True for the updates a session's header shows (the inbox leaves them to it: they stay in the
    session's log, and the header reads them from there when it is first shown)."""
    return isinstance(update, FACT_TYPES)


class SessionHeader:
    """The session's title, mode, commands and config, shown once and updated in place."""

    FACTS: tuple[str, ...] = ("Session", "Mode", "Config", "Commands")

    def __init__(self) -> None:
        self.facts: dict[str, str] = {}
        self._handle: Any = None
        self._shown = False
        self._prompts: list[tuple[str, tuple[str, ...]]] = []  # (text typed, URIs of its attachments)

    def prompted(self, text: str, uris: Sequence[str] = ()) -> None:
        """A turn is sent: its text and attachments tell an agent's prompt-derived title apart."""
        if len(self._prompts) < 8:
            self._prompts.append((text, tuple(uris)))

    def note(self, update: Any) -> bool:
        """Take ``update`` if it is a session-level fact (then the transcript shows no line for it)."""
        if isinstance(update, schema.AvailableCommandsUpdate):
            line = describe.commands(update)
            if update.available_commands:
                line += " (send /name as a prompt)"
        elif isinstance(update, schema.CurrentModeUpdate):
            line = describe.clip(f"Mode: {update.current_mode_id}")
        elif isinstance(update, schema.ConfigOptionUpdate):
            line = describe.config(update)
        elif isinstance(update, schema.SessionInfoUpdate):
            title = shown_title(update.title, self._prompts) if update.title else ""
            line = describe.clip(f"Session: {title}") if title else ""
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
            self._handle = show(self, display_id=True)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/html": header_html(self.facts), "text/plain": repr(self)}

    def __repr__(self) -> str:
        return f"[session] {header_text(self.facts)}".rstrip()


_MARKUP = re.compile(r"<context\b|nbacp://", re.I)  # what nbacp's attachments put into a prompt


def shown_title(title: str, prompts: Sequence[tuple[str, Sequence[str]]]) -> str:
    """The agent's title, or the typed prompt text when the title is that prompt plus its attachments."""
    flat = " ".join(title.split())
    for text, uris in prompts:
        typed = " ".join(text.split())
        if typed and flat.startswith(typed) and flat != typed:
            rest = flat[len(typed) :]
            if any(uri in rest for uri in uris) or _MARKUP.search(rest):
                return typed
    cut = _MARKUP.search(flat)
    return flat[: cut.start()].rstrip() if cut and cut.start() > 0 else flat
