"""Agent markdown to HTML that cannot carry markup of the agent's choosing.

This is the only place in nbacp whose output may be shown as HTML (a turn view's html nodes, as
a tree the page builds without parsing markup: ``nbacp.render.html_tree``).
Why that is safe:

- markdown-it-py runs the CommonMark preset with ``html=False``: raw HTML blocks and inline
  tags are not recognised, so their characters reach the output as escaped text. Every text
  and attribute value is passed through markdown-it's ``escapeHtml`` by the renderer.
- Links (inline, reference and autolinks) are created only when the destination's scheme is
  http, https or mailto (``validateLink``); any other destination (``javascript:``, ``data:``,
  relative paths, entity-encoded schemes, which markdown-it decodes before validating)
  leaves the source text as plain text.
- Images are never emitted as ``<img>``: an image becomes a link to its (validated) source
  with its alt text, so nothing is fetched unless the person clicks.
- The only attributes written are ``href`` (validated, escaped), fixed ``rel``/``target`` on
  links, ``start`` on ordered lists (an integer) and ``class="language-…"`` on code whose
  info word is reduced to ``[A-Za-z0-9_+-]``. Table alignment styles are dropped.
The set of tags that can appear is therefore the renderer's: p, em, strong, code, pre, ul,
ol, li, a, blockquote, h1-h6, hr, br and table parts (tests/render/test_markdown_safety.py checks
this with html.parser on hostile inputs).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from nbacp.render.safe_text import safe_text

_ALLOWED_SCHEME = re.compile(r"^(?:https?://|mailto:)", re.IGNORECASE)
_INFO_WORD = re.compile(r"[^A-Za-z0-9_+-]")
_LINK_ATTRS = ' rel="nofollow noopener noreferrer" target="_blank"'


def safe_href(url: str) -> bool:
    """True for the only destinations a rendered link may have: http, https, mailto."""
    return bool(_ALLOWED_SCHEME.match(url)) and not any(ch in url for ch in "\"'<>\\ \t\r\n")


def _link_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    href = str(tokens[idx].attrGet("href") or "")
    return f'<a href="{escapeHtml(href)}"{_LINK_ATTRS}>'


def _image(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = self.renderInlineAsText(token.children or [], options, env) or "image"
    if not safe_href(src):  # markdown-it empties a destination it refused: no link at all then
        return escapeHtml("[image: " + alt + "]")
    return f'<a href="{escapeHtml(src)}"{_LINK_ATTRS}>{escapeHtml("[image: " + alt + "]")}</a>'


def _cell_open(tag: str) -> Any:
    def rule(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return f"<{tag}>"

    return rule


def _build() -> MarkdownIt:
    # breaks: an agent's single newline is a line break, as chat front ends show it (Zed, claude.ai)
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False, "breaks": True})
    md.enable("table")
    md.validateLink = safe_href  # type: ignore[method-assign]
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("image", _image)
    md.add_render_rule("th_open", _cell_open("th"))
    md.add_render_rule("td_open", _cell_open("td"))
    return md


_MD = _build()


def _scrub(tokens: Sequence[Token]) -> None:
    """Reduce every attribute to the few the renderer is allowed to write."""
    links: list[bool] = []  # for each open link: whether it is dropped (its destination is not allowed)
    for token in tokens:
        if token.type == "link_open":
            # markdown-it keeps a link whose destination it refused (or that was empty, ``[]()``)
            # with href="": such a link is dropped, its text stays
            links.append(not safe_href(str(token.attrGet("href") or "")))
            if links[-1]:
                token.type, token.tag, token.nesting, token.content, token.attrs = "text", "", 0, "", {}
        elif token.type == "link_close" and links and links.pop():
            token.type, token.tag, token.nesting, token.content = "text", "", 0, ""
        if token.type == "fence":
            word = token.info.split(maxsplit=1)[0] if token.info.strip() else ""
            token.info = _INFO_WORD.sub("", word)
        elif token.type == "ordered_list_open":
            start = token.attrGet("start")
            token.attrs = {"start": int(start)} if isinstance(start, int | str) and str(start).isdigit() else {}
        elif token.type not in ("link_open", "image"):
            token.attrs = {}
        if token.children:
            _scrub(token.children)


def render_markdown(text: str) -> str:
    """Sanitized HTML for agent markdown (see the module docstring for why it is inert)."""
    env: dict[str, Any] = {}
    tokens = _MD.parse(safe_text(text), env)
    _scrub(tokens)
    return str(_MD.renderer.render(tokens, _MD.options, env))


def fence(text: str, info: str = "") -> str:
    """A fenced code block that no line of ``text`` can close early."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    marker = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{marker}{_INFO_WORD.sub('', info)}\n{body}{marker}\n"


def render_code(text: str, info: str = "") -> str:
    """Preformatted text (tool output, diffs) through the same sanitizing renderer."""
    return render_markdown(fence(text, info))
