"""What a person reads in rendered HTML: its text nodes, in order (tags dropped)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.parser import HTMLParser


class _TextNodes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def numbered_words(html: str | Iterable[str]) -> list[str]:
    """The test corpus' numbered words (``w0``, ``w1``...) shown by one or more HTML documents."""
    parser = _TextNodes()
    for document in [html] if isinstance(html, str) else html:
        parser.feed(document)
    return re.findall(r"w\d+", "".join(parser.parts))
