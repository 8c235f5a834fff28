"""The HTML turn record and the session header: formatted, inert, never math."""

from __future__ import annotations

from html.parser import HTMLParser

from acp import schema
from support.comm_support import walk

from nbacp.client.sessions.header import SessionHeader
from nbacp.client.turns.turn import TurnRecord as Record
from nbacp.render.turn_record_html import header_html, record_html
from nbacp.widgets.transcript import Transcript

ALLOWED = {
    "div",
    "strong",
    "em",
    "p",
    "ul",
    "ol",
    "li",
    "br",
    "code",
    "pre",
    "a",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "hr",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
}


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def tags(markup: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    parser = Tags()
    parser.feed(markup)
    return parser.tags


def test_agent_markdown_is_formatted_and_labelled() -> None:
    html = record_html(
        "deploy *now*", "- item\n- **bold** and `code`\n", [("question", "Where?", "Preview")], "end_turn"
    )
    assert "<strong>You</strong>" in html and "<strong>Agent</strong>" in html
    assert "<li><strong>bold</strong> and <code>code</code></li>" in html and "<em>now</em>" in html
    assert "<strong>Question:</strong> Where?<br><strong>Answer:</strong> Preview" in html
    assert "Stop reason: end_turn" in html
    assert 'class="nbacp-record tex2jax_ignore mathjax_ignore"' in html


def test_hostile_agent_text_stays_text_and_links_are_only_web_or_mail() -> None:
    evil = (
        "<img src=x onerror=alert(1)> <script>alert(2)</script> [x](javascript:alert(3)) "
        "[ok](https://example.com) ![i](https://example.com/i.png)"
    )
    html = record_html(evil, evil, [("permission", evil, evil)], evil)
    found = tags(html)
    assert {tag for tag, _ in found} <= ALLOWED
    hrefs = [value for tag, attrs in found if tag == "a" for name, value in attrs if name == "href"]
    assert hrefs and all(h.startswith("https://") for h in hrefs)
    assert "<img" not in html and "<script" not in html and "&lt;img" in html


def test_math_delimiters_are_never_typeset() -> None:
    html = record_html("$x$", r"costs $5 and $6, \(a\) and $$b$$", [("question", "$q$", r"\[c\]")], "$")
    text = "".join(part for part in html.split("<") if part)  # raw source outside tags
    assert "$" not in html and "\\" not in html and "&#36;" in html and "&#92;" in html
    assert "mathjax_ignore" in text


def test_record_shows_html_beside_plain_text() -> None:
    record = Record("md", "You: a", "<div>a</div>")
    assert record._repr_mimebundle_() == {"text/html": "<div>a</div>", "text/plain": "You: a"}
    assert Record("md")._repr_mimebundle_() == {"text/markdown": "md", "text/plain": "md"}


def test_session_facts_go_to_the_header_not_the_turn() -> None:
    header = SessionHeader()
    t = Transcript(prompt="p", session_facts=header.note)
    commands = schema.AvailableCommandsUpdate(
        session_update="available_commands_update",
        available_commands=[schema.AvailableCommand(name="tools", description="d")],
    )
    t.add(commands)
    t.add(schema.CurrentModeUpdate(session_update="current_mode_update", current_mode_id="plan"))
    t.add(
        schema.SessionInfoUpdate(
            session_update="session_info_update", title="<b>Work</b>", updated_at="2026-01-01T00:00:00Z"
        )
    )
    t.flush()
    assert header.facts == {"Session": "<b>Work</b>", "Mode": "plan", "Commands": "/tools (send /name as a prompt)"}
    assert repr(header) == "[session] Session: <b>Work</b> · Mode: plan · Commands: /tools (send /name as a prompt)"
    assert "&lt;b&gt;Work&lt;/b&gt;" in header_html(header.facts)
    shown = [getattr(w, "value", "") for w in walk(t)]
    assert not any("Commands" in v or "Mode" in v or "Session" in v for v in shown)
    assert len(t.updates) == 3  # still in the turn's updates
