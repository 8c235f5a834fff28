"""How the record reads a tool call and a plan entry: one line each, its last lines of output, a budget.

A call's line is a glyph, its title, then what it did, its status, its target, where, its
diffs' sizes and its exit; a command's output is shown as its last ``OUTPUT_LINES`` lines. The
tool calls of one turn take at most ``ACTIVITY_BUDGET`` characters in each form of the record,
so the record stays within ``RECORD_BOUND`` whatever number of calls (docs/record.md, 'Size').

Pure: reads the ``ToolCallSummary`` / ``PlanEntry`` of ``nbacp.render.tool_calls``; the
renderers (``turn_record_text``, ``turn_record_html``) and the transcript's tool blocks use it.
"""

from __future__ import annotations

from collections.abc import Iterable

from nbacp.render.tool_calls import LINE_CHARS, PlanEntry, ToolCallSummary, clip

OUTPUT_LINES = 8
"""A command's last lines of output kept in the record."""
MAX_FILES = 8
"""Files listed per edit; more are counted."""

VERBS = {
    "read": "read",
    "edit": "edited",
    "delete": "deleted",
    "move": "moved",
    "search": "searched",
    "execute": "ran a command",
    "think": "thought",
    "fetch": "fetched",
    "switch_mode": "switched mode",
    "other": "called a tool",
}
GLYPH = {"pending": "○", "in_progress": "◐", "completed": "✓", "failed": "✗", "cancelled": "⊘"}
PLAN_GLYPH = {"pending": "○", "in_progress": "◐", "completed": "✓"}
RECORD_BOUND = 64 * 1024
"""The stated bound: a turn's record (each of its forms, UTF-8) stays under 64 KiB when its
prompt and message text are short, whatever number of tool calls (docs/record.md, 'Size')."""
ACTIVITY_BUDGET = 48 * 1024
"""Characters the tool calls of one turn may take in one form of the record (text, markdown or
HTML); the calls past it are counted as "N more tool calls" (docs/record.md, 'Size')."""


def _clip_line(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"


def call_verb(call: ToolCallSummary) -> str:
    return VERBS.get(call.kind, "called a tool" if not call.kind else clip(call.kind, 40))


def output_lines(call: ToolCallSummary) -> list[str]:
    """The last OUTPUT_LINES lines of output, each clipped (its spacing kept: columns stay aligned)."""
    lines = call.output_tail.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return [_clip_line(line) for line in lines[-OUTPUT_LINES:]]


def output_dropped(call: ToolCallSummary) -> bool:
    lines = call.output_tail.rstrip("\n").count("\n") + 1 if call.output_tail.strip() else 0
    return lines > OUTPUT_LINES


def call_facts(call: ToolCallSummary) -> list[str]:
    """The call's one line after its title: what it did, its status, where, its result."""
    parts = [call_verb(call), call.status.replace("_", " ")]
    if call.target and call.target != call.title:
        parts.append(call.target)
    where = [loc for loc in call.locations if loc not in call.diffs]  # an edited file is named once
    if where:
        more = f" (+{len(where) - 4} more)" if len(where) > 4 else ""
        parts.append("at " + ", ".join(where[:4]) + more)
    if call.diffs:
        files = list(call.diffs.values())
        shown = [f"{d.path} {d.size}" + (" (new)" if d.new_file else "") for d in files[:MAX_FILES]]
        more = f" (+{len(files) - MAX_FILES} more files)" if len(files) > MAX_FILES else ""
        parts.append(", ".join(shown) + more)
    if call.exit:
        parts.append(call.exit)
    return parts


def call_line(call: ToolCallSummary) -> str:
    """The call's one line: glyph, title, then what it did, status, target, locations, diff sizes, exit."""
    title = call.title or call.name or call.id
    return " · ".join([f"{GLYPH.get(call.status, '?')} {title}", *call_facts(call)])


def within_budget(rendered: Iterable[str], total: int, budget: int = ACTIVITY_BUDGET) -> tuple[list[str], str]:
    """Rendered calls while they fit ``budget`` characters, and the "N more tool calls" note ("" if none)."""
    kept: list[str] = []
    used = 0
    for piece in rendered:
        if used + len(piece) > budget:
            break
        kept.append(piece)
        used += len(piece)
    left = total - len(kept)
    return kept, (f"… {left:,} more tool call{'s' if left != 1 else ''}" if left else "")


def plan_line(entry: PlanEntry) -> str:
    return f"{PLAN_GLYPH.get(entry.status, '?')} {entry.content}"
