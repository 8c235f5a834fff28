"""The parts a turn view is drawn from: plain Python objects, not widget models.

A turn is ONE anywidget model (``nbacp.widgets.transcript.view.Transcript``); what it shows is
a tree of nodes kept here, in the kernel, and mirrored in the page by patches (docs/turn-view.md).
A node is a line of text (``Text``: a text node on the page, never markup), a piece of
sanitized HTML (``Html``: output of ``nbacp.render.markdown`` only), a box of nodes (``Box``) or
a collapsible box (``Fold``: a title and its body). A card is not a node: a box lists the card
widget itself, and the page draws the card's own model in its place (it stays one model, with
its own state and messages: docs/cards.md).

Changing a node that is attached to a view (``value``, ``children``, ``titles``...) puts one
small operation into the view's next patch; a node not attached yet only keeps its state, which
goes whole with the node when a box it is in is attached. Nothing here sends anything itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from nbacp.render.html_tree import html_tree
from nbacp.render.safe_text import safe_text

Op = list[Any]
"""One patch operation: ``[code, node id, value]`` (docs/turn-view.md, 'Patches')."""


class Sink(Protocol):
    """Where an attached node's changes go (the turn view's patch buffer)."""

    def op(self, op: Op) -> None: ...

    def new_id(self) -> int: ...


class Node:
    """Base: ``id`` is 0 until the node is attached to a view."""

    # slots: a long turn holds thousands of nodes (a line per answered card), each without a dict
    __slots__ = ("_classes", "_sink", "id")
    kind = ""

    def __init__(self, classes: Iterable[str] = ()) -> None:
        self._classes = tuple(classes)
        self._sink: Sink | None = None
        self.id = 0

    @property
    def _dom_classes(self) -> tuple[str, ...]:
        """The node's CSS classes (named as ipywidgets names a widget's, for the same readings)."""
        return self._classes

    @_dom_classes.setter
    def _dom_classes(self, classes: Iterable[str]) -> None:
        self._classes = tuple(classes)
        self._send("c", list(self._classes))

    def add_class(self, name: str) -> None:
        if name not in self._classes:
            self._dom_classes = (*self._classes, name)

    def remove_class(self, name: str) -> None:
        if name in self._classes:
            self._dom_classes = tuple(c for c in self._classes if c != name)

    @property
    def children(self) -> tuple[Any, ...]:
        return ()

    @property
    def attached(self) -> bool:
        """Whether the node is in a view's tree (its changes are sent)."""
        return self._sink is not None

    def attach(self, sink: Sink, ops: list[Op]) -> None:
        """Give this node (and what it holds) an id in ``sink``; appends its definition to ``ops``
        after its children's, so the page knows every child before the box that lists it."""
        if self._sink is sink:
            return
        self._sink = sink
        self.id = sink.new_id()
        for child in self.children:
            if isinstance(child, Node):
                child.attach(sink, ops)
        ops.append(["n", self.id, self.definition()])

    def detach(self) -> Iterator[int]:
        """Forget the view (the node was replaced); yields the ids the page may forget."""
        if self._sink is None:
            return
        self._sink = None
        yield self.id
        for child in self.children:
            if isinstance(child, Node):
                yield from child.detach()

    def definition(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": self.kind}
        if self._classes:
            out["c"] = list(self._classes)
        return out

    def _send(self, code: str, value: Any) -> None:
        if self._sink is not None:
            self._sink.op([code, self.id, value])


class Text(Node):
    """One line of plain text: a text node on the page (never HTML, never typeset)."""

    __slots__ = ("_value",)
    kind = "text"

    def __init__(self, value: str = "", classes: Iterable[str] = ()) -> None:
        super().__init__(classes)
        self._value = safe_text(value)

    @property
    def value(self) -> str:
        return self._value

    @value.setter
    def value(self, text: str) -> None:
        text = safe_text(text)
        if text != self._value:
            self._value = text
            self._send("v", text)

    def definition(self) -> dict[str, Any]:
        return {**super().definition(), "v": self._value}


class Html(Node):
    """Sanitized HTML: ``value`` must come from ``nbacp.render.markdown`` (render_markdown,
    render_code), which escapes agent text. It goes to the page as a tree of plain values
    (``nbacp.render.html_tree``), which the page builds without parsing markup."""

    __slots__ = ("_value",)
    kind = "html"

    def __init__(self, value: str = "", classes: Iterable[str] = ()) -> None:
        super().__init__(classes)
        self._value = value

    @property
    def value(self) -> str:
        return self._value

    @value.setter
    def value(self, html: str) -> None:
        if html != self._value:
            self._value = html
            if self.attached:
                self._send("v", html_tree(html))

    def definition(self) -> dict[str, Any]:
        return {**super().definition(), "v": html_tree(self._value)}


class Box(Node):
    """Nodes (and cards) one under the other."""

    __slots__ = ("_children",)
    kind = "box"

    def __init__(self, children: Iterable[Any] = (), classes: Iterable[str] = ()) -> None:
        super().__init__(classes)
        self._children = tuple(children)

    @property
    def children(self) -> tuple[Any, ...]:
        return self._children

    @children.setter
    def children(self, items: Iterable[Any]) -> None:
        items = tuple(items)
        if items == self._children:
            return
        self._children = items
        if self._sink is not None:
            ops: list[Op] = []
            for child in items:
                if isinstance(child, Node):
                    child.attach(self._sink, ops)
            for op in ops:
                self._sink.op(op)
            self._send("k", kids(items))

    def definition(self) -> dict[str, Any]:
        return {**super().definition(), "k": kids(self._children)}


class Fold(Box):
    """A collapsible box: ``titles[0]`` heads it (plain text); open when ``selected_index`` is 0
    (named as ipywidgets' Accordion names them, for the same readings)."""

    __slots__ = ("_open", "_title")
    kind = "fold"

    def __init__(
        self, children: Iterable[Any] = (), title: str = "", *, open: bool = False, classes: Iterable[str] = ()
    ) -> None:
        super().__init__(children, classes)
        self._title = safe_text(title)
        self._open = open

    @property
    def titles(self) -> tuple[str]:
        return (self._title,)

    @titles.setter
    def titles(self, titles: Iterable[str]) -> None:
        title = safe_text(next(iter(titles), ""))
        if title != self._title:
            self._title = title
            self._send("T", title)

    @property
    def selected_index(self) -> int | None:
        return 0 if self._open else None

    def definition(self) -> dict[str, Any]:
        return {**super().definition(), "T": self._title, "o": self._open}


def forget(items: Iterable[Any]) -> None:
    """Replaced nodes leave the view: the page may forget them (their elements left with the
    box's new children). Cards are not nodes: an answered one leaves as its model closes."""
    for item in items:
        if isinstance(item, Node):
            sink = item._sink
            ids = list(item.detach())
            if sink is not None and ids:
                sink.op(["x", 0, ids])


def kids(items: Iterable[Any]) -> list[int | str]:
    """A box's children as the page reads them: a node's id, or a card's model id (a string)."""
    out: list[int | str] = []
    for item in items:
        if isinstance(item, Node):
            out.append(item.id)
        else:
            out.append(str(item.model_id))
    return out


def text_line(text: str, css: str) -> Text:
    """A line of plain text with its class. No node carries the classes that keep math
    typesetting off (``NO_TYPESET_CLASSES``): the view's element does, for all of them."""
    return Text(text, (css,))


def html_view(sanitized: str) -> Html:
    """A view of output of the sanitizing render only."""
    return Html(sanitized)


def answered_line(summary: str, classes: Iterable[str]) -> Box:
    """An answered card's place once its model is closed: its summary line as the card drew it
    (docs/cards.md, 'State keys'): a box with the card's classes and ``nbacp-answered`` around
    the summary's text, so the page shows the same line without the card's model."""
    return Box((Text(summary, ("nbacp-summary",)),), (*classes, "nbacp-answered"))


def cards_in(roots: Iterable[Any]) -> list[Any]:
    """The cards (non-node children) anywhere under ``roots``."""
    found: list[Any] = []
    stack = list(roots)
    while stack:
        item = stack.pop()
        if isinstance(item, Node):
            stack.extend(item.children)
        else:
            found.append(item)
    return found
