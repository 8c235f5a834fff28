"""The parts of a turn's view (the tool call and file write blocks are in ``tool_blocks``).

Each block keeps model state that ``add`` updates cheaply and builds or updates its widgets
only in ``render``, which the transcript calls once per frame.

Agent strings reach the page only as text nodes (``nodes.Text``: text, never markup) or as
``nodes.Html`` values produced by ``nbacp.render.markdown`` (the sanitizing render; see that
module for why). Blocks are drawn from nodes of the turn's one model (``nodes``), not widgets.
"""

from __future__ import annotations

from typing import Any

from acp import schema

from nbacp.render.markdown import render_markdown
from nbacp.render.stream import MarkdownStream
from nbacp.widgets.transcript import describe
from nbacp.widgets.transcript.nodes import Box, Fold, Html, Node, Text, forget, html_view, text_line


def text_label(text: str, css: str) -> Text:
    """Plain text (a text node on the page, not typeset)."""
    return text_line(text, css)


def close_all(items: tuple[Any, ...] | list[Any]) -> None:
    """Replaced nodes leave the page (``nodes.forget``)."""
    forget(items)


class Block:
    """Base: ``widget`` is None until the first frame renders the block: a node, or a card."""

    widget: Node | Any = None

    def render(self) -> None:
        raise NotImplementedError


class CardBlock(Block):
    """A widget placed as it is: an interactive card, or a fixed widget. Once a card is answered
    its place holds its summary line instead (``answered``: a node, the card's model closed)."""

    def __init__(self, card: Any) -> None:
        self.widget = card

    def answered(self, line: Node) -> Any:
        """Show ``line`` in the card's place; returns the card, which the block no longer holds."""
        card, self.widget = self.widget, line
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
        self._body: Box | None = None
        self._groups: list[Box] = []  # sealed pieces, GROUP to a box
        self._tail: Html | None = None

    def append(self, text: str) -> None:
        self.stream.append(text)

    def render(self) -> None:
        if self._body is None:
            self._tail = html_view("")
            self._body = Box((self._tail,), (f"nbacp-{self.role}",))
            self.widget = self._frame(self._body)
        assert self._tail is not None
        if self._final:
            return
        if self.closed:
            self._final = True
            whole = html_view(render_markdown(self.stream.text))
            old = list(self._body.children)
            self._body.children = (whole,)
            close_all(old)
            return
        sealed = self.stream.take_sealed()
        if sealed:
            self._seal(html_view("".join(render_markdown(source) for source in sealed)))
        html = render_markdown(self.stream.tail)
        if self._tail.value != html:
            self._tail.value = html

    def _seal(self, piece: Html) -> None:
        """Add a sealed piece, re-sending one group's ids (at most GROUP), not every piece's.

        The body's own list (one id per GROUP pieces) is re-sent only when a group fills up, so
        what a seal sends does not grow with the pieces sealed before it (docs/notebooks.md, 'What a card costs').
        """
        assert self._body is not None and self._tail is not None
        group = self._groups[-1] if self._groups else None
        if group is None or len(group.children) >= GROUP:
            group = Box((piece,), ("nbacp-sealed",))
            self._groups.append(group)
            self._body.children = (*self._groups, self._tail)
        else:
            group.children = (*group.children, piece)

    def _frame(self, body: Box) -> Node:
        if self.role == "thought":
            return Fold((body,), "Thinking", open=False, classes=("nbacp-thought",))
        if self.role == "user":
            return Box((text_label("User", "nbacp-role"), body))
        if self.label:
            return Box((text_label(self.label, "nbacp-role"), body))
        return body


class LineBlock(Block):
    """A compact one-line status (mode, usage, commands, ...), updated in place."""

    def __init__(self, text: str, css: str = "nbacp-line") -> None:
        self.text = text
        self.css = css

    def render(self) -> None:
        if self.widget is None:
            self.widget = text_label(self.text, self.css)
        elif isinstance(self.widget, Text) and self.widget.value != self.text:
            self.widget.value = self.text


class PlanBlock(Block):
    """A plan (entries with priority and status, a markdown plan or a plan file), in place."""

    def __init__(self, plan_id: str) -> None:
        self.plan_id = plan_id
        self.entries: list[schema.PlanEntry] = []
        self.markdown: str | None = None
        self.uri: str | None = None
        self._box: Box | None = None
        self._shown: tuple[Any, ...] | None = None
        self._shape: tuple[str, int] | None = None

    def set_entries(self, entries: list[schema.PlanEntry]) -> None:
        self.entries, self.markdown, self.uri = list(entries), None, None

    def render(self) -> None:
        if self._box is None:
            self._box = Box(classes=("nbacp-plan",))
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
        items: list[Node] = [text_label(title, "nbacp-plan-title")]
        if self.markdown is not None:
            items.append(html_view(render_markdown(self.markdown)))
        elif self.uri is not None:
            items.append(text_label(describe.clip(f"plan file: {self.uri}"), "nbacp-plan-entry"))
        else:
            items.extend(text_label(describe.plan_entry(e), "nbacp-plan-entry") for e in self.entries)
        self._box.children = tuple(items)
        close_all(old)
