"""Subagents in a turn: one collapsible block per child, under the tool call that started it.

A child is announced by ``subagent_update`` on the parent session (its id in the update) and then
sends ordinary updates under its own session id, which the client hands over with ``add_child``;
an agent that does not speak the capability marks a child's updates on the parent session with
``_meta.claudeCode.parentToolUseId`` instead, and those are nested the same way (keyed by that
tool call). Each block has its own ``Dispatch`` and ``Frames`` inside the block's node, so a
child's messages, thoughts, tool calls and cards look as the parent's do, never interleaved with
them; its record (``ChildRecord``) is nested in the turn's. ``session_message`` /
``session_message_chunk`` between a parent and a child are one line each in the child's block
("Task from the parent" / "Reply to the parent"), upserted by message id.

Bounded (docs/protocol.md, 'Subagents, notices, compaction'): ``MAX_SUBAGENTS`` blocks per turn,
``MAX_CHILD_UPDATES`` updates and ``MAX_CHILD_TEXT`` message characters shown per child; what
goes past is counted in one line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp import schema

from nbacp.render.turn_events import STATES, ChildRecord, TurnEvents, blocks_text, one_line
from nbacp.widgets.transcript.blocks import Block, CardBlock, LineBlock, text_label
from nbacp.widgets.transcript.dispatch import Dispatch
from nbacp.widgets.transcript.events import parent_tool_use, raw_update
from nbacp.widgets.transcript.frames import Frames
from nbacp.widgets.transcript.nodes import Box, Fold, Text
from nbacp.widgets.transcript.record import TurnRecord
from nbacp.widgets.transcript.terminals import Terminals

MAX_SUBAGENTS = 16
"""Subagent blocks per turn; the updates of any further child are counted, not shown."""
MAX_CHILD_UPDATES = 2_000
"""Updates shown per subagent."""
MAX_CHILD_TEXT = 200_000
"""Message and thought characters shown per subagent."""
MESSAGE_CHARS = 2_000
"""Characters of one message between sessions shown (on one line)."""
_CHUNKS = (schema.AgentMessageChunk, schema.AgentThoughtChunk, schema.UserMessageChunk)


class ChildBlock(Block):
    """One subagent: its heading (title, state, stop reason), description, and its own transcript."""

    def __init__(self, record: ChildRecord, seal_at: int, due: Callable[[ChildBlock], None]) -> None:
        self.record = record
        self.host = Box(classes=("nbacp-subagent-body",))
        self.frames = Frames(self.host, due=lambda: due(self))
        self.turn = TurnRecord("")
        self.dispatch = Dispatch(self.frames, self.turn, Terminals(), seal_at=seal_at, agent_labelled=True)
        record.activity = self.turn.activity
        record.text_of = lambda: self.turn.agent_text.value
        record.lines_of = lambda: self.dispatch.line_texts()
        self.shown = self.chars = self.dropped = 0
        self.messages: dict[str, str] = {}  # between sessions, by message id
        self.anchor: str | None = None  # the parent's tool call it is shown under
        self._title: str | None = None
        self._state = ""
        self._description: Text | None = None

    def take(self, update: Any) -> None:
        """One of the child's updates, unless it is past the bounds (then counted in one line)."""
        size = len(getattr(getattr(update, "content", None), "text", "") or "") if isinstance(update, _CHUNKS) else 0
        if self.shown >= MAX_CHILD_UPDATES or self.chars + size > MAX_CHILD_TEXT:
            self.dropped += 1
            self.dispatch.line("over", f"… {self.dropped:,} more updates of this subagent not shown")
            return
        self.shown += 1
        self.chars += size
        self.dispatch.take(update)

    def message(self, message_id: str, heading: str, text: str, *, chunk: bool) -> None:
        """A message between this child and its parent, one line upserted by id."""
        old = self.messages.get(message_id, "") if chunk else ""
        if message_id not in self.messages and len(self.messages) >= 64:
            self.dropped += 1
            return
        self.messages[message_id] = (old + text)[:MESSAGE_CHARS]
        self.dispatch.line(f"message:{message_id}", one_line(f"{heading}: {self.messages[message_id]}", MESSAGE_CHARS))

    def render(self) -> None:
        heading = self.record.heading()
        if self.widget is None:
            self._description = text_label("", "nbacp-subagent-description")
            inner = Box((self._description, self.host))
            self.widget = Fold((inner,), heading, open=True, classes=("nbacp-subagent",))
            self._title = heading
        assert isinstance(self.widget, Fold) and self._description is not None
        if heading != self._title:
            self._title = heading
            self.widget.titles = (heading,)
        state = f"nbacp-subagent-{self.record.state if self.record.state in STATES else 'unknown'}"
        if state != self._state:  # the badge's colour (nbacp.widgets.text)
            if self._state:
                self.widget.remove_class(self._state)
            self.widget.add_class(state)
            self._state = state
        if self._description.value != self.record.description:
            self._description.value = self.record.description
        self.frames.render()


class Subagents:
    """The subagent blocks of one turn, and what routes to them."""

    def __init__(
        self, frames: Frames, parent: Dispatch, events: TurnEvents, seal_at: int, flush: Callable[[], None]
    ) -> None:
        self.frames = frames
        self.parent = parent
        self.events = events
        self.seal_at = seal_at
        self.flush = flush
        self.blocks: dict[str, ChildBlock] = {}  # by child session id, or "tool:<id>" for marked updates
        self._by_tool: dict[str, str] = {}  # tool call id -> the key of its child
        self._waiting: dict[str, list[ChildBlock]] = {}  # tool call id -> children shown before it
        self._last_under: dict[str, ChildBlock] = {}  # tool call id -> the last child placed under it
        self._over: LineBlock | None = None

    # -- routing ---------------------------------------------------------------------------
    def take(self, update: Any) -> bool:
        """An update on the parent session: True when it was a subagent's (announcement, message,
        or marked with the tool call that started it)."""
        raw = raw_update(update)
        kind = raw.get("sessionUpdate") if raw is not None else None
        if raw is not None and kind == "subagent_update":
            self.announce(raw)
            return True
        if raw is not None and kind in ("session_message", "session_message_chunk"):
            self.message(raw)
            return True
        tool = parent_tool_use(update)
        if tool is None:
            return False
        key = self._by_tool.get(tool, f"tool:{tool}")
        block = self._block(key, tool)
        if block is not None:
            block.take(update)
            self.frames.mark(block)
        return True

    def take_child(self, child_id: str, update: Any) -> None:
        """An update under a child's own session id."""
        raw = raw_update(update)
        kind = raw.get("sessionUpdate") if raw is not None else None
        if raw is not None and kind == "subagent_update":  # a grandchild: shown beside its parent
            self.announce(raw)
            return
        if raw is not None and kind in ("session_message", "session_message_chunk"):
            self.message(raw)
            return
        tool = parent_tool_use(update)
        if tool is not None and tool not in self._by_tool:
            self._by_tool[tool] = child_id
        block = self._block(child_id, tool)
        if block is not None:
            block.take(update)
            self.frames.mark(block)

    def announce(self, raw: dict[str, Any]) -> None:
        child_id = raw.get("sessionId")
        block = self._block(child_id) if isinstance(child_id, str) and child_id else None
        if block is not None:
            block.record.patch(raw)
            self.frames.mark(block)

    def message(self, raw: dict[str, Any]) -> None:
        sender, recipient = raw.get("senderSessionId"), raw.get("recipientSessionId")
        message_id = str(raw.get("messageId") or "")
        chunk = raw.get("sessionUpdate") == "session_message_chunk"
        text = blocks_text(raw.get("content"))
        if isinstance(recipient, str) and recipient in self.blocks:
            block, heading = self.blocks[recipient], "Task from the parent"
            self._anchor(block, message_id)
        elif isinstance(sender, str) and sender in self.blocks:
            block, heading = self.blocks[sender], "Reply to the parent"
        else:  # between sessions this turn shows no block for: one line on the parent
            self.parent.line(f"message:{message_id}", one_line(f"Message between sessions: {text}", MESSAGE_CHARS))
            return
        block.message(message_id, heading, text, chunk=chunk)
        self.frames.mark(block)

    def card(self, child_id: str, card: CardBlock, *, now: bool) -> Callable[[], None] | None:
        """Place a child's card in its block (laid out at once when ``now``); returns what lays it
        out again once its widget changed (an answered card's line), or None when the child has no
        block here."""
        block = self.blocks.get(child_id)
        if block is None:
            return None
        block.dispatch.close_message()
        self.frames.mark(block)
        block.frames.place(card, now=now)

        def changed() -> None:
            block.frames.relayout(card)
            self.frames.mark(block)

        return changed

    def tool_shown(self, tool_call_id: str) -> None:
        """A tool call of the parent came: the children it started and that came first move under it."""
        for block in self._waiting.pop(tool_call_id, []):
            if block.anchor is not None:
                continue
            if block.record.child_id.startswith("tool:"):
                self._title_from(block.record, tool_call_id)
            self.frames.remove(block)
            self._place(block, tool_call_id)

    def cancel(self) -> None:
        for block in self.blocks.values():
            block.dispatch.cancel()
            self.frames.mark(block)

    def finish(self) -> None:
        for block in self.blocks.values():
            block.dispatch.close_message()
            self.frames.mark(block)

    # -- blocks ----------------------------------------------------------------------------
    def _block(self, key: str, tool: str | None = None) -> ChildBlock | None:
        block = self.blocks.get(key)
        if block is not None:
            if tool is not None:
                self._anchor(block, tool)
            return block
        if len(self.blocks) >= MAX_SUBAGENTS:
            self.events.children_dropped += 1
            self._over_line()
            return None
        record = ChildRecord(key)
        if key.startswith("tool:") and tool is not None:
            self._title_from(record, tool)
        self.events.children[key] = record
        block = self.blocks[key] = ChildBlock(record, self.seal_at, self._due)
        self.parent.close_message()
        self._place(block, tool)
        return block

    def _title_from(self, record: ChildRecord, tool: str) -> None:
        """A child known only by its tool call is named after that call (when it has come)."""
        started = self.parent.tool_block(tool)
        title = started.state.get("title") if started is not None else None
        if not record.title and isinstance(title, str) and title:
            record.title = one_line(title, 120)

    def _anchor(self, block: ChildBlock, tool: str) -> None:
        """Put a child already shown under the tool call that started it (once)."""
        if block.anchor is not None:
            return
        if self.parent.tool_block(tool) is None:
            self._wait(block, tool)
            return
        self.frames.remove(block)
        self._place(block, tool)

    def _place(self, block: ChildBlock, tool: str | None) -> None:
        started = self.parent.tool_block(tool) if tool is not None else None
        if started is None or tool is None:
            self.frames.append(block)
            if tool is not None:
                self._wait(block, tool)
            return
        after = self._last_under.get(tool)
        anchor: Block = after if after is not None and self.frames.holds(after) else started
        self.frames.insert_after(anchor, block)
        self._last_under[tool] = block
        block.anchor = tool

    def _wait(self, block: ChildBlock, tool: str) -> None:
        waiting = self._waiting.setdefault(tool, [])
        if block not in waiting:
            waiting.append(block)

    def _due(self, block: ChildBlock) -> None:
        self.frames.mark(block)
        self.flush()

    def _over_line(self) -> None:
        text = f"… {self.events.children_dropped:,} updates of further subagents not shown (over {MAX_SUBAGENTS})"
        if self._over is None:
            self._over = LineBlock(text)
            self.frames.append(self._over)
        self._over.text = text
        self.frames.mark(self._over)
