"""The updates newer than either SDK line's schema, read as raw JSON: notices and compactions here,
subagents in ``subagents``; and where an agent marks a child's updates on the parent session
(``_meta.claudeCode.parentToolUseId``).

Neither SDK (0.12.1: schema 1.19; 1.0.0rc3: 1.23) types ``notice``, ``compaction_update``,
``compaction_summary_chunk``, ``subagent_update`` or ``session_message(_chunk)``: the guard hands
them to the client as the raw, already cleaned JSON object (``nbacp.client.wire.guard``). A later
SDK that types them hands a model, which ``raw_update`` dumps to the same shape, so one code path
serves both. Every string is shown as plain text (text nodes, ``render_code``), bounded
(``nbacp.render.turn_events``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from nbacp.render.markdown import render_code
from nbacp.render.turn_events import (
    MAX_COMPACTIONS,
    MAX_NOTICES,
    Compaction,
    Notice,
    TurnEvents,
    blocks_text,
)
from nbacp.widgets.transcript.blocks import Block, LineBlock, text_label
from nbacp.widgets.transcript.frames import Frames
from nbacp.widgets.transcript.nodes import Box, Html, Text, html_view

NEW_KINDS = frozenset(
    {
        "notice",
        "compaction_update",
        "compaction_summary_chunk",
        "subagent_update",
        "session_message",
        "session_message_chunk",
    }
)
"""The update kinds read here as raw JSON."""


def raw_update(update: Any) -> dict[str, Any] | None:
    """``update`` as its wire JSON when it is one of ``NEW_KINDS``, else None."""
    if isinstance(update, dict):
        return update if update.get("sessionUpdate") in NEW_KINDS else None
    if isinstance(update, BaseModel) and getattr(update, "session_update", None) in NEW_KINDS:
        dumped: dict[str, Any] = update.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped
    return None


def parent_tool_use(update: Any) -> str | None:
    """The tool call id a child's update is marked with (``_meta.claudeCode.parentToolUseId``), or None."""
    meta = update.get("_meta") if isinstance(update, dict) else getattr(update, "field_meta", None)
    claude = meta.get("claudeCode") if isinstance(meta, dict) else None
    tool = claude.get("parentToolUseId") if isinstance(claude, dict) else None
    return tool if isinstance(tool, str) and tool else None


class CompactionBlock(Block):
    """One "compacting the context" block: its status line, and its summary as plain text."""

    def __init__(self, compaction: Compaction) -> None:
        self.compaction = compaction
        self._line: Text | None = None
        self._summary: Html | None = None
        self._shown = ""

    def render(self) -> None:
        if self._line is None:
            self._line = text_label("", "nbacp-compaction-status")
            self._summary = html_view("")
            self.widget = Box((self._line, self._summary), ("nbacp-compaction",))
        assert self._summary is not None
        line = self.compaction.line()
        if self._line.value != line:
            self._line.value = line
        if self.compaction.summary != self._shown:
            self._shown = self.compaction.summary
            self._summary.value = render_code(self._shown) if self._shown else ""


class Events:
    """Notices (one line each, never in the agent's message) and compactions (a block per id)."""

    def __init__(self, frames: Frames, events: TurnEvents) -> None:
        self.frames = frames
        self.events = events
        self._blocks: dict[str, CompactionBlock] = {}
        self._over: LineBlock | None = None
        self.lines: list[str] = []  # the notices shown, for a view outside any turn (the inbox)

    def take(self, raw: dict[str, Any]) -> bool:
        """Show a ``notice`` or a compaction update; False for any other kind."""
        kind = raw.get("sessionUpdate")
        if kind == "notice":
            self._notice(Notice.from_raw(raw))
        elif kind in ("compaction_update", "compaction_summary_chunk"):
            compaction_id = raw.get("compactionId")
            block = self._compaction(compaction_id if isinstance(compaction_id, str) else "")
            if block is None:
                return True
            if kind == "compaction_update":
                block.compaction.patch(raw)
            else:
                block.compaction.add_summary(blocks_text(raw.get("content") or raw.get("summary")))
            self.frames.mark(block)
        else:
            return False
        return True

    def _notice(self, notice: Notice) -> None:
        if len(self.events.notices) >= MAX_NOTICES:
            self.events.notices_dropped += 1
            self._over_line()
            return
        self.events.notices.append(notice)
        self.lines.append(notice.line())
        self.frames.append(LineBlock(notice.line(), f"nbacp-notice-{notice.severity}"))

    def _compaction(self, compaction_id: str) -> CompactionBlock | None:
        block = self._blocks.get(compaction_id)
        if block is not None:
            return block
        if len(self._blocks) >= MAX_COMPACTIONS:
            self.events.compactions_dropped += 1
            self._over_line()
            return None
        compaction = self.events.compactions[compaction_id] = Compaction(compaction_id)
        block = self._blocks[compaction_id] = CompactionBlock(compaction)
        self.frames.append(block)
        return block

    def _over_line(self) -> None:
        text = "; ".join(self.events.dropped_lines())
        if self._over is None:
            self._over = LineBlock(text)
            self.frames.append(self._over)
        self._over.text = text
        self.frames.mark(self._over)
