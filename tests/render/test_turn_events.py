"""The record's notices, compactions and subagents: agent text inert in every form, and bounded."""

from __future__ import annotations

import re

from nbacp.render.turn_events import (
    RECORD_CHILD_CHARS,
    RECORD_SUMMARY_CHARS,
    ChildRecord,
    Compaction,
    Notice,
    TurnEvents,
)
from nbacp.render.turn_record_html import record_html
from nbacp.render.turn_record_text import record_markdown, record_text

HOSTILE = "<img src=x onerror=alert(1)> [click](javascript:alert(1)) $x^2$ \u202eevil"


def events() -> TurnEvents:
    child = ChildRecord("c1")
    child.patch({"title": HOSTILE, "description": HOSTILE, "state": {"state": "idle", "stopReason": "end_turn"}})
    child.text_of = lambda: HOSTILE + "\n" + "y" * (3 * RECORD_CHILD_CHARS)
    compaction = Compaction("k")
    compaction.patch({"status": "completed", "summary": [{"type": "text", "text": HOSTILE + "z" * 50_000}]})
    notice = Notice.from_raw({"severity": "nonsense", "title": HOSTILE})
    return TurnEvents(notices=[notice], compactions={"k": compaction}, children={"c1": child})


def test_agent_text_in_events_is_inert_in_markdown_html_and_text() -> None:
    turn = events()
    html = record_html("p", "t", [], "end_turn", None, turn)
    markdown = record_markdown("p", "t", [], "end_turn", None, turn)
    text = record_text("p", "t", [], "end_turn", None, turn)
    assert "<img" not in html and "href" not in html  # the agent's markdown link is text, not a link
    body = markdown.split("\n", 1)[1].rsplit("</div>", 1)[0]  # inside nbacp's own no-math wrapper
    assert "<img" in HOSTILE and not re.search(r"(?<!\\)[<\[\]]", body)  # every bracket escaped: no tag, no link
    assert "\u202e" not in html + markdown + text  # bidi overrides shown, never obeyed
    assert "Notice (info):" in text  # an unknown severity is info
    assert "Subagent: " in text and "· idle (end_turn)" in text


def test_events_are_bounded_in_the_record() -> None:
    turn = events()
    text = record_text("p", "t", [], "end_turn", None, turn)
    assert text.count("y") <= RECORD_CHILD_CHARS
    assert text.count("z") <= RECORD_SUMMARY_CHARS
    assert len(record_html("p", "t", [], "end_turn", None, turn)) < 3 * (RECORD_CHILD_CHARS + RECORD_SUMMARY_CHARS)
