"""The session header: the facts that belong to a session, not to a turn, shown once per session.

Title, mode, commands and config are not turn content: each session shows them once, in a
compact header output (HTML beside plain text) that is updated in place through its display id.
"""

from __future__ import annotations

from typing import Any

from acp import schema

from nbacp.display import show
from nbacp.render.turn_record_html import header_html, header_text
from nbacp.widgets.transcript import describe


class SessionHeader:
    """The session's title, mode, commands and config, shown once and updated in place."""

    FACTS: tuple[str, ...] = ("Session", "Mode", "Config", "Commands")

    def __init__(self) -> None:
        self.facts: dict[str, str] = {}
        self._handle: Any = None
        self._shown = False

    def note(self, update: Any) -> bool:
        """Take ``update`` if it is a session-level fact (then the transcript shows no line for it)."""
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
            self._handle = show(self, display_id=True)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/html": header_html(self.facts), "text/plain": repr(self)}

    def __repr__(self) -> str:
        return f"[session] {header_text(self.facts)}".rstrip()
