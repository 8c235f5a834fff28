"""The parts of a turn's view. Each block keeps model state that ``add`` updates cheaply and
builds or updates its widgets only in ``render``, which the transcript calls once per frame.

Agent strings reach the page only as Label values (text, never markup) or as ``HTML`` values
produced by ``nbacp.render.markdown`` (the sanitizing render; see that module for why).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ipywidgets as widgets
from acp import schema

from nbacp.render.markdown import render_code, render_markdown
from nbacp.render.stream import MarkdownStream
from nbacp.render.tool_calls import ToolCallSummary
from nbacp.widgets import shared
from nbacp.widgets.text import NO_TYPESET_CLASSES, safe_text
from nbacp.widgets.transcript import describe


def _label(text: str, css: str) -> widgets.Label:
    """Plain text (a text node, not typeset); classes given at creation cost no extra sync, and
    the shared layout and style make a line ONE model, not three (nbacp.widgets.shared)."""
    return widgets.Label(value=safe_text(text), _dom_classes=(*NO_TYPESET_CLASSES, css),
                         layout=shared.layout(), style=shared.label_style())


def _html(sanitized: str) -> widgets.HTML:
    """An HTML view for output of the sanitizing render only (math is not typeset either)."""
    return widgets.HTML(value=sanitized, _dom_classes=NO_TYPESET_CLASSES)


def _close_all(items: tuple[widgets.Widget, ...] | list[widgets.Widget]) -> None:
    for item in items:
        if isinstance(item, widgets.Box):
            _close_all(list(item.children))
        item.close()


class Block:
    """Base: ``widget`` is None until the first frame renders the block."""

    widget: widgets.Widget | None = None

    def render(self) -> None:
        raise NotImplementedError


class CardBlock(Block):
    """An interactive card placed by the client; it renders itself until it is answered, then
    its place holds its summary as one line of text (docs/notebooks.md, 'What a card costs')."""

    def __init__(self, card: widgets.Widget) -> None:
        self.widget = card
        self.card: widgets.Widget | None = card

    def answered(self, summary: str) -> widgets.Widget | None:
        """Put the summary line in the card's place; returns the card (for the caller to close
        once the page has the line), or None if it was replaced already."""
        card, self.card = self.card, None
        if card is not None:
            self.widget = _label(summary, "nbacp-answered")
        return card

    def render(self) -> None:
        return None


GROUP = 32
"""Sealed pieces of a streamed message per box (see MessageBlock._seal)."""


class MessageBlock(Block):
    """A run of message (or thought) chunks: streamed as sealed pieces plus a live tail,
    rendered whole once when the run ends."""

    def __init__(self, role: str, message_id: str | None, seal_at: int = 2048, *, label: str = "") -> None:
        """``label``: a role label shown above the message ("Agent" on a turn's first message, as in the record)."""
        self.role = role
        self.label = label
        self.message_id = message_id
        self.stream = MarkdownStream(seal_at=seal_at)
        self.closed = False
        self._final = False
        self._body: widgets.VBox | None = None
        self._groups: list[widgets.VBox] = []  # sealed pieces, GROUP to a box
        self._tail: widgets.HTML | None = None

    def append(self, text: str) -> None:
        self.stream.append(text)

    def render(self) -> None:
        if self._body is None:
            self._tail = _html("")
            self._body = widgets.VBox(children=(self._tail,), _dom_classes=(f"nbacp-{self.role}",))
            self.widget = self._frame(self._body)
        assert self._tail is not None
        if self._final:
            return
        if self.closed:
            self._final = True
            whole = _html(render_markdown(self.stream.text))
            old = list(self._body.children)
            self._body.children = (whole,)
            _close_all(old)
            return
        sealed = self.stream.take_sealed()
        if sealed:
            self._seal(_html("".join(render_markdown(source) for source in sealed)))
        html = render_markdown(self.stream.tail)
        if self._tail.value != html:
            self._tail.value = html

    def _seal(self, piece: widgets.HTML) -> None:
        """Add a sealed piece, re-sending one group's ids (at most GROUP), not every piece's.

        The body's own list (one id per GROUP pieces) is re-sent only when a group fills up, so
        what a seal sends does not grow with the pieces sealed before it (docs/notebooks.md, 'What a card costs').
        """
        assert self._body is not None and self._tail is not None
        group = self._groups[-1] if self._groups else None
        if group is None or len(group.children) >= GROUP:
            group = widgets.VBox(children=(piece,), _dom_classes=("nbacp-sealed",))
            self._groups.append(group)
            self._body.children = (*self._groups, self._tail)
        else:
            group.children = (*group.children, piece)

    def _frame(self, body: widgets.VBox) -> widgets.Widget:
        if self.role == "thought":
            return widgets.Accordion(
                children=(body,), titles=("Thinking",), selected_index=None, _dom_classes=("nbacp-thought",)
            )
        if self.role == "user":
            return widgets.VBox(children=(_label("User", "nbacp-role"), body))
        if self.label:
            return widgets.VBox(children=(_label(self.label, "nbacp-role"), body))
        return body


class LineBlock(Block):
    """A compact one-line status (mode, usage, commands, ...), updated in place."""

    def __init__(self, text: str, css: str = "nbacp-line") -> None:
        self.text = text
        self.css = css

    def render(self) -> None:
        if self.widget is None:
            self.widget = _label(self.text, self.css)
        elif isinstance(self.widget, widgets.Label) and self.widget.value != self.text:
            self.widget.value = self.text


class ToolCallBlock(Block):
    """One tool call, merged from its start and progress updates by tool_call_id."""

    def __init__(self, tool_call_id: str, terminals: Mapping[str, str]) -> None:
        self.state: dict[str, Any] = {"id": tool_call_id, "title": None, "kind": None, "status": None}
        self.content: list[Any] = []
        self.locations: list[schema.ToolCallLocation] = []
        self._terminals = terminals
        self._content_dirty = True
        self._shown_terminals: dict[str, str] = {}
        self._terminal_views: dict[str, widgets.HTML] = {}  # updated in place while a command streams
        # what the record knows of the call: output and exit an agent sends in ``_meta`` (codex's
        # terminal_output chunks) for a terminal nbacp does not own (docs/record.md, 'Where agents put what')
        self.summary: ToolCallSummary | None = None
        self._header: widgets.Label | None = None
        self._where: widgets.Label | None = None
        self._content: widgets.VBox | None = None

    def merge(self, update: schema.ToolCallStart | schema.ToolCallProgress, *, cancelling: bool = False) -> None:
        """``cancelling``: the person cancelled the turn; agents report the calls they stop as
        "failed" (ACP has no cancelled status), which is shown as what it is: cancelled."""
        for field in ("title", "kind", "status"):
            value = getattr(update, field)
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
            return "\n".join(self.summary.output_lines())
        return ""

    def terminal_ids(self) -> set[str]:
        return {c.terminal_id for c in self.content if isinstance(c, schema.TerminalToolCallContent)}

    def render(self) -> None:
        if self._header is None:
            self._header = _label("", "nbacp-tool-header")
            self._where = _label("", "nbacp-tool-locations")
            self._content = widgets.VBox()
            self.widget = widgets.VBox(
                children=(self._header, self._where, self._content), _dom_classes=("nbacp-tool-call",)
            )
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
            _close_all(old)
        elif terminals != self._shown_terminals:  # new output only: one value per terminal, no new widgets
            for terminal_id, text in terminals.items():
                view = self._terminal_views.get(terminal_id)
                if view is not None and text != self._shown_terminals.get(terminal_id):
                    view.value = render_code(text) if text else ""
            self._shown_terminals = terminals

    def _item(self, item: Any) -> list[widgets.Widget]:
        if isinstance(item, schema.ContentToolCallContent):
            block = item.content
            if isinstance(block, schema.TextContentBlock):
                return [_html(render_markdown(block.text))]
            if isinstance(block, schema.EmbeddedResourceContentBlock) and isinstance(
                block.resource, schema.TextResourceContents
            ):
                return [
                    _label(describe.content_block(block), "nbacp-tool-item"),
                    _html(render_code(block.resource.text)),
                ]
            return [_label(describe.content_block(block), "nbacp-tool-item")]
        if isinstance(item, schema.FileEditToolCallContent):
            verb = "new file" if item.old_text is None else "edit"
            diff = describe.unified_diff(item) or "(no changes)\n"
            return [
                _label(describe.clip(f"{verb}: {item.path}"), "nbacp-tool-item"),
                _html(render_code(diff, "diff")),
            ]
        if isinstance(item, schema.TerminalToolCallContent):
            text = self._terminal_text(item.terminal_id)
            view = self._terminal_views[item.terminal_id] = _html(render_code(text) if text else "")
            return [_label(describe.clip(f"terminal {item.terminal_id}"), "nbacp-tool-item"), view]
        return [_label(f"[{type(item).__name__}]", "nbacp-tool-item")]


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
        items: list[widgets.Widget] = [_label(line, "nbacp-tool-item")]
        if diff and len(diff) <= MAX_DIFF_CHARS:
            items.append(_html(render_code(diff, "diff")))
        self.widget = widgets.VBox(children=tuple(items), _dom_classes=("nbacp-tool-call", "nbacp-write"))


class PlanBlock(Block):
    """A plan (entries with priority and status, a markdown plan or a plan file), in place."""

    def __init__(self, plan_id: str) -> None:
        self.plan_id = plan_id
        self.entries: list[schema.PlanEntry] = []
        self.markdown: str | None = None
        self.uri: str | None = None
        self._box: widgets.VBox | None = None
        self._shown: tuple[Any, ...] | None = None
        self._shape: tuple[str, int] | None = None

    def set_entries(self, entries: list[schema.PlanEntry]) -> None:
        self.entries, self.markdown, self.uri = list(entries), None, None

    def render(self) -> None:
        if self._box is None:
            self._box = widgets.VBox(_dom_classes=("nbacp-plan",))
            self.widget = self._box
        key = (tuple((e.content, e.priority, e.status) for e in self.entries), self.markdown, self.uri)
        if key == self._shown:
            return
        self._shown = key
        title = "Plan" if not self.plan_id else describe.clip(f"Plan {self.plan_id}", 80)
        old = list(self._box.children)
        shape = ("entries", len(self.entries)) if self.markdown is None and self.uri is None else ("other", 0)
        same_shape, self._shape = shape == self._shape and shape[0] == "entries", shape
        if same_shape:
            for label, entry in zip(old[1:], self.entries, strict=True):  # same shape: update in place
                text = describe.plan_entry(entry)
                if label.value != text:
                    label.value = text
            return
        items: list[widgets.Widget] = [_label(title, "nbacp-plan-title")]
        if self.markdown is not None:
            items.append(_html(render_markdown(self.markdown)))
        elif self.uri is not None:
            items.append(_label(describe.clip(f"plan file: {self.uri}"), "nbacp-plan-entry"))
        else:
            items.extend(_label(describe.plan_entry(e), "nbacp-plan-entry") for e in self.entries)
        self._box.children = tuple(items)
        _close_all(old)
