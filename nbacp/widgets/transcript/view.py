"""The transcript of one turn: every session update, rendered into one container widget.

``add`` only updates model state (O(size of the update)); widgets change in frames, at most
one frame per ``FRAME`` seconds per transcript, so a fast agent cannot flood the front end
and a long message costs linear time overall (see ``nbacp.render.stream``). Without a
running event loop each ``add`` renders at once, since nothing would run a later frame.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
from acp import schema

from nbacp.form.card_answer import CardAnswer
from nbacp.render.markdown import render_markdown
from nbacp.render.tool_calls import ActivityLog
from nbacp.render.turn_record_html import notes_html, record_html
from nbacp.render.turn_record_text import notes_text, record_markdown, record_text
from nbacp.updates import UpdateLog, UpdateView
from nbacp.widgets import shared
from nbacp.widgets.text import NO_TYPESET_CLASSES, card_style
from nbacp.widgets.transcript import describe
from nbacp.widgets.transcript.blocks import (
    Block,
    CardBlock,
    LineBlock,
    MessageBlock,
    PlanBlock,
    ToolCallBlock,
    WriteBlock,
)
from nbacp.widgets.transcript.terminals import TerminalText, display_updates, exit_line

FRAME = 0.05
PAGE = 32
"""Blocks per page: the transcript's children are pages of blocks, so adding a block (a card)
re-sends one page's ids, not every block's (docs/notebooks.md, 'What a card costs')."""
_CHUNK_ROLE: dict[type, str] = {
    schema.AgentMessageChunk: "agent",
    schema.AgentThoughtChunk: "thought",
    schema.UserMessageChunk: "user",
}


class Transcript(widgets.VBox):  # type: ignore[misc]  # ipywidgets is untyped
    """The live view of a turn plus what the client reports from it (text, updates, answers)."""

    def __init__(
        self,
        prompt: str = "",
        *,
        frame: float = FRAME,
        seal_at: int = 1024,
        updates: UpdateLog | None = None,
        session_facts: Callable[[Any], bool] | None = None,
        root: str = "",
        **kwargs: Any,
    ) -> None:
        """``updates``: the session's log, which the client fills (the transcript then keeps no
        copy, and ``updates`` is the window of it this transcript saw); without one it keeps its own.
        ``session_facts``: takes session-level updates (mode, commands, title) shown once per
        session instead of as lines in every turn; returns True for those it took.
        ``root``: the session's folder, so the record names files under it relative to it."""
        kwargs.setdefault("_dom_classes", ("nbacp-transcript",))
        super().__init__(**kwargs)
        self.prompt = prompt
        self.frame = frame
        self.seal_at = seal_at
        self._owns_log = updates is None
        self._log = UpdateLog() if updates is None else updates
        self._updates = self._log.view(len(self._log))
        self._session_facts = session_facts
        self.answers: list[CardAnswer] = []
        self.activity = ActivityLog(root)  # the tool calls and plan, for the record (nbacp.render.tool_calls)
        self._writes = 0  # files written through the client in this turn (their record ids)
        self.stop_reason: str | None = None
        self.frames = 0  # how many frames changed the view (for tests and benchmarks)
        self._text: list[str] = []
        self._text_break = False  # something other than agent text came since the last agent chunk
        self._agent_message_id: str | None = None
        self._text_length = 0
        self._breaks: list[int] = []  # offsets in the raw agent text where a new message began
        self._blocks: list[Block] = []
        self._dirty: dict[int, Block] = {}
        self._layout_dirty = False
        self._current: MessageBlock | None = None
        self._tools: dict[str, ToolCallBlock] = {}
        self._cancelling = False
        self._plans: dict[str, PlanBlock] = {}
        self._lines: dict[str, LineBlock] = {}
        self._unsupported: dict[str, int] = {}
        self._terminals: dict[str, str] = {}  # what each terminal's tool calls show (terminals.TerminalText.shown)
        self._terminal_texts: dict[str, TerminalText] = {}
        self._handle: asyncio.TimerHandle | None = None
        self._last_frame: float | None = None
        self._pages: list[widgets.VBox] = []
        # the person's text, through the same sanitizing render all the same
        header = widgets.HTML(value=render_markdown(prompt), _dom_classes=(*NO_TYPESET_CLASSES, "nbacp-prompt"))
        self._append(CardBlock(card_style()))  # the page CSS (long words wrap)
        if prompt:  # labelled as in the record: You, then Agent on the first agent message
            you = widgets.Label(value="You", _dom_classes=(*NO_TYPESET_CLASSES, "nbacp-role"))
            header = widgets.VBox(children=(you, header), _dom_classes=("nbacp-you",))
        self._append(CardBlock(header))
        self._agent_labelled = not prompt
        self.flush()

    # -- what the client reads -------------------------------------------------------
    @property
    def updates(self) -> UpdateView:
        """Every update this transcript was given, in order (held once, in the log)."""
        return self._updates

    @property
    def text(self) -> str:
        """All agent_message_chunk text of the turn, in arrival order."""
        if len(self._text) > 1:
            self._text = ["".join(self._text)]
        return _with_breaks(self._text[0], self._breaks) if self._text else ""

    def __repr__(self) -> str:
        # The cell's text/plain: stable, unlike ipywidgets' default repr of the whole tree.
        prompt = self.prompt if len(self.prompt) <= 60 else self.prompt[:57] + "..."
        return f"<nbacp turn: {prompt!r}>" if self.prompt else "<nbacp inbox>"

    def record_markdown(self) -> str:
        """The static, widget-free record of the turn (inert markdown, see nbacp.render.turn_record_text)."""
        return record_markdown(self.prompt, self.text, self.answers, self.stop_reason, self.activity)

    def record_text(self) -> str:
        """The record as plain text (``text/plain``: nbval, terminals)."""
        return record_text(self.prompt, self.text, self.answers, self.stop_reason, self.activity)

    def record_html(self) -> str:
        """The record as HTML (what a saved notebook shows; docs/record.md)."""
        return record_html(self.prompt, self.text, self.answers, self.stop_reason, self.activity)

    def notes(self, title: str) -> tuple[str, str] | None:
        """(text, HTML) of what this view holds outside any turn (the inbox), or None when it holds nothing."""
        skip = ("connection-log",)
        lines = [line.text for key, line in self._lines.items() if key not in skip]
        if not (lines or self.answers or self.text or self.activity.calls):
            return None
        parts = (title, self.text, lines, self.answers, self.activity)
        return notes_text(*parts), notes_html(*parts)

    # -- what the client calls -------------------------------------------------------
    def add(self, update: Any) -> None:
        """Take any session update; unknown or malformed ones become a compact line."""
        if self._owns_log:
            self._log.append(update)
        try:
            self._dispatch(update)
        except Exception as error:  # an agent's odd update must never break the turn
            self._unsupported_line(update, f"{type(error).__name__}")
        self._schedule()

    def add_card(self, card: widgets.Widget) -> None:
        """Place an interactive card after everything received so far.

        Once answered (settled), its summary line takes its place and its model is closed
        (docs/notebooks.md, 'What a card costs').
        """
        self._close_message()
        block = CardBlock(card)
        self._append(block)
        self.flush()
        on_settle = getattr(card, "on_settle", None)
        if on_settle is None:
            return
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None

        def settled(summary: str) -> None:
            # A card settles inside its own message handler, maybe on a kernel subshell thread
            # (docs/kernels.md, 'Subshells'): the transcript changes on its own loop, afterwards.
            if loop is None or loop.is_closed():
                self._card_answered(block, summary)
            else:
                loop.call_soon_threadsafe(self._card_answered, block, summary)

        on_settle(settled)

    def _card_answered(self, block: CardBlock, summary: str) -> None:
        """The card is answered: its summary line takes its place, then the card's model closes,
        so an answered card costs the page and the kernel one line of text (its Python object
        stays readable for whoever holds it: ``view.form``, ``view.response``)."""
        card = block.answered(summary)
        if card is None:
            return
        self._layout_dirty = True
        self.flush()  # the page has the line before the card's model goes
        card.close()

    def note_answers(self, answers: list[CardAnswer]) -> None:
        """An answered card's typed answers, for ``result.answers`` and the record (docs/record.md, 'Answers')."""
        self.answers.extend(answers)

    def note_line(self, key: str, text: str) -> None:
        """Show one plain line (an extension notification, an agent status); the same key replaces it."""
        self._close_message()
        self._line(key, describe.clip(text, 300))
        self._schedule()

    def note(self, text: str) -> None:
        """The connection's latest log line (a refused request, an SDK error): one line, updated."""
        self._line("connection-log", describe.clip(f"Connection: {text}"))
        self._schedule()

    def terminal_output(
        self, terminal_id: str, output: str, *, exit_status: dict[str, Any] | None = None, omitted: int = 0
    ) -> None:
        """Show a client-side terminal's output in the tool calls that embed it: ``output`` is its
        end, after ``omitted`` earlier bytes (not kept, or not handed over)."""
        text = self._terminal_text(terminal_id)
        text.replace(output, cut=omitted > 0)
        if exit_status is not None:
            text.exit = exit_line(exit_status.get("exitCode"), exit_status.get("signal"))
        self._terminal_changed(terminal_id)
        self.activity.terminal_output(terminal_id, self._terminals[terminal_id])
        self._schedule()

    def terminal_shown(self, terminal_id: str) -> str:
        """What the turn shows of a terminal: the end of its output and its exit ("" if none yet)."""
        return self._terminals.get(terminal_id, "")

    def file_written(self, path: str, old_text: str | None, new_text: str, summary: str) -> None:
        """A file the agent wrote through the client: a diff block in the turn."""
        self._text_break = True
        self._close_message()
        self._append(WriteBlock(path, old_text, new_text, summary))
        # the record lists it with the turn's tool calls, as an edit with its +N -M (nbacp.render.tool_calls)
        self._writes += 1
        diff = {"type": "diff", "path": path, "oldText": old_text, "newText": new_text}
        self.activity.take({"sessionUpdate": "tool_call", "toolCallId": f"nbacp-write-{self._writes}",
                            "title": "fs/write_text_file", "kind": "edit", "status": "completed",
                            "content": [diff], "locations": [{"path": path}]})
        self._schedule()

    def _terminal_text(self, terminal_id: str) -> TerminalText:
        text = self._terminal_texts.get(terminal_id)
        if text is None:
            text = self._terminal_texts[terminal_id] = TerminalText()
        return text

    def _terminal_changed(self, terminal_id: str) -> None:
        self._terminals[terminal_id] = self._terminal_texts[terminal_id].shown()
        for block in self._tools.values():
            if terminal_id in block.terminal_ids():
                self._mark(block)

    def _display_terminal(self, meta: Any) -> None:
        """claude-agent-acp's and codex-acp's display terminals (docs/files-and-terminals.md)."""
        for terminal_id, kind, value in display_updates(meta):
            text = self._terminal_text(terminal_id)
            if kind == "output":
                text.replace(value)
            elif kind == "delta":
                text.append(value)
            else:
                text.exit = value
            self._terminal_changed(terminal_id)

    def cancel_tools(self) -> None:
        """The person cancelled the turn: its unfinished tool calls show as cancelled, not failed."""
        self._cancelling = True
        self.activity.cancel()
        for block in self._tools.values():
            if block.cancel():
                self._mark(block)
        self._schedule()

    def finish(self, stop_reason: str) -> None:
        """End the turn: render everything pending now and show the stop reason."""
        self.stop_reason = stop_reason
        if stop_reason == "cancelled":  # ACP: the turn's unfinished tool calls end cancelled with it
            self.cancel_tools()
        self._updates = self._updates.freeze()  # the turn's updates end here; the log goes on
        self._close_message()
        self._append(LineBlock(f"Turn ended: {describe.clip(stop_reason, 80)}", "nbacp-stop"))
        self.flush()

    def flush(self) -> None:
        """Render every pending change now (one frame)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if not self._dirty and not self._layout_dirty:
            return
        dirty, self._dirty = list(self._dirty.values()), {}
        with self.hold_sync():
            for block in dirty:
                block.render()
            if self._layout_dirty:
                self._layout_dirty = False
                self._lay_out()
        self.frames += 1
        try:
            self._last_frame = asyncio.get_running_loop().time()
        except RuntimeError:
            self._last_frame = None

    @property
    def shown(self) -> tuple[widgets.Widget, ...]:
        """The blocks' widgets in order (the transcript's children are pages of them)."""
        return tuple(w for page in self._pages for w in page.children)

    def _lay_out(self) -> None:
        """Put the blocks' widgets into pages of ``PAGE``; only a page whose list changed is
        re-sent (traitlets skips an equal tuple), so an appended card costs one page's ids."""
        shown = [b.widget for b in self._blocks if b.widget is not None]
        groups = [tuple(shown[i : i + PAGE]) for i in range(0, len(shown), PAGE)]
        while len(self._pages) < len(groups):
            self._pages.append(widgets.VBox(layout=shared.layout(), _dom_classes=("nbacp-page",)))
        for page, group in zip(self._pages, groups, strict=False):
            page.children = group
        for page in self._pages[len(groups):]:
            page.close()
        del self._pages[len(groups):]
        self.children = tuple(self._pages)

    # -- frames ----------------------------------------------------------------------
    def _schedule(self) -> None:
        if self._handle is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        wait = 0.0 if self._last_frame is None else self._last_frame + self.frame - loop.time()
        self._handle = loop.call_later(max(wait, 0.0), self._on_frame)

    def _on_frame(self) -> None:
        self._handle = None
        self.flush()

    # -- state -----------------------------------------------------------------------
    def _append(self, block: Block) -> None:
        self._blocks.append(block)
        self._mark(block)
        self._layout_dirty = True

    def _mark(self, block: Block) -> None:
        self._dirty[id(block)] = block
        if block.widget is None:
            self._layout_dirty = True

    def _close_message(self) -> None:
        if self._current is not None:
            self._current.closed = True
            self._mark(self._current)
            self._current = None

    def _line(self, key: str, text: str) -> None:
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = LineBlock(text)
            self._append(line)
        line.text = text
        self._mark(line)

    def _unsupported_line(self, update: Any, why: str = "") -> None:
        kind = describe.update_kind(update)
        self._unsupported[kind] = count = self._unsupported.get(kind, 0) + 1
        times = f" (×{count})" if count > 1 else ""
        reason = f" ({why})" if why else ""
        self._line(f"unsupported:{kind}", f"Unsupported update: {kind}{reason}{times}")

    def _dispatch(self, update: Any) -> None:
        if self._session_facts is not None and self._session_facts(update):
            return
        role = _CHUNK_ROLE.get(type(update))
        if role is not None:
            self._chunk(role, update)
        elif isinstance(update, schema.ToolCallStart | schema.ToolCallProgress):
            self._text_break = True
            self._close_message()
            block = self._tools.get(update.tool_call_id)
            if block is None:
                block = self._tools[update.tool_call_id] = ToolCallBlock(update.tool_call_id, self._terminals)
                self._append(block)
            block.merge(update, cancelling=self._cancelling)
            self.activity.take(update.model_dump(mode="json", by_alias=True, exclude_none=True))
            block.summary = self.activity.calls.get(update.tool_call_id)
            self._mark(block)
            self._display_terminal(update.field_meta)
        elif isinstance(update, schema.AgentPlanUpdate):
            self._plan("").set_entries(update.entries)
            self.activity.take_plan(e.model_dump(mode="json", by_alias=True) for e in update.entries)
        elif isinstance(update, schema.AgentPlanContentUpdate):
            self._plan_content(update.plan)
        elif isinstance(update, schema.AgentPlanRemovedUpdate):
            self._remove_plan(update.plan_id)
        elif isinstance(update, schema.AvailableCommandsUpdate):
            self._line("commands", describe.commands(update))
        elif isinstance(update, schema.CurrentModeUpdate):
            self._line("mode", describe.clip(f"Mode: {update.current_mode_id}"))
        elif isinstance(update, schema.ConfigOptionUpdate):
            self._line("config", describe.config(update))
        elif isinstance(update, schema.SessionInfoUpdate):
            self._line("session", describe.session_info(update))
        elif isinstance(update, schema.UsageUpdate):
            self._line("usage", describe.usage(update))
        else:
            self._unsupported_line(update)

    def _chunk(self, role: str, chunk: Any) -> None:
        content = chunk.content
        if not isinstance(content, schema.TextContentBlock):
            self._text_break = True
            self._close_message()
            self._append(LineBlock(describe.content_block(content), f"nbacp-{role}-content"))
            return
        if role == "agent":
            # separate agent messages (a new message id, or a tool call, thought or plan between)
            # stay separate paragraphs in .text; a card placed mid-message does not split it
            if self._text_length and (self._text_break or chunk.message_id != self._agent_message_id):
                self._breaks.append(self._text_length)
            self._text_break = False
            self._agent_message_id = chunk.message_id
            self._text.append(content.text)
            self._text_length += len(content.text)
        else:
            self._text_break = True
        current = self._current
        if current is None or current.role != role or current.message_id != chunk.message_id:
            self._close_message()
            label = ""
            if role == "agent" and not self._agent_labelled:
                label, self._agent_labelled = "Agent", True
            current = self._current = MessageBlock(role, chunk.message_id, self.seal_at, label=label)
            self._append(current)
        current.append(content.text)
        self._mark(current)

    def _plan(self, plan_id: str) -> PlanBlock:
        self._text_break = True
        self._close_message()
        block = self._plans.get(plan_id)
        if block is None:
            block = self._plans[plan_id] = PlanBlock(plan_id)
            self._append(block)
        self._mark(block)
        return block

    def _plan_content(self, plan: Any) -> None:
        block = self._plan(plan.plan_id)
        if isinstance(plan, schema.PlanUpdateItems):
            block.set_entries(plan.entries)
            self.activity.take_plan(e.model_dump(mode="json", by_alias=True) for e in plan.entries)
        elif isinstance(plan, schema.PlanUpdateMarkdown):
            block.entries, block.markdown, block.uri = [], plan.content, None
            self.activity.take_plan_text(plan.content)
        else:
            block.entries, block.markdown, block.uri = [], None, plan.uri

    def _remove_plan(self, plan_id: str) -> None:
        block = self._plans.pop(plan_id, None)
        if block is None:
            self._line(f"plan-removed:{plan_id}", describe.clip(f"Plan removed: {plan_id}"))
            return
        self._blocks.remove(block)
        self._dirty.pop(id(block), None)
        self._layout_dirty = True


def _with_breaks(raw: str, breaks: list[int]) -> str:
    """``raw`` with a blank line at each message boundary, counting the newlines already there.

    Counted on the whole text, not per chunk: an agent that streams "\n", then "\nHere is"
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
