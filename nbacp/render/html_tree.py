"""Sanitized HTML as a tree of plain values, so the page builds it without parsing markup.

The turn view (js/src/turn_view.js) never parses a string as HTML: nbacp's front-end code has
no ``innerHTML`` at all (js/test/form_choice_keys.test.js checks the sources). What the
sanitizing render made (``nbacp.render.markdown``, the record's ``nbacp.render.turn_record_html``)
goes to it as this tree instead: an element is ``[tag, attributes, *children]`` (attributes
``{}`` or a dict of strings), a text is a string, which the page puts in as a text node. The
page builds only the tags and attributes it allows (its own list, checked again there), so even
a mistake here could not make script or markup of the agent's choosing.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

Tree = list[Any]
"""``[tag, attributes, *children]``; a child is a ``Tree`` or a ``str``."""

VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "wbr"})
FIXED = frozenset({"rel", "target"})
"""Attributes the page writes itself (a link's ``rel``/``target``): not sent."""
BLOCKS = frozenset({"div", "ul", "ol", "table", "thead", "tbody", "tr", "blockquote", "details"})
"""Elements whose whitespace-only text is layout only (dropped)."""


def _attrs(attrs: list[tuple[str, str | None]]) -> dict[str, str]:
    return {name: value or "" for name, value in attrs if name not in FIXED}


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: Tree = ["div", {}]
        self.stack: list[Tree] = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element: Tree = [tag, _attrs(attrs)]
        self.stack[-1].append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].append([tag, _attrs(attrs)])

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth][0] == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        parent = self.stack[-1]
        if parent[0] in BLOCKS and not data.strip():
            return
        if len(parent) > 2 and isinstance(parent[-1], str):
            parent[-1] += data
        else:
            parent.append(data)


def html_tree(html: str) -> list[Any]:
    """The children of ``html`` as trees and strings (``[]`` for "")."""
    if not html:
        return []
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root[2:]


__all__ = ["Tree", "html_tree"]
