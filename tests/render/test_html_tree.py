"""Sanitized HTML as a tree (nbacp.render.html_tree): the page builds it without parsing markup
(js/src/dom_tree.js), so what the tree holds must be what the HTML showed."""

from __future__ import annotations

from typing import Any

from nbacp.render.html_tree import html_tree
from nbacp.render.markdown import render_code, render_markdown

HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    "**bold** and `<b>code</b>` &amp; &lt;x&gt;",
    "- one\n- two\n\n3. three\n",
    "```diff\n-<a>\n+<b>\n```",
]
TAGS = {"p", "em", "strong", "code", "pre", "ul", "ol", "li", "a", "blockquote", "hr", "br", "h1", "h2"}


def walk(items: list[Any]) -> list[Any]:
    out, stack = [], list(items)
    while stack:
        item = stack.pop()
        out.append(item)
        if isinstance(item, list):
            stack.extend(item[2:])
    return out


def text_of(items: list[Any]) -> str:
    return "".join(i if isinstance(i, str) else text_of(i[2:]) for i in items)


def test_a_tree_holds_the_renders_tags_and_its_text_as_text() -> None:
    for source in HOSTILE:
        tree = html_tree(render_markdown(source))
        for item in walk(tree):
            if isinstance(item, list):
                assert item[0] in TAGS, (source, item)
                assert set(item[1]) <= {"href", "start", "class"}, (source, item)
                assert item[1].get("href", "https://").startswith(("https://", "http://", "mailto:"))
    assert "<script>alert(1)</script>" in text_of(html_tree(render_markdown(HOSTILE[0])))  # text, not a tag
    assert html_tree(render_markdown("[click](javascript:alert(1))")) == [["p", {}, "[click](javascript:alert(1))"]]


def test_preformatted_text_keeps_every_character() -> None:
    text = "a  <b>\n\tc & d\n\n"
    [pre] = html_tree(render_code(text))
    assert pre[0] == "pre" and text_of([pre]) == text


def test_the_records_classes_and_folds_survive() -> None:
    tree = html_tree(
        '<div class="nbacp-record x" style="a"><details open><summary>S</summary><pre>p</pre></details></div>'
    )
    assert tree == [
        [
            "div",
            {"class": "nbacp-record x", "style": "a"},
            ["details", {"open": ""}, ["summary", {}, "S"], ["pre", {}, "p"]],
        ]
    ]
    assert html_tree("") == []
