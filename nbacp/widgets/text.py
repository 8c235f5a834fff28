"""Widgets that show agent-supplied strings as plain text, never as markup.

JupyterLab trusts outputs made in the current session, so an agent string rendered as HTML
is script in the person's browser. ipywidgets' ``Label`` and ``Button`` put their text into
the DOM with ``textContent`` / ``createTextNode``, but a Label is then passed to the LaTeX
typesetter (MathJax), which would turn ``$...$`` in agent text into math: not script, but
the person would no longer see the string the agent sent (a hidden ``\\phantom``, a
coloured word, an ``\\href`` link). The ``mathjax_ignore`` / ``tex2jax_ignore`` classes make
MathJax skip the element, so what the person reads is exactly the agent's text.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import ipywidgets as widgets

from nbacp.render.safe_text import NO_TYPESET_CLASSES, comm_safe, safe_text
from nbacp.widgets import shared

__all__ = [
    "NO_TYPESET_CLASSES",
    "no_typeset",
    "safe_text",
    "text_block",
    "text_label",
    "visible_controls",
]


def no_typeset(widget: widgets.DOMWidget) -> widgets.DOMWidget:
    """Mark ``widget`` so the notebook's math typesetter leaves its text alone."""
    for name in NO_TYPESET_CLASSES:
        widget.add_class(name)
    return widget


def text_label(value: str, *classes: str, **kwargs: Any) -> widgets.Label:
    """A Label showing ``value`` as text: no HTML, no math typesetting, no bidi tricks, wrapped.

    Layout and style are the shared ones unless given (never mutate them afterwards).
    """
    kwargs.setdefault("layout", shared.layout())
    kwargs.setdefault("style", shared.label_style())
    return widgets.Label(value=safe_text(value), _dom_classes=(*NO_TYPESET_CLASSES, *classes), **kwargs)


def text_block(value: str, *, max_rows: int = 12, **kwargs: Any) -> widgets.Textarea:
    """A read-only text area for long or multi-line agent text (diffs, JSON, URLs)."""
    rows = max(1, min(max_rows, value.count("\n") + 1))
    area = widgets.Textarea(value=safe_text(value), disabled=True, rows=rows, **kwargs)
    no_typeset(area)
    return area


def visible_controls(value: str) -> str:
    """``value`` with invisible and direction-changing characters shown as ``<U+XXXX>``.

    Bidi overrides and zero-width characters can make a title or URL read differently from
    what it is; a card that asks for consent shows them instead of obeying them. Lone surrogates
    become U+FFFD first (``comm_safe``), so the result can always go onto the comm.
    """
    if value.isprintable():  # no control, format, separator or surrogate character: nothing to show
        return value
    out: list[str] = []
    for char in comm_safe(value):
        category = unicodedata.category(char)
        if category in ("Cc", "Cf", "Zl", "Zp") and char not in "\n\t":
            out.append(f"<U+{ord(char):04X}>")
        else:
            out.append(char)
    return "".join(out)
