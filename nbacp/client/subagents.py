"""The subagent sessions an agent announced (``subagent_update``), by child session id.

A child's traffic is ordinary ``session/update`` (and permission requests, elicitations) with its
own session id; the client shows it in its parent's turn, so the handlers ask here whose child a
session is. The stop button cancels the parent and every child still running that advertised
``capabilities.cancel`` (the only request a client may send a child). Bounded: at most
``MAX_CHILDREN`` per parent session are tracked; a new one past that replaces the oldest that is
not running, and is refused when all are (docs/protocol.md, 'Subagents, notices, compaction').
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_CHILDREN = 64
"""Children tracked per parent session (their updates route to the parent's turn)."""
MAX_DEPTH = 4
"""How many parents a child's chain may have (a child announcing its own children)."""
ANNOUNCEMENT = "subagent_update"


@dataclass
class Child:
    """What the client keeps of one child session (its view is the transcript's)."""

    parent: str
    title: str = ""
    state: str = "running"
    cancel: bool = False


def announcement(update: Any) -> dict[str, Any] | None:
    """``update`` as a raw ``subagent_update`` naming a child, or None (the SDKs do not type it)."""
    if (
        isinstance(update, dict)
        and update.get("sessionUpdate") == ANNOUNCEMENT
        and isinstance(update.get("sessionId"), str)
        and update["sessionId"]
    ):
        return update
    return None


class Subagents:
    """The children of one connection's sessions."""

    def __init__(self) -> None:
        self._children: dict[str, Child] = {}
        self.refused = 0  # announcements past the bound, while every tracked child was running

    def announce(self, parent: str, update: dict[str, Any]) -> bool:
        """Take a ``subagent_update`` on ``parent``: register or patch its child; False if refused."""
        child_id = update["sessionId"]
        if child_id == parent or self.root(parent) == child_id:
            return False  # a session cannot be its own (grand)child
        child = self._children.get(child_id)
        if child is None:
            if not self._room(parent):
                self.refused += 1
                return False
            child = self._children[child_id] = Child(parent)
        if isinstance(update.get("title"), str):
            child.title = update["title"]
        capabilities = update.get("capabilities")
        if isinstance(capabilities, dict):
            child.cancel = isinstance(capabilities.get("cancel"), dict)
        state = update.get("state")
        if isinstance(state, dict) and isinstance(state.get("state"), str):
            child.state = state["state"]
        return True

    def _room(self, parent: str) -> bool:
        mine = [cid for cid, c in self._children.items() if c.parent == parent]
        if len(mine) < MAX_CHILDREN:
            return True
        for cid in mine:  # oldest first (dicts keep insertion order)
            if self._children[cid].state == "idle":
                del self._children[cid]
                return True
        return False

    def parent_of(self, session_id: str | None) -> str | None:
        """The top-level session whose turn shows ``session_id``'s traffic, or None if it is no child."""
        if session_id is None or session_id not in self._children:
            return None
        return self.root(session_id)

    def root(self, session_id: str) -> str:
        seen = 0
        while session_id in self._children and seen < MAX_DEPTH:
            session_id = self._children[session_id].parent
            seen += 1
        return session_id

    def name(self, session_id: str | None) -> str | None:
        """The child's title for its cards' headers ("Explore asks"), or None."""
        child = self._children.get(session_id) if session_id is not None else None
        if child is None:
            return None
        return child.title or "A subagent"

    def cancellable(self, parent: str) -> list[str]:
        """The children of ``parent`` (at any depth) not idle (running, waiting on the person, or in
        an unknown state) that advertised ``cancel``."""
        return [cid for cid, c in self._children.items() if c.cancel and c.state != "idle" and self.root(cid) == parent]
