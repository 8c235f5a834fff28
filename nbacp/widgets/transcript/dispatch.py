"""Session updates to blocks: which block each update changes, and what the record keeps of it.

Message chunks stream into one ``MessageBlock`` per run of one role and message id; tool
calls merge by id into a ``ToolCallBlock``; plans update in place; session facts (mode,
commands, usage...) are keyed lines that the next one replaces; anything else, or an update
that breaks a handler, becomes one counted "Unsupported update" line, so an agent's odd update
never breaks the turn. Notices and compactions (raw JSON on both SDK lines) are ``events``'.
Each change only marks its block; the frames render it
(``nbacp.widgets.transcript.frames``).

The record's tool calls (``nbacp.render.tool_calls.ActivityLog``) read ACP's wire shape; a
typed update gets it from the SDK's own serialiser (``wire_shape``), also for the files the client
wrote, which the record lists as tool calls of their own, so no camelCase is spelt out here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp import schema

from nbacp.widgets.transcript import describe
from nbacp.widgets.transcript.blocks import LineBlock, MessageBlock, PlanBlock
from nbacp.widgets.transcript.events import Events, raw_update
from nbacp.widgets.transcript.frames import Frames
from nbacp.widgets.transcript.record import TurnRecord
from nbacp.widgets.transcript.terminals import Terminals
from nbacp.widgets.transcript.tool_blocks import ToolCallBlock, WriteBlock

CONNECTION_LOG = "connection-log"
"""The key of the connection's log line (a view's notes leave it out)."""
_CHUNK_ROLE: dict[type, str] = {
    schema.AgentMessageChunk: "agent",
    schema.AgentThoughtChunk: "thought",
    schema.UserMessageChunk: "user",
}


def wire_shape(update: schema.ToolCallStart | schema.ToolCallProgress) -> dict[str, Any]:
    """A typed tool call update as the wire-shaped dict the record folds (camelCase, ``_meta``)."""
    return update.model_dump(mode="json", by_alias=True, exclude_none=True)


def written_call(number: int, edit: schema.FileEditToolCallContent) -> schema.ToolCallStart:
    """A file the client wrote for the agent, as the completed edit tool call the record lists."""
    return schema.ToolCallStart(
        session_update="tool_call",
        tool_call_id=f"nbacp-write-{number}",
        title="fs/write_text_file",
        kind="edit",
        status="completed",
        content=[edit],
        locations=[schema.ToolCallLocation(path=edit.path)],
    )


class Dispatch:
    """Puts a turn's updates into its blocks (through ``frames``) and its record."""

    def __init__(
        self,
        frames: Frames,
        record: TurnRecord,
        terminals: Terminals,
        *,
        seal_at: int,
        agent_labelled: bool,
        session_facts: Callable[[Any], bool] | None = None,
    ) -> None:
        """``agent_labelled``: False labels the first agent message "Agent" (after a prompt, as
        in the record). ``session_facts``: as for ``Transcript``."""
        self.frames = frames
        self.record = record
        self.terminals = terminals
        self.seal_at = seal_at
        self._agent_labelled = agent_labelled
        self._session_facts = session_facts
        self._current: MessageBlock | None = None
        self._tools: dict[str, ToolCallBlock] = {}
        self._cancelling = False
        self._plans: dict[str, PlanBlock] = {}
        self._lines: dict[str, LineBlock] = {}
        self._unsupported: dict[str, int] = {}
        self._writes = 0  # files written through the client in this turn (their record ids)
        self.events = Events(frames, record.events)

    # -- what the view calls ---------------------------------------------------------
    def take(self, update: Any) -> None:
        """Any session update; unknown or malformed ones become a compact line."""
        try:
            self._dispatch(update)
        except Exception as error:  # an agent's odd update must never break the turn
            self._unsupported_line(update, f"{type(error).__name__}")

    def close_message(self) -> None:
        """End the current message run: the next chunk starts a new block, and this one renders whole."""
        if self._current is not None:
            self._current.closed = True
            self.frames.mark(self._current)
            self._current = None

    def line(self, key: str, text: str) -> None:
        """Show one line; the same key replaces it in place."""
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = LineBlock(text)
            self.frames.append(line)
        line.text = text
        self.frames.mark(line)

    def line_texts(self, *, skip: tuple[str, ...] = ()) -> list[str]:
        """The keyed lines shown, in order of first appearance, but those under ``skip``; then the notices."""
        return [line.text for key, line in self._lines.items() if key not in skip] + self.events.lines

    def tool_block(self, tool_call_id: str) -> ToolCallBlock | None:
        """The block of a tool call of this turn, if it came."""
        return self._tools.get(tool_call_id)

    def written(self, path: str, old_text: str | None, new_text: str, summary: str) -> None:
        """A file the agent wrote through the client: a diff block, and an edit in the record's tool calls."""
        self.record.agent_text.interrupt()
        self.close_message()
        block = WriteBlock(path, old_text, new_text, summary)
        self.frames.append(block)
        # the record lists it with the turn's tool calls, as an edit with its +N -M (nbacp.render.tool_calls)
        self._writes += 1
        self.record.activity.take(wire_shape(written_call(self._writes, block.edit)))

    def terminal_changed(self, terminal_id: str) -> None:
        """A terminal's shown output changed: re-render the tool calls that embed it."""
        for block in self._tools.values():
            if terminal_id in block.terminal_ids():
                self.frames.mark(block)

    def cancel(self) -> None:
        """The person cancelled the turn: its unfinished tool calls show as cancelled, not failed."""
        self._cancelling = True
        self.record.activity.cancel()
        for block in self._tools.values():
            if block.cancel():
                self.frames.mark(block)

    # -- updates ---------------------------------------------------------------------
    def _dispatch(self, update: Any) -> None:
        if self._session_facts is not None and self._session_facts(update):
            return
        raw = raw_update(update)
        if raw is not None:  # shown apart from the agent's message, which the record keeps whole
            self.close_message()
            if not self.events.take(raw):
                self._unsupported_line(update)
            return
        role = _CHUNK_ROLE.get(type(update))
        if role is not None:
            self._chunk(role, update)
        elif isinstance(update, schema.ToolCallStart | schema.ToolCallProgress):
            self._tool_call(update)
        elif isinstance(update, schema.AgentPlanUpdate):
            self._plan("").set_entries(update.entries)
            self.record.activity.take_plan(e.model_dump(mode="json", by_alias=True) for e in update.entries)
        elif isinstance(update, schema.AgentPlanContentUpdate):
            self._plan_content(update.plan)
        elif isinstance(update, schema.AgentPlanRemovedUpdate):
            self._remove_plan(update.plan_id)
        elif isinstance(update, schema.AvailableCommandsUpdate):
            self.line("commands", describe.commands(update))
        elif isinstance(update, schema.CurrentModeUpdate):
            self.line("mode", describe.clip(f"Mode: {update.current_mode_id}"))
        elif isinstance(update, schema.ConfigOptionUpdate):
            self.line("config", describe.config(update))
        elif isinstance(update, schema.SessionInfoUpdate):
            self.line("session", describe.session_info(update))
        elif isinstance(update, schema.UsageUpdate):
            self.line("usage", describe.usage(update))
        else:
            self._unsupported_line(update)

    def _unsupported_line(self, update: Any, why: str = "") -> None:
        kind = describe.update_kind(update)
        self._unsupported[kind] = count = self._unsupported.get(kind, 0) + 1
        times = f" (×{count})" if count > 1 else ""
        reason = f" ({why})" if why else ""
        self.line(f"unsupported:{kind}", f"Unsupported update: {kind}{reason}{times}")

    def _chunk(self, role: str, chunk: Any) -> None:
        content = chunk.content
        if not isinstance(content, schema.TextContentBlock):
            self.record.agent_text.interrupt()
            self.close_message()
            self.frames.append(LineBlock(describe.content_block(content), f"nbacp-{role}-content"))
            return
        if role == "agent":
            self.record.agent_text.add(content.text, chunk.message_id)
        else:
            self.record.agent_text.interrupt()
        current = self._current
        if current is None or current.role != role or current.message_id != chunk.message_id:
            self.close_message()
            label = ""
            if role == "agent" and not self._agent_labelled:
                label, self._agent_labelled = "Agent", True
            current = self._current = MessageBlock(role, chunk.message_id, self.seal_at, label=label)
            self.frames.append(current)
        current.append(content.text)
        self.frames.mark(current)

    def _tool_call(self, update: schema.ToolCallStart | schema.ToolCallProgress) -> None:
        self.record.agent_text.interrupt()
        self.close_message()
        block = self._tools.get(update.tool_call_id)
        if block is None:
            block = self._tools[update.tool_call_id] = ToolCallBlock(update.tool_call_id, self.terminals.shown)
            self.frames.append(block)
        block.merge(update, cancelling=self._cancelling)
        self.record.activity.take(wire_shape(update))
        block.summary = self.record.activity.calls.get(update.tool_call_id)
        self.frames.mark(block)
        for terminal_id in self.terminals.display(update.field_meta):
            self.terminal_changed(terminal_id)

    def _plan(self, plan_id: str) -> PlanBlock:
        self.record.agent_text.interrupt()
        self.close_message()
        block = self._plans.get(plan_id)
        if block is None:
            block = self._plans[plan_id] = PlanBlock(plan_id)
            self.frames.append(block)
        self.frames.mark(block)
        return block

    def _plan_content(self, plan: Any) -> None:
        block = self._plan(plan.plan_id)
        if isinstance(plan, schema.PlanUpdateItems):
            block.set_entries(plan.entries)
            self.record.activity.take_plan(e.model_dump(mode="json", by_alias=True) for e in plan.entries)
        elif isinstance(plan, schema.PlanUpdateMarkdown):
            block.entries, block.markdown, block.uri = [], plan.content, None
            self.record.activity.take_plan_text(plan.content)
        else:
            block.entries, block.markdown, block.uri = [], None, plan.uri

    def _remove_plan(self, plan_id: str) -> None:
        block = self._plans.pop(plan_id, None)
        if block is None:
            self.line(f"plan-removed:{plan_id}", describe.clip(f"Plan removed: {plan_id}"))
            return
        self.frames.remove(block)
