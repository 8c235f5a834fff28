"""The blocks of what the agent did with tools: a tool call (merged from its updates by id,
with the terminals it embeds) and a file written through the client (its diff).

Like every block (``nbacp.widgets.transcript.blocks``), they keep model state that ``add``
updates cheaply and build or update their nodes only in ``render``; agent strings reach the
page only as text nodes or as output of the sanitizing render.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from acp import schema

from nbacp.render.markdown import render_code, render_markdown
from nbacp.render.tool_call_lines import output_lines
from nbacp.render.tool_calls import ToolCallSummary
from nbacp.widgets.transcript import describe
from nbacp.widgets.transcript.blocks import Block, close_all, text_label
from nbacp.widgets.transcript.nodes import Box, Html, Node, Text, html_view


class ToolCallBlock(Block):
    """One tool call, merged from its start and progress updates by tool_call_id."""

    def __init__(self, tool_call_id: str, terminals: Mapping[str, str]) -> None:
        self.state: dict[str, Any] = {"id": tool_call_id, "title": None, "name": None, "kind": None, "status": None}
        self.content: list[Any] = []
        self.locations: list[schema.ToolCallLocation] = []
        self._terminals = terminals
        self._content_dirty = True
        self._shown_terminals: dict[str, str] = {}
        self._terminal_views: dict[str, Html] = {}  # updated in place while a command streams
        # what the record knows of the call: output and exit an agent sends in ``_meta`` (codex's
        # terminal_output chunks) for a terminal nbacp does not own (docs/record.md, 'Where agents put what')
        self.summary: ToolCallSummary | None = None
        self._header: Text | None = None
        self._where: Text | None = None
        self._content: Box | None = None

    def merge(self, update: schema.ToolCallStart | schema.ToolCallProgress, *, cancelling: bool = False) -> None:
        """``cancelling``: the person cancelled the turn; agents report the calls they stop as
        "failed" (ACP has no cancelled status), which is shown as what it is: cancelled."""
        for field in ("title", "name", "kind", "status"):
            value = getattr(update, field, None)  # name: schema 1.22 (nbacp.client.wire.sdk_compat.with_tool_name)
            if field == "status" and cancelling and value == "failed":
                value = "cancelled"
            if value is not None:
                self.state[field] = value
        if update.content is not None:
            self.content = list(update.content)
            self._content_dirty = True
        if update.locations is not None:
            self.locations = list(update.locations)

    def cancel(self) -> bool:
        """ACP: on session/cancel the client marks the turn's unfinished tool calls cancelled."""
        if self.state["status"] in ("completed", "failed", "cancelled"):
            return False
        self.state["status"] = "cancelled"
        return True

    def _terminal_text(self, terminal_id: str) -> str:
        """A client terminal's output, else what the agent streamed in ``_meta`` (its last lines)."""
        text = self._terminals.get(terminal_id)
        if text:
            return text
        if self.summary is not None and self.summary.output_tail:
            return "\n".join(output_lines(self.summary))
        return ""

    def terminal_ids(self) -> set[str]:
        return {c.terminal_id for c in self.content if isinstance(c, schema.TerminalToolCallContent)}

    def render(self) -> None:
        if self._header is None:
            self._header = text_label("", "nbacp-tool-header")
            self._where = text_label("", "nbacp-tool-locations")
            self._content = Box()
            self.widget = Box((self._header, self._where, self._content), ("nbacp-tool-call",))
        assert self._where is not None and self._content is not None
        header = describe.tool_header(self.state)
        if self.summary is not None and self.summary.exit:
            header += f" · {self.summary.exit}"
        if self._header.value != header:
            self._header.value = header
        where = describe.locations(self.locations)
        if self._where.value != where:
            self._where.value = where
        terminals = {tid: self._terminal_text(tid) for tid in self.terminal_ids()}
        if self._content_dirty:
            self._content_dirty = False
            self._shown_terminals = terminals
            self._terminal_views = {}
            old = list(self._content.children)
            self._content.children = tuple(w for item in self.content for w in self._item(item))
            close_all(old)
        elif terminals != self._shown_terminals:  # new output only: one value per terminal, no new widgets
            for terminal_id, text in terminals.items():
                view = self._terminal_views.get(terminal_id)
                if view is not None and text != self._shown_terminals.get(terminal_id):
                    view.value = render_code(text) if text else ""
            self._shown_terminals = terminals

    def _item(self, item: Any) -> list[Node]:
        if isinstance(item, schema.ContentToolCallContent):
            block = item.content
            if isinstance(block, schema.TextContentBlock):
                return [html_view(render_markdown(block.text))]
            if isinstance(block, schema.EmbeddedResourceContentBlock) and isinstance(
                block.resource, schema.TextResourceContents
            ):
                return [
                    text_label(describe.content_block(block), "nbacp-tool-item"),
                    html_view(render_code(block.resource.text)),
                ]
            return [text_label(describe.content_block(block), "nbacp-tool-item")]
        if isinstance(item, schema.FileEditToolCallContent):
            verb = "new file" if item.old_text is None else "edit"
            diff = describe.unified_diff(item) or "(no changes)\n"
            return [
                text_label(describe.clip(f"{verb}: {item.path}"), "nbacp-tool-item"),
                html_view(render_code(diff, "diff")),
            ]
        if isinstance(item, schema.TerminalToolCallContent):
            text = self._terminal_text(item.terminal_id)
            view = self._terminal_views[item.terminal_id] = html_view(render_code(text) if text else "")
            return [text_label(describe.clip(f"terminal {item.terminal_id}"), "nbacp-tool-item"), view]
        return [text_label(f"[{type(item).__name__}]", "nbacp-tool-item")]


MAX_DIFF_CHARS = 200_000
"""A write's diff longer than this is not shown (its +N -M line is)."""


class WriteBlock(Block):
    """A file the agent wrote through the client (``fs/write_text_file``): its path, +N -M and diff."""

    def __init__(self, path: str, old_text: str | None, new_text: str, summary: str) -> None:
        self.edit = schema.FileEditToolCallContent(type="diff", path=path, old_text=old_text, new_text=new_text)
        self.summary = summary

    def render(self) -> None:
        if self.widget is not None:
            return
        diff = describe.unified_diff(self.edit) if len(self.edit.new_text) <= MAX_DIFF_CHARS else ""
        line = describe.clip(f"wrote {self.edit.path} ({self.summary})")
        items: list[Node] = [text_label(line, "nbacp-tool-item")]
        if diff and len(diff) <= MAX_DIFF_CHARS:
            items.append(html_view(render_code(diff, "diff")))
        self.widget = Box(items, ("nbacp-tool-call", "nbacp-write"))
