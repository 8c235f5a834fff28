"""Identity strings (option values, ids, field names, defaults) as the page holds them, and back.

A card's synced state goes onto the widget comm as UTF-8 JSON: a lone surrogate in any string
of it makes the comm message fail to encode, and the card never shows. Text a person reads is
made safe by ``safe_text``; a string that *names* something (an ``enum`` value, a ``const``, an
option id, a property name, a default) must also come back exactly as the agent sent it, so the
page gets a clean stand-in and the card keeps the way back:

- ``page_safe``: ``safe_text`` (lone surrogates to U+FFFD, bidi marks shown as ``<U+202E>``)
  plus every C0/C1 control but newline and tab shown as ``<U+0000>``, so the stand-in is always
  encodable and reads as what it is. Zero-width joiners stay (emoji sequences), as in ``safe_text``.
- ``PageText``: original -> page string, one to one. Two originals that clean to the same text
  (``"a\\ud800"`` and ``"a\\udbff"``) get distinct page strings (`` (2)``, `` (3)``... appended),
  so whichever the person picks, the original handed back is the one the agent offered.

Pure (no ipywidgets): the widgets' cards use it for every path (a card built directly, or one
the client made from a request the wire ledger already cleaned: docs/protocol.md, 'Agent text').
"""

from __future__ import annotations

import re

from nbacp.render.safe_text import safe_text

_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def page_safe(text: str) -> str:
    """``text`` encodable and visibly itself: no lone surrogate, no obeyed bidi mark, no hidden control."""
    if text.isprintable():  # no control, format or surrogate character: the common case, unchanged
        return text
    return _CONTROLS.sub(lambda m: f"<U+{ord(m.group(0)):04X}>", safe_text(text))


class PageText:
    """Original strings and the page strings that stand for them, one to one (see the module docstring).

    One table per namespace whose values must stay distinct (a form's field names; one field's
    options): a field name and an option value may share a page string, two options may not.
    """

    def __init__(self) -> None:
        self._page: dict[str, str] = {}
        self._original: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self._page)

    def page(self, original: str) -> str:
        """The page string for ``original`` (the same one every time it is asked)."""
        known = self._page.get(original)
        if known is not None:
            return known
        clean = candidate = page_safe(original)
        n = 1
        while candidate in self._original:  # another original already stands there
            n += 1
            candidate = f"{clean} ({n})"
        self._page[original] = candidate
        self._original[candidate] = original
        return candidate

    def copy(self) -> PageText:
        """A table with the same strings, that grows on its own from here."""
        table = PageText()
        table._page = dict(self._page)
        table._original = dict(self._original)
        return table

    def original(self, page: str) -> str:
        """The original behind ``page``; a string the page made up itself (typed text) as it is."""
        return self._original.get(page, page)

    def changed(self) -> bool:
        """Whether any page string differs from its original (else the mapping is the identity)."""
        return any(page != original for original, page in self._page.items())
