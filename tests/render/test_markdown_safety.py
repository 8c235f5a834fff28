"""Agent markdown never becomes markup of the agent's choosing (docs/design.md, 'Layers').

Every rendered string is parsed with html.parser and checked against the allow-list: only
the renderer's own tags, links only to http/https/mailto, no <img>, no event handlers.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from nbacp.render.markdown import render_code, render_markdown, safe_href
from nbacp.render.turn_record_text import inert_markdown, record_markdown

ALLOWED_TAGS = {
    "p", "em", "strong", "code", "pre", "ul", "ol", "li", "a", "blockquote",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "br",
    "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
LINK = re.compile(r"^(https?://|mailto:)", re.IGNORECASE)


class Markup(HTMLParser):
    """Everything html.parser sees as markup in a rendered string."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.other: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.other.append("comment")

    def handle_decl(self, decl: str) -> None:
        self.other.append("decl")

    def handle_pi(self, data: str) -> None:
        self.other.append("pi")

    def unknown_decl(self, data: str) -> None:
        self.other.append("cdata")


def markup(html: str) -> Markup:
    parser = Markup()
    parser.feed(html)
    parser.close()
    return parser


def assert_allowed(html: str) -> Markup:
    found = markup(html)
    assert found.other == [], html
    for tag, attrs in found.tags:
        assert tag in ALLOWED_TAGS, f"<{tag}> in {html!r}"
        names = {name for name, _ in attrs}
        if tag == "a":
            assert names <= {"href", "rel", "target"}, html
            href = dict(attrs).get("href") or ""
            assert LINK.match(href), f"link to {href!r}"
        elif tag == "ol":
            assert names <= {"start"} and all((v or "").isdigit() for _, v in attrs), html
        elif tag == "code":
            assert names <= {"class"} and all(re.fullmatch(r"language-[\w+-]*", v or "") for _, v in attrs), html
        else:
            assert not names, f"attributes {names} on <{tag}>"
    return found


PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](java&#x09;script:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x](vbscript:msgbox)",
    "[x](/relative/path)",
    "[x]: javascript:alert(1)\n\n[x]",
    "![a](http://evil/x.png)",
    "![a](javascript:alert(1))",
    "<div onclick=alert(1)>\n\nblock\n\n</div>",
    "<svg><script>alert(1)</script></svg>",
    "<iframe src=http://evil></iframe>",
    "<javascript:alert(1)>",
    "<http://ok.example/a?b=<c>>",
    "<a href='http://x' onmouseover=alert(1)>y</a>",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "&#60;img src=x onerror=alert(1)&#62;",
    "`<b>code</b>`",
    "```html\n<script>alert(1)</script>\n```",
    '```js" onload="alert(1)\nx\n```',
    "| a | b |\n|:-|-:|\n| <img src=x> | [y](javascript:1) |",
    '[t](http://ok.example "title\\" onmouseover=\\"alert(1)")',
    '[t](<http://ok.example/" onmouseover=alert(1) x=">)',
    "<!-- comment --><![CDATA[x]]><?php x ?>",
    "<style>body{display:none}</style>",
    "*<em onclick=1>*",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payloads_never_become_markup(payload: str) -> None:
    html = render_markdown(payload)
    found = assert_allowed(html)
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert not any(tag in ("img", "script", "iframe", "svg", "div", "style") for tag, _ in found.tags)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_code_rendering_keeps_payloads_as_text(payload: str) -> None:
    html = render_code(payload + "\n```\n````\n", "diff")
    found = assert_allowed(html)
    assert [tag for tag, _ in found.tags] == ["pre", "code"]
    assert "".join(found.text).rstrip("\n") == payload + "\n```\n````"


def test_allowed_links_images_and_structure_render() -> None:
    html = render_markdown(
        "# T\n\n**b** *i* `c`\n\n> q\n\n1. one\n2. two\n\n- x\n\n---\n\n"
        "[ok](https://ok.example/p?q=1) <mailto:a@b.example> <http://auto.example>\n\n"
        "![alt text](https://img.example/x.png)\n\n| h |\n|---|\n| c |"
    )
    found = assert_allowed(html)
    hrefs = [dict(a)["href"] for t, a in found.tags if t == "a"]
    assert hrefs == [
        "https://ok.example/p?q=1",
        "mailto:a@b.example",
        "http://auto.example",
        "https://img.example/x.png",
    ]
    assert {"h1", "strong", "em", "code", "blockquote", "ol", "ul", "hr", "table", "td"} <= {t for t, _ in found.tags}
    assert "[image: alt text]" in "".join(found.text)


def test_rejected_links_stay_visible_as_text() -> None:
    found = assert_allowed(render_markdown("[click](javascript:alert(1)) and ![a](javascript:x)"))
    assert not found.tags[1:]  # only the paragraph
    assert "".join(found.text).strip() == "[click](javascript:alert(1)) and ![a](javascript:x)"


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("http://a", True),
        ("HTTPS://a", True),
        ("mailto:x@y", True),
        ("javascript:x", False),
        ("ftp://a", False),
        ("/rel", False),
        ('http://a"b', False),
        ("", False),
    ],
)
def test_safe_href(url: str, ok: bool) -> None:
    assert safe_href(url) is ok


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("<>&\"'`[]()!:/=\\*_#|~- \nabjsxi") + ["javascript:", "http://"])).map("".join))
def test_fuzzed_markdown_stays_within_the_allow_list(text: str) -> None:
    assert_allowed(render_markdown(text))


# -- the static record -----------------------------------------------------------------
PERMISSIVE = MarkdownIt("commonmark", {"html": True}).enable("table")
"""Stands in for a renderer that trusts raw HTML (JupyterLab's, for outputs of the session)."""


@pytest.mark.parametrize("payload", PAYLOADS)
def test_record_text_is_inert_even_for_a_renderer_that_allows_html(payload: str) -> None:
    html = PERMISSIVE.render(inert_markdown(payload))
    found = markup(html)
    assert {tag for tag, _ in found.tags} <= {"p", "br"}, html
    assert found.other == []
    shown = "".join(found.text).replace("\xa0", " ")
    expected = payload.replace("\n\n", "\n")
    assert [line.strip() for line in shown.split("\n") if line.strip()] == [
        line.strip() for line in expected.split("\n") if line.strip()
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("<>&\"'`[]()!:/=\\*_#|~-+.1 \n\tab") + ["javascript:", "    "])).map("".join))
def test_record_inertness_fuzzed(text: str) -> None:
    found = markup(PERMISSIVE.render(inert_markdown(text)))
    assert {tag for tag, _ in found.tags} <= {"p", "br"}
    shown = "".join(found.text).replace("\xa0", " ")
    assert "".join(shown.split()) == "".join(text.split())


def test_record_lists_prompt_answers_decisions_and_stop_reason() -> None:
    record = record_markdown(
        "Plan the <b>trip</b>",
        "Here is **the plan**. <script>alert(1)</script>",
        [("question", "Which city?", "Paris"), ("permission", "Run `rm -rf /`?", "reject_once")],
        "end_turn",
    )
    html = PERMISSIVE.render(record)
    found = markup(html)
    assert {tag for tag, _ in found.tags} <= {"p", "br", "strong", "em", "div"}
    # the one div is nbacp's own wrapper that keeps MathJax off the agent's text
    divs = [attrs for tag, attrs in found.tags if tag == "div"]
    assert len(divs) == 1 and "mathjax_ignore" in dict(divs[0])["class"].split()
    text = "".join(found.text)
    for expected in (
        "You:", "Plan the <b>trip</b>", "Agent:", "Here is **the plan**. <script>alert(1)</script>",
        "Question:", "Which city?", "Answer:", "Paris",
        "Permission:", "Run `rm -rf /`?", "Decision:", "reject_once", "Stop reason: end_turn",
    ):  # fmt: skip
        assert expected in text
    assert text.index("Which city?") < text.index("Run `rm")
