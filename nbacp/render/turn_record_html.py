"""The turn record and the session header as HTML: what a saved notebook, GitHub and nbviewer show.

The agent's markdown goes through ``nbacp.render.markdown`` (raw HTML off, links http/https/
mailto only, images as links), so the record reads as formatted text and still carries no
markup of the agent's choosing. Everything else (answers, labels, session facts) is escaped
text. The container has the ``tex2jax_ignore`` / ``mathjax_ignore`` classes that MathJax 2
and 3 (JupyterLab, nbviewer, Jupyter Book) skip, and every ``$`` and backslash is written as a
character reference, so a ``$...$`` or ``\\(...\\)`` in agent text is never typeset as math by
a renderer that typesets the HTML source text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from nbacp.render.markdown import render_markdown
from nbacp.render.tool_call_lines import GLYPH, call_facts, output_dropped, output_lines, plan_line, within_budget
from nbacp.render.tool_calls import ActivityLog, ToolCallSummary
from nbacp.render.turn_events import TurnEvents
from nbacp.render.turn_record_text import CHILD_ACTIVITY_BUDGET, answer_labels, edit_diffs, verdict

NO_MATH_CLASSES = "tex2jax_ignore mathjax_ignore"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# character references for what math delimiters are made of, outside tags and attribute values
_TEXT = re.compile(r"(<[^>]*>)|([$\\])")


def no_math(markup: str) -> str:
    """``markup`` with ``$`` and ``\\`` in text written as character references (tags untouched)."""
    return _TEXT.sub(lambda m: m.group(1) or f"&#{ord(m.group(2))};", markup)


def _text(value: str) -> str:
    return no_math(html.escape(_CONTROL.sub("", value)))


def _markdown(value: str) -> str:
    return no_math(render_markdown(_CONTROL.sub("", value)))


def _call_html(call: ToolCallSummary) -> str:
    """One tool call: a line of facts, its diffs folded (``<details>``), its last lines of output."""
    title = call.title or call.name or call.id
    facts = " · ".join(_text(fact) for fact in call_facts(call))
    glyph = GLYPH.get(call.status, "?")
    parts = [f'<li class="nbacp-record-tool">{glyph} <strong>{_text(title)}</strong> · {facts}']
    if call.text and call.status == "failed" and not call.output_tail:
        parts.append(f"<br><em>{_text(call.text)}</em>")
    for diff in list(call.diffs.values())[:8]:
        if diff.text:
            parts.append(
                f"<details><summary>{_text(diff.path)} {_text(diff.size)}</summary>"
                f"<pre>{_text(diff.text)}</pre></details>"
            )
    output = output_lines(call)
    if output:
        dropped = "…\n" if output_dropped(call) else ""
        parts.append(f'<pre class="nbacp-record-output">{_text(dropped + chr(10).join(output))}</pre>')
    parts.append("</li>")
    return "".join(parts)


def _activity_html(activity: ActivityLog | None, budget: int = 48 * 1024) -> Iterator[str]:
    if activity is None:
        return
    if activity.calls:
        kept, more = within_budget((_call_html(c) for c in activity.calls.values()), len(activity.calls), budget)
        note = f'<li class="nbacp-record-more">{_text(more)}</li>' if more else ""
        listed = "".join(kept) + note
        yield f'<div class="nbacp-record-tools"><strong>Tool calls</strong><ul>{listed}</ul></div>'
    if activity.plan:
        entries = "".join(f"<li>{_text(plan_line(e))}</li>" for e in activity.plan)
        yield f'<div class="nbacp-record-plan"><strong>Plan</strong><ul>{entries}</ul></div>'
    elif activity.plan_text:
        yield f'<div class="nbacp-record-plan"><strong>Plan</strong>{_markdown(activity.plan_text)}</div>'


def events_html(events: TurnEvents | None) -> Iterator[str]:
    """Notices (one line each), compactions (folded summary) and subagents (each folded, nested)."""
    if not events:
        return
    for notice in events.notices:
        yield f'<p class="nbacp-record-notice nbacp-notice-{notice.severity}">{_text(notice.line())}</p>'
    for compaction in events.compactions.values():
        summary = compaction.record_summary()
        body = f"<pre>{_text(summary)}</pre>" if summary else ""
        yield (
            f'<details class="nbacp-record-compaction"><summary>{_text(compaction.line())}</summary>{body}</details>'
        )
    for child in events.children.values():
        parts = [f'<details class="nbacp-record-subagent" open><summary>{_text(child.heading())}</summary>']
        if child.description:
            parts.append(f"<p><em>{_text(child.description)}</em></p>")
        text = child.text()
        if text.strip():
            parts.append(f'<div class="nbacp-record-agent">{_markdown(text)}</div>')
        parts.extend(_activity_html(child.activity, CHILD_ACTIVITY_BUDGET))
        lines = child.lines_of()[:50]
        if lines:
            parts.append("<ul>" + "".join(f"<li>{_text(line)}</li>" for line in lines) + "</ul>")
        parts.append("</details>")
        yield "".join(parts)
    for line in events.dropped_lines():
        yield f'<p class="nbacp-record-more">{_text(line)}</p>'


def record_html(
    prompt: str,
    text: str,
    answers: Iterable[Any],
    stop_reason: str | None,
    activity: ActivityLog | None = None,
    events: TurnEvents | None = None,
) -> str:
    """One turn: the prompt ("You"), the agent's text ("Agent"), its tool calls and plan, the answers, the stop."""
    # overflow-wrap: a 3,000-letter word wraps instead of widening the output
    parts = [f'<div class="nbacp-record {NO_MATH_CLASSES}" style="overflow-wrap: anywhere">']
    parts.append('<div class="nbacp-record-you"><strong>You</strong>')
    parts.append(_markdown(prompt) if prompt.strip() else "<p><em>(empty prompt)</em></p>")
    parts.append("</div>")
    parts.append('<div class="nbacp-record-agent"><strong>Agent</strong>')
    parts.append(_markdown(text) if text.strip() else "<p><em>(no message text)</em></p>")
    parts.append("</div>")
    parts.extend(_activity_html(activity))
    parts.extend(events_html(events))
    rows = []
    answers = list(answers)
    for answer, diff in zip(answers, edit_diffs(answers), strict=True):
        label, shown = answer_labels(answer[0])
        asked, answered = _text(answer[1]), _text(verdict(answer))
        fold = f"<details><summary>Diff</summary><pre>{_text(diff)}</pre></details>" if diff else ""
        rows.append(f"<li><strong>{label}:</strong> {asked}<br><strong>{shown}:</strong> {answered}{fold}</li>")
    if rows:
        parts.append('<ul class="nbacp-record-answers">' + "".join(rows) + "</ul>")
    ended = _text(stop_reason) if stop_reason else "not finished"
    parts.append(f'<p class="nbacp-record-stop"><em>Stop reason: {ended}</em></p>')
    parts.append("</div>")
    return "\n".join(parts)


def notes_html(
    title: str, text: str, lines: Iterable[str], answers: Iterable[Any], activity: ActivityLog | None
) -> str:
    """What arrived outside any turn (the connection's inbox), as HTML: once it is static."""
    parts = [f'<div class="nbacp-record nbacp-notes {NO_MATH_CLASSES}" style="overflow-wrap: anywhere">']
    parts.append(f"<p><strong>{_text(title)}</strong></p>")
    if text.strip():
        parts.append(f'<div class="nbacp-record-agent"><strong>Agent</strong>{_markdown(text)}</div>')
    parts.extend(_activity_html(activity))
    shown = [f"<li>{_text(line)}</li>" for line in lines]
    for answer in answers:
        label, verdict_label = answer_labels(answer[0])
        asked, answered = _text(answer[1]), _text(verdict(answer))
        shown.append(f"<li><strong>{label}:</strong> {asked}<br><strong>{verdict_label}:</strong> {answered}</li>")
    if shown:
        parts.append("<ul>" + "".join(shown) + "</ul>")
    parts.append("</div>")
    return "\n".join(parts)


def header_html(facts: Mapping[str, str]) -> str:
    """The session header: one line of facts (title, mode, commands, ...), escaped text."""
    shown = " · ".join(f"<strong>{_text(name)}:</strong> {_text(value)}" for name, value in facts.items())
    return f'<div class="{NO_MATH_CLASSES} nbacp-session-header">{shown}</div>'


def header_text(facts: Mapping[str, str]) -> str:
    return _CONTROL.sub("", " · ".join(f"{name}: {value}" for name, value in facts.items()))
