"""What a turn reports beside the agent's own message: notices, context compactions, subagents.

Plain data that the transcript fills from the raw updates (``notice``, ``compaction_update``,
``compaction_summary_chunk``, ``subagent_update``; neither SDK line types them) and the record
renders (``turn_record_text``, ``turn_record_html``). Every part is bounded, so a hostile agent
cannot grow a record without limit (docs/protocol.md, 'Subagents, notices, compaction').
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nbacp.render.safe_text import safe_text
from nbacp.render.tool_calls import ActivityLog

MAX_NOTICES = 100
"""Notices kept per turn; later ones are counted."""
MAX_COMPACTIONS = 16
"""Compaction blocks per turn; later compaction ids are counted."""
SUMMARY_CHARS = 20_000
"""Characters of one compaction's summary kept (shown and recorded)."""
RECORD_SUMMARY_CHARS = 4_000
"""Characters of one compaction's summary in the record (its first 40 lines at most)."""
RECORD_CHILD_CHARS = 8_000
"""Characters of one subagent's message text in the record."""
SEVERITIES = ("info", "warning", "error")
STATES = {"running": "running", "idle": "idle", "requires_action": "requires action", "unknown": "unknown"}
COMPACTION_STATUS = {
    "in_progress": "in progress",
    "completed": "completed",
    "failed": "failed",
    "cancelled": "cancelled",
}


def one_line(value: Any, limit: int = 300) -> str:
    """Agent text as one plain line of at most ``limit`` characters (bidi and controls neutralised)."""
    flat = " ".join(safe_text(str(value)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def blocks_text(blocks: Any) -> str:
    """The text of a list of content blocks (raw JSON); other blocks as a bracketed kind."""
    if isinstance(blocks, dict):
        blocks = [blocks]
    if not isinstance(blocks, list):
        return ""
    parts = []
    for block in blocks[:64]:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict):
            parts.append(f"[{one_line(block.get('type', 'content'), 40)}]")
    return "\n".join(parts)


@dataclass
class Notice:
    severity: str
    title: str
    description: str = ""

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> Notice:
        severity = raw.get("severity")
        return cls(
            severity if severity in SEVERITIES else "info",
            one_line(raw.get("title") or "(no title)"),
            one_line(raw.get("description") or "", 1000),
        )

    def line(self) -> str:
        more = f" — {self.description}" if self.description else ""
        return f"Notice ({self.severity}): {self.title}{more}"


@dataclass
class Compaction:
    compaction_id: str
    status: str = "in_progress"
    summary: str = ""
    error: str = ""

    def patch(self, raw: dict[str, Any]) -> None:
        """An upsert (``compaction_update``): status, and the summary or error when given."""
        if isinstance(raw.get("status"), str):
            self.status = raw["status"]
        if "summary" in raw:
            self.summary = blocks_text(raw["summary"])[:SUMMARY_CHARS]
        error = raw.get("error")
        if isinstance(error, dict):
            self.error = one_line(error.get("message") or error.get("code") or "error", 1000)
        elif isinstance(error, str):
            self.error = one_line(error, 1000)

    def add_summary(self, text: str) -> None:
        """A ``compaction_summary_chunk``."""
        self.summary = (self.summary + text)[:SUMMARY_CHARS]

    def record_summary(self) -> str:
        """What the record keeps of the summary: its first 40 lines, at most ``RECORD_SUMMARY_CHARS``."""
        head = safe_text("\n".join(self.summary.strip().split("\n")[:40]))  # bidi marks shown, not obeyed
        return head if len(head) <= RECORD_SUMMARY_CHARS else head[: RECORD_SUMMARY_CHARS - 1] + "…"

    def line(self) -> str:
        status = COMPACTION_STATUS.get(self.status, one_line(self.status, 40))
        error = f": {self.error}" if self.error else ""
        return f"Compacting the context: {status}{error}"


@dataclass
class ChildRecord:
    """One subagent as the record shows it: its title, state, message text, tool calls and lines."""

    child_id: str
    title: str = ""
    description: str = ""
    state: str = "running"
    stop_reason: str = ""
    activity: ActivityLog = field(default_factory=ActivityLog)
    text_of: Callable[[], str] = lambda: ""
    lines_of: Callable[[], list[str]] = lambda: []

    def patch(self, raw: dict[str, Any]) -> None:
        """A ``subagent_update``: patchable title, description and state (with its stop reason)."""
        if isinstance(raw.get("title"), str):
            self.title = one_line(raw["title"], 120)
        if isinstance(raw.get("description"), str):
            self.description = one_line(raw["description"], 1000)
        state = raw.get("state")
        if isinstance(state, dict) and isinstance(state.get("state"), str):
            self.state = state["state"]
            self.stop_reason = ""
            stop = state.get("stopReason")
            if stop == "error" and isinstance(state.get("error"), dict):
                stop = state["error"]
            if isinstance(stop, str):
                self.stop_reason = one_line(stop, 80)
            elif isinstance(stop, dict):  # {"error": {code, message}} or a typed object
                inner = stop.get("error")
                error = inner if isinstance(inner, dict) else stop
                self.stop_reason = one_line(f"error: {error.get('message') or error.get('code') or stop}", 300)

    def name(self) -> str:
        return self.title or "Subagent"

    def heading(self) -> str:
        """ "Subagent: Explore · idle (end_turn)"."""
        state = STATES.get(self.state, one_line(self.state, 40))
        stop = f" ({self.stop_reason})" if self.stop_reason else ""
        return f"Subagent: {self.name()} · {state}{stop}"

    def text(self) -> str:
        text = self.text_of()
        return text if len(text) <= RECORD_CHILD_CHARS else text[: RECORD_CHILD_CHARS - 1] + "…"


@dataclass
class TurnEvents:
    """A turn's notices, compactions and subagents, in the order they first came."""

    notices: list[Notice] = field(default_factory=list)
    notices_dropped: int = 0
    compactions: dict[str, Compaction] = field(default_factory=dict)
    compactions_dropped: int = 0
    children: dict[str, ChildRecord] = field(default_factory=dict)
    children_dropped: int = 0

    def __bool__(self) -> bool:
        return bool(
            self.notices
            or self.compactions
            or self.children
            or self.notices_dropped
            or self.compactions_dropped
            or self.children_dropped
        )

    def dropped_lines(self) -> list[str]:
        """What went over the bounds, one line each."""
        out = []
        if self.notices_dropped:
            out.append(f"… {self.notices_dropped:,} more notices (over {MAX_NOTICES})")
        if self.compactions_dropped:
            out.append(f"… {self.compactions_dropped:,} more compactions (over {MAX_COMPACTIONS})")
        if self.children_dropped:
            out.append(f"… {self.children_dropped:,} more subagent updates not shown (over the subagent bounds)")
        return out
