"""The static record of a turn: markdown that stays inert in any renderer that shows it.

The record is displayed as ``text/markdown`` and read later on GitHub, nbviewer, JupyterLab
(which trusts outputs made in the session and does not sanitize them) and nbval. Agent text
in it must therefore not be able to produce tags, links or images in any of those renderers,
whatever their dialect. ``inert_markdown`` gets there without parsing: every ASCII
punctuation character is backslash-escaped (CommonMark and GFM show an escaped punctuation
character literally, so no emphasis, link, image, autolink, raw HTML, heading, list, table or
fence can start), leading indentation becomes non-breaking spaces (so no indented code block,
where escapes would show), and each line ends in a hard break so the text keeps its lines.
The cost is that the agent's formatting is shown as its source characters, as plain text.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from nbacp.render.safe_text import no_math_markdown, safe_text
from nbacp.render.tool_call_lines import call_line, output_dropped, output_lines, plan_line, within_budget
from nbacp.render.tool_calls import ActivityLog
from nbacp.render.turn_events import TurnEvents

CHILD_ACTIVITY_BUDGET = 8 * 1024
"""Characters of one subagent's tool calls in the record."""

_PUNCT = re.compile("([" + re.escape(string.punctuation) + "])")
_LEAD = re.compile(r"^[ \t]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _line(line: str) -> str:
    lead = _LEAD.match(line)
    indent = ""
    if lead:
        indent = "&nbsp;" * len(lead.group(0).replace("\t", "    "))
        line = line[lead.end() :]
    return indent + _PUNCT.sub(r"\\\1", line.rstrip())


def inert_markdown(text: str) -> str:
    """``text`` as markdown that renders as exactly its characters, line by line."""
    text = _CONTROL.sub("", safe_text(text).replace("\r\n", "\n").replace("\r", "\n"))
    paragraphs: list[str] = []
    for block in re.split(r"\n[ \t]*\n", text.strip("\n")):
        lines = [_line(line) for line in block.split("\n")]
        lines = [line for line in lines if line]
        if lines:
            paragraphs.append("  \n".join(lines))
    return "\n\n".join(paragraphs)


def answer_labels(kind: str) -> tuple[str, str]:
    """The record's two labels for an answered card of ``kind``: what was asked, what was answered."""
    return {
        "permission": ("Permission", "Decision"),
        "url": ("Link", "Answer"),
        "auth": ("Sign-in", "Answer"),
        "review": ("Cell edit", "Outcome"),
    }.get(kind, ("Question", "Answer"))


MAX_EDIT_DIFF = 4_000
"""Characters of one cell edit's diff the record keeps (as a tool call's output: 4 KB)."""
EDIT_DIFFS_BUDGET = 8_000
"""Characters of all the cell edits' diffs of one turn; past it an edit keeps its outcome line only."""


def edit_diffs(answers: Iterable[Any]) -> list[str]:
    """Each answer's folded diff ("" for an answer that is not a cell edit), bounded per edit
    (``MAX_EDIT_DIFF``) and per turn (``EDIT_DIFFS_BUDGET``), so the record stays within its
    bound however many cells the agent proposed (docs/record.md, 'Size')."""
    out: list[str] = []
    used = 0
    for answer in answers:
        value = getattr(answer, "value", None)
        diff = value.get("diff") if getattr(answer, "kind", None) == "review" and isinstance(value, dict) else None
        if not isinstance(diff, str) or not diff:
            out.append("")
            continue
        if len(diff) > MAX_EDIT_DIFF:
            diff = diff[:MAX_EDIT_DIFF] + f"\n… ({len(diff) - MAX_EDIT_DIFF:,} more characters)"
        if used + len(diff) > EDIT_DIFFS_BUDGET:
            diff = "(diff left out: this turn's cell edits already fill the record's share for diffs)"
        used += len(diff)
        out.append(safe_text(diff))
    return out


def verdict(answer: Any) -> str:
    """What the record shows after a question: a ``CardAnswer``'s verdict, or an old-style string."""
    shown = getattr(answer, "verdict", None)
    return shown if isinstance(shown, str) else str(answer[2])


def _markdown_lines(text: str) -> str:
    return "  \n".join(inert_markdown(line) or "&nbsp;" for line in text.split("\n"))


def _activity_text(
    activity: ActivityLog | None, indent: str = "  ", form: Callable[[str], str] = str, budget: int = 48 * 1024
) -> Iterator[str]:
    """The tool calls (bounded, measured in the form ``form`` gives them) and the plan, as lines."""
    if activity is None:
        return
    if activity.calls:
        yield form("Tool calls:")

        def rendered() -> Iterator[str]:
            for call in activity.calls.values():
                lines = [indent + call_line(call)]
                if call.text and call.status == "failed" and not call.output_tail:
                    lines.append(f"{indent}    {call.text}")
                output = output_lines(call)
                if output:
                    if output_dropped(call):
                        lines.append(f"{indent}    …")
                    lines.extend(f"{indent}    | {line}" for line in output)
                yield form("\n".join(lines))

        kept, more = within_budget(rendered(), len(activity.calls), budget)
        yield from kept
        if more:
            yield form(indent + more)
    if activity.plan:
        yield form("Plan:")
        yield from (form(indent + plan_line(entry)) for entry in activity.plan)
    elif activity.plan_text:
        yield form("Plan:")
        yield from (form(indent + line) for line in activity.plan_text.strip().split("\n")[:50])


def events_lines(events: TurnEvents | None, form: Callable[[str], str] = str) -> Iterator[str]:
    """Notices, compactions and each subagent (nested: its text, tool calls, lines), bounded."""
    if not events:
        return
    yield from (form(notice.line()) for notice in events.notices)
    for compaction in events.compactions.values():
        yield form(compaction.line())
        summary = compaction.record_summary()
        if summary:
            yield form("\n".join(f"    {line}" for line in summary.split("\n")))
    for child in events.children.values():
        yield form(child.heading())
        if child.description:
            yield form(f"    {child.description}")
        text = child.text().strip()
        if text:
            yield form("\n".join(f"    {line}" for line in text.split("\n")))
        yield from _activity_text(child.activity, "      ", lambda line: form("    " + line), CHILD_ACTIVITY_BUDGET)
        yield from (form(f"    {line}") for line in child.lines_of()[:50])
    yield from (form(line) for line in events.dropped_lines())


def record_markdown(
    prompt: str,
    text: str,
    answers: Iterable[Any],
    stop_reason: str | None,
    activity: ActivityLog | None = None,
    events: TurnEvents | None = None,
) -> str:
    """The widget-free record of one turn (prompt, agent text, tool calls, events, answers, stop)."""
    parts = ["**You:**", inert_markdown(prompt) or "*(empty prompt)*", "**Agent:**"]
    parts.append(inert_markdown(text) or "*(no message text)*")
    lines = list(_activity_text(activity, "", _markdown_lines))
    if lines:
        parts.append("  \n".join(lines))
    nested = list(events_lines(events, _markdown_lines))
    if nested:
        parts.append("  \n".join(nested))
    answers = list(answers)
    for answer, diff in zip(answers, edit_diffs(answers), strict=True):
        label, shown = answer_labels(answer[0])
        parts.append(f"**{label}:** {inert_markdown(answer[1])}  \n**{shown}:** {inert_markdown(verdict(answer))}")
        if diff:
            parts.append(_markdown_lines(diff))
    ended = inert_markdown(stop_reason) if stop_reason else "not finished"
    parts.append(f"*Stop reason: {ended}*")
    return no_math_markdown("\n\n".join(parts))


def record_text(
    prompt: str,
    text: str,
    answers: Iterable[Any],
    stop_reason: str | None,
    activity: ActivityLog | None = None,
    events: TurnEvents | None = None,
) -> str:
    """The same record as plain text, for ``text/plain`` (terminals, nbval's stored outputs)."""
    lines = [f"You: {prompt.strip()}", f"Agent: {text.strip() or '(no message text)'}"]
    lines.extend(_activity_text(activity))
    lines.extend(events_lines(events))
    answers = list(answers)
    for answer, diff in zip(answers, edit_diffs(answers), strict=True):
        label, shown = answer_labels(answer[0])
        lines.append(f"{label}: {answer[1].strip()}\n  {shown}: {verdict(answer).strip()}")
        lines.extend("    " + line for line in diff.split("\n") if diff)
    lines.append(f"Stop reason: {stop_reason or 'not finished'}")
    return _CONTROL.sub("", safe_text("\n".join(lines)))


def notes_text(
    title: str, text: str, lines: Iterable[str], answers: Iterable[Any], activity: ActivityLog | None
) -> str:
    """What arrived outside any turn (the connection's inbox), as plain text: once it is static."""
    out = [title]
    if text.strip():
        out.append(f"Agent: {text.strip()}")
    out.extend(_activity_text(activity))
    out.extend(lines)
    for answer in answers:
        label, shown = answer_labels(answer[0])
        out.append(f"{label}: {answer[1].strip()}\n  {shown}: {verdict(answer).strip()}")
    return _CONTROL.sub("", safe_text("\n".join(out)))
