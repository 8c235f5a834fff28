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

import anywidget
import ipywidgets as widgets

from nbacp.render.safe_text import NO_TYPESET_CLASSES, comm_safe, safe_text
from nbacp.widgets import shared
from nbacp.widgets.focus import FOCUS_ESM

__all__ = [
    "NO_TYPESET_CLASSES", "card_style", "no_typeset", "safe_text", "text_block", "text_label", "visible_controls",
]


# ipywidgets' Label is `white-space: nowrap; text-overflow: ellipsis` (a long title or URL
# would be cut off) and a disabled Textarea has opacity 0.6 (measured in JupyterLab 4.6).
CARD_CSS = """
.nbacp-card .nbacp-text {
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  height: auto;
  line-height: 1.4;
  text-overflow: clip;
}
/* ipywidgets 7 has no Label text styles: the same look through classes */
.nbacp-card .nbacp-bold { font-weight: bold; }
.nbacp-card .nbacp-error { color: #b00020; }
.nbacp-card .nbacp-url { font-family: var(--jp-code-font-family, monospace); }
.nbacp-card .nbacp-block textarea:disabled {
  opacity: 1;
  color: var(--jp-content-font-color1, inherit);
  background: var(--jp-layout-color2, #eee);
}
.nbacp-card .nbacp-block textarea {
  font-family: var(--jp-code-font-family, monospace);
}
/* the turn's view: a 3,000-character word wraps instead of being clipped */
.nbacp-transcript .widget-html-content,
.nbacp-transcript .widget-label {
  overflow-wrap: anywhere;
  white-space: normal;
  height: auto;
  text-overflow: clip;
}
.nbacp-transcript .widget-html-content pre {
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}
"""


class CardStyle(anywidget.AnyWidget):
    """Carries ``CARD_CSS`` into the page (anywidget's ``_css``) and the focus keeper
    (``nbacp.widgets.focus``); renders nothing itself."""

    _esm = FOCUS_ESM
    _css = CARD_CSS


def card_style() -> CardStyle:
    """An invisible widget to put first in a card so its text wraps and stays readable.

    One per kernel, shared by every card (a model is a model per view, not per card).
    """
    return shared.card_style(lambda: CardStyle(layout=widgets.Layout(display="none")))


def no_typeset(widget: widgets.DOMWidget) -> widgets.DOMWidget:
    """Mark ``widget`` so the notebook's math typesetter leaves its text alone."""
    for name in NO_TYPESET_CLASSES:
        widget.add_class(name)
    return widget


def text_label(value: str, *classes: str, bold: bool = False, **kwargs: Any) -> widgets.Label:
    """A Label showing ``value`` as text: no HTML, no math typesetting, no bidi tricks, wrapped.

    Layout and style are the shared ones unless given (never mutate them afterwards).
    """
    kwargs.setdefault("layout", shared.layout())
    kwargs.setdefault("style", shared.bold_label_style() if bold else shared.label_style())
    weight = ("nbacp-bold",) if bold else ()
    return widgets.Label(
        value=safe_text(value), _dom_classes=(*NO_TYPESET_CLASSES, "nbacp-text", *weight, *classes), **kwargs
    )


def text_block(value: str, *, max_rows: int = 12, **kwargs: Any) -> widgets.Textarea:
    """A read-only text area for long or multi-line agent text (diffs, JSON, URLs)."""
    rows = max(1, min(max_rows, value.count("\n") + 1))
    area = widgets.Textarea(value=safe_text(value), disabled=True, rows=rows, **kwargs)
    no_typeset(area)
    area.add_class("nbacp-block")
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
