"""What the agent did in a turn, for the record: its tool calls and its plan, folded from the wire.

``ActivityLog`` takes ``tool_call`` / ``tool_call_update`` updates as wire-shaped dicts
(camelCase, ``_meta`` included: what ``model_dump(by_alias=True)`` gives, or the JSON an
agent sent) and keeps one bounded ``ToolCallSummary`` per tool call, in the order the calls
first appeared. Agents put the same facts in different places (docs/record.md, 'Where agents
put what'): command output in claude's ``rawOutput`` ("Exit code N" then the output), in
codex's ``_meta.terminal_output`` / ``_meta.terminal_output_delta`` chunks with
``_meta.terminal_exit``, nowhere for gemini; a diff's ``oldText`` / ``newText`` are a whole
file (gemini), a hunk region (codex) or the replaced snippet (claude, whose
``_meta.claudeCode.toolResponse.structuredPatch`` has the real hunks). Each summary holds at
most a few KB whatever the agent sends, so a 1,000-call turn costs a bounded record.

Pure: no acp, no widgets; the renderers (``turn_record_text``, ``turn_record_html``) read it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from nbacp.render.safe_text import safe_text

OUTPUT_LINES = 8
"""A command's last lines of output kept in the record."""
OUTPUT_TAIL_CHARS = 4096
"""The output tail kept per call while it streams (only its last lines are shown)."""
LINE_CHARS = 200
"""One line of output, a title or a target is clipped to this many characters."""
DIFF_CHARS = 4096
"""One file's diff text kept for the folded view; longer diffs are cut with a note."""
MAX_FILES = 8
"""Files listed per edit; more are counted."""
MAX_PLAN_ENTRIES = 50

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
FINISHED = ("completed", "failed", "cancelled")
_EXIT_LINE = re.compile(r"\AExit code (-?\d+)\n?")
_FENCE = re.compile(r"\A```[^\n]*\n(.*?)\n?```\s*\Z", re.S)


def clip(text: Any, limit: int = LINE_CHARS) -> str:
    """One line of at most ``limit`` characters (agent strings can be arbitrarily long)."""
    flat = " ".join(safe_text(str(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _clip_line(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"


@dataclass
class FileDiff:
    """One file of an edit: lines added and removed, and the diff text (bounded)."""

    path: str
    added: int = 0
    removed: int = 0
    new_file: bool = False
    text: str = ""

    @property
    def size(self) -> str:
        return f"+{self.added} -{self.removed}"


@dataclass
class ToolCallSummary:
    """One tool call as the record shows it; every field is bounded."""

    id: str
    title: str = ""
    name: str = ""  # the tool's name (schema 1.22): shown where the call has no title
    kind: str = ""
    status: str = "pending"
    locations: list[str] = field(default_factory=list)
    target: str = ""
    diffs: dict[str, FileDiff] = field(default_factory=dict)
    exit: str = ""  # "exit 0", "exit 3", "signal SIGKILL"; "" when unknown
    output_tail: str = ""  # the last OUTPUT_TAIL_CHARS characters of the command's output
    text: str = ""  # the last text content (a result, an error message), one line
    terminal_ids: set[str] = field(default_factory=set)  # client terminals embedded in the call
    root: str = ""  # the session's folder: paths under it are shown relative to it

    @property
    def verb(self) -> str:
        return VERBS.get(self.kind, "called a tool" if not self.kind else clip(self.kind, 40))

    def output_lines(self) -> list[str]:
        """The last OUTPUT_LINES lines of output, each clipped (its spacing kept: columns stay aligned)."""
        lines = self.output_tail.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ").split("\n")
        while lines and not lines[-1].strip():
            lines.pop()
        return [_clip_line(line) for line in lines[-OUTPUT_LINES:]]

    def output_dropped(self) -> bool:
        lines = self.output_tail.rstrip("\n").count("\n") + 1 if self.output_tail.strip() else 0
        return lines > OUTPUT_LINES

    def facts(self) -> list[str]:
        """The call's one line after its title: what it did, its status, where, its result."""
        parts = [self.verb, self.status.replace("_", " ")]
        if self.target and self.target != self.title:
            parts.append(self.target)
        where = [loc for loc in self.locations if loc not in self.diffs]  # an edited file is named once
        if where:
            more = f" (+{len(where) - 4} more)" if len(where) > 4 else ""
            parts.append("at " + ", ".join(where[:4]) + more)
        if self.diffs:
            files = list(self.diffs.values())
            shown = [f"{d.path} {d.size}" + (" (new)" if d.new_file else "") for d in files[:MAX_FILES]]
            more = f" (+{len(files) - MAX_FILES} more files)" if len(files) > MAX_FILES else ""
            parts.append(", ".join(shown) + more)
        if self.exit:
            parts.append(self.exit)
        return parts

    # -- merging ---------------------------------------------------------------------
    def merge(self, update: Mapping[str, Any], *, cancelling: bool = False) -> None:
        for key in ("title", "name", "kind"):
            value = update.get(key)
            if isinstance(value, str) and value:
                setattr(self, key, clip(value, 160))
        status = update.get("status")
        if isinstance(status, str) and status:
            self.status = "cancelled" if cancelling and status == "failed" else status
        locations = update.get("locations")
        if isinstance(locations, list):
            self.locations = [_location(loc, self.root) for loc in locations[:16] if isinstance(loc, Mapping)]
        raw_input = update.get("rawInput")
        if isinstance(raw_input, Mapping) and raw_input:
            self.target = _target(raw_input, self.kind) or self.target
        content = update.get("content")
        meta = update.get("_meta")
        meta = meta if isinstance(meta, Mapping) else {}
        if isinstance(content, list):
            self._content(content, _patches(meta))
        self._terminal_meta(meta)
        self._raw_output(update.get("rawOutput"))

    def cancel(self) -> bool:
        if self.status in FINISHED:
            return False
        self.status = "cancelled"
        return True

    def add_output(self, data: str) -> None:
        self.output_tail = (self.output_tail + safe_text(data))[-OUTPUT_TAIL_CHARS:]

    def set_output(self, data: str) -> None:
        self.output_tail = safe_text(data)[-OUTPUT_TAIL_CHARS:]

    def _content(self, content: list[Any], patches: Mapping[str, list[str]]) -> None:
        for item in content:
            if not isinstance(item, Mapping):
                continue
            kind = item.get("type")
            if kind == "diff" and isinstance(item.get("path"), str):
                path = item["path"]
                shown = relative(path, self.root)
                if len(self.diffs) >= 64 and shown not in self.diffs:
                    continue
                self.diffs[shown] = _diff(shown, item.get("oldText"), item.get("newText"), patches.get(path))
            elif kind == "terminal" and isinstance(item.get("terminalId"), str) and len(self.terminal_ids) < 8:
                self.terminal_ids.add(item["terminalId"])
            elif kind == "content":
                block = item.get("content")
                if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                    text = block["text"]
                    fenced = _FENCE.match(text.strip())
                    if self.kind == "execute" and fenced:  # claude's fenced copy of the command output
                        self._command_text(fenced.group(1))
                    elif self.kind == "execute" and not self.output_tail and _is_output(text):
                        self._command_text(text)
                    else:
                        self.text = clip(fenced.group(1) if fenced else text)

    def _command_text(self, text: str) -> None:
        exit_line = _EXIT_LINE.match(text)
        if exit_line:
            self.exit = f"exit {exit_line.group(1)}"
            text = text[exit_line.end() :]
        self.set_output(text)

    def _terminal_meta(self, meta: Mapping[str, Any]) -> None:
        for key in ("terminal_output", "terminal_output_delta"):
            chunk = meta.get(key)
            if isinstance(chunk, Mapping) and isinstance(chunk.get("data"), str):
                self.add_output(chunk["data"])
        ended = meta.get("terminal_exit")
        if isinstance(ended, Mapping):
            code, signal = ended.get("exit_code"), ended.get("signal")
            if isinstance(code, int):
                self.exit = f"exit {code}"
            elif isinstance(signal, str) and signal:
                self.exit = f"signal {clip(signal, 40)}"
            else:
                self.exit = "stopped"

    def _raw_output(self, raw: Any) -> None:
        if isinstance(raw, str) and self.kind == "execute":
            self._command_text(raw)
        elif isinstance(raw, Mapping):
            code = raw.get("exit_code", raw.get("exitCode"))
            if isinstance(code, int) and not isinstance(code, bool):
                self.exit = f"exit {code}"
            error = raw.get("error")
            if isinstance(error, Mapping) and isinstance(error.get("message"), str):
                self.text = clip(f"error: {error['message']}")


def _is_output(text: str) -> bool:
    return bool(_EXIT_LINE.match(text))


def relative(path: str, root: str) -> str:
    """``path`` relative to ``root`` when it lies under it (the record names files as the person sees them)."""
    if root and path.startswith(root.rstrip("/") + "/"):
        path = path[len(root.rstrip("/")) + 1 :]
    return clip(path, 200)


def _location(loc: Mapping[str, Any], root: str) -> str:
    path = relative(str(loc.get("path", "?")), root)
    line = loc.get("line")
    return f"{path}:{line}" if isinstance(line, int) and not isinstance(line, bool) else path


def _target(raw: Mapping[str, Any], kind: str) -> str:
    """What a fetch, search, MCP call or command was aimed at, from its input."""
    server, tool = raw.get("server"), raw.get("tool")
    if isinstance(server, str) and isinstance(tool, str):
        return clip(f"{server}.{tool}", 120)
    for key in ("url", "query", "pattern", "command", "uri"):
        value = raw.get(key)
        if isinstance(value, list) and kind == "execute":
            value = " ".join(str(v) for v in value)
        if isinstance(value, str) and value.strip():
            label = "" if key == "command" else f"{key} "
            return clip(f"{label}{value}", 160)
    return ""


def _patches(meta: Mapping[str, Any]) -> dict[str, list[str]]:
    """claude's structuredPatch hunks by file (the real diff; its oldText/newText are snippets)."""
    claude = meta.get("claudeCode")
    response = claude.get("toolResponse") if isinstance(claude, Mapping) else None
    if not isinstance(response, Mapping):
        return {}
    hunks, path = response.get("structuredPatch"), response.get("filePath")
    if not isinstance(hunks, list) or not isinstance(path, str):
        return {}
    lines: list[str] = []
    for hunk in hunks:
        if isinstance(hunk, Mapping) and isinstance(hunk.get("lines"), list):
            lines.append(
                f"@@ -{hunk.get('oldStart')},{hunk.get('oldLines')} +{hunk.get('newStart')},{hunk.get('newLines')} @@"
            )
            lines.extend(str(line) for line in hunk["lines"])
    return {path: lines} if lines else {}


def _diff(path: str, old: Any, new: Any, patch: list[str] | None) -> FileDiff:
    new_file = old is None or (old == "" and isinstance(new, str) and new != "")
    if patch is not None:
        body = patch
    else:
        old_lines = old.splitlines() if isinstance(old, str) else []
        new_lines = new.splitlines() if isinstance(new, str) else []
        body = list(difflib.unified_diff(old_lines, new_lines, lineterm="", n=2))[2:]
    added = sum(1 for line in body if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in body if line.startswith("-") and not line.startswith("---"))
    text = safe_text("\n".join(body))
    if len(text) > DIFF_CHARS:
        text = text[:DIFF_CHARS] + f"\n… ({len(text) - DIFF_CHARS:,} more characters)"
    return FileDiff(path=path, added=added, removed=removed, new_file=new_file, text=text)


@dataclass
class PlanEntry:
    content: str
    status: str
    priority: str = ""


class ActivityLog:
    """The turn's tool calls (in order of first appearance) and its latest plan."""

    def __init__(self, root: str = "") -> None:
        """``root``: the session's folder (absolute), so files under it are named relative to it."""
        self.root = root
        self.calls: dict[str, ToolCallSummary] = {}
        self.plan: list[PlanEntry] = []
        self.plan_text: str = ""  # a markdown plan (plan_update), clipped
        self._cancelling = False

    def take(self, update: Mapping[str, Any]) -> None:
        """A ``tool_call`` / ``tool_call_update`` as a wire-shaped dict."""
        call_id = update.get("toolCallId")
        if not isinstance(call_id, str):
            return
        call = self.calls.get(call_id)
        if call is None:
            call = self.calls[call_id] = ToolCallSummary(id=clip(call_id, 120), root=self.root)
        call.merge(update, cancelling=self._cancelling)

    def take_plan(self, entries: Iterable[Mapping[str, Any]]) -> None:
        self.plan = [
            PlanEntry(clip(e.get("content", ""), 200), str(e.get("status", "")), str(e.get("priority", "")))
            for e in list(entries)[:MAX_PLAN_ENTRIES]
            if isinstance(e, Mapping)
        ]
        self.plan_text = ""

    def take_plan_text(self, text: str) -> None:
        self.plan, self.plan_text = [], safe_text(text)[:DIFF_CHARS]

    def terminal_output(self, terminal_id: str, output: str) -> None:
        """A client-side terminal's whole output so far, for the calls that embed it."""
        for call in self.calls.values():
            if call.id == terminal_id or terminal_id in call.terminal_ids:
                call.set_output(output)

    def cancel(self) -> None:
        """The person cancelled the turn: unfinished calls are cancelled, later failures too."""
        self._cancelling = True
        for call in self.calls.values():
            call.cancel()

    def __len__(self) -> int:
        return len(self.calls)


GLYPH = {"pending": "○", "in_progress": "◐", "completed": "✓", "failed": "✗", "cancelled": "⊘"}
PLAN_GLYPH = {"pending": "○", "in_progress": "◐", "completed": "✓"}
RECORD_BOUND = 64 * 1024
"""The stated bound: a turn's record (each of its forms, UTF-8) stays under 64 KiB when its
prompt and message text are short, whatever number of tool calls (docs/record.md, 'Size')."""
ACTIVITY_BUDGET = 48 * 1024
"""Characters the tool calls of one turn may take in one form of the record (text, markdown or
HTML); the calls past it are counted as "N more tool calls" (docs/record.md, 'Size')."""


def call_line(call: ToolCallSummary) -> str:
    """The call's one line: glyph, title, then what it did, status, target, locations, diff sizes, exit."""
    title = call.title or call.name or call.id
    return " · ".join([f"{GLYPH.get(call.status, '?')} {title}", *call.facts()])


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
