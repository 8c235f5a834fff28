"""What the agent did in a turn, for the record: its tool calls and its plan, folded from the wire.

``ActivityLog`` takes ``tool_call`` / ``tool_call_update`` updates as wire-shaped dicts
(camelCase, ``_meta`` included: what ``model_dump(by_alias=True)`` gives, or the JSON an
agent sent) and keeps one bounded ``ToolCallSummary`` per tool call, in the order the calls
first appeared. Agents put the same facts in different places (docs/record.md, 'Where agents
put what'): command output in claude's ``rawOutput`` ("Exit code N" then the output), in
codex's ``_meta.terminal_output`` / ``_meta.terminal_output_delta`` chunks with
``_meta.terminal_exit``, nowhere for gemini; a file's diff in the shapes
``nbacp.render.tool_diffs`` reads. Each summary holds at most a few KB whatever the agent
sends, so a 1,000-call turn costs a bounded record.

Pure: no acp, no widgets; how a call reads as a line is ``nbacp.render.tool_call_lines``, and
the renderers (``turn_record_text``, ``turn_record_html``) read both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from nbacp.render.safe_text import safe_text
from nbacp.render.tool_diffs import DIFF_CHARS, FileDiff, file_diff, structured_patches

OUTPUT_TAIL_CHARS = 4096
"""The output tail kept per call while it streams (only its last lines are shown)."""
LINE_CHARS = 200
"""One line of output, a title or a target is clipped to this many characters."""
MAX_PLAN_ENTRIES = 50

FINISHED = ("completed", "failed", "cancelled")
_EXIT_LINE = re.compile(r"\AExit code (-?\d+)\n?")
_FENCE = re.compile(r"\A```[^\n]*\n(.*?)\n?```\s*\Z", re.S)


def clip(text: Any, limit: int = LINE_CHARS) -> str:
    """One line of at most ``limit`` characters (agent strings can be arbitrarily long)."""
    flat = " ".join(safe_text(str(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass
class ToolCallSummary:
    """One tool call as the record keeps it, folded from its updates; every field is bounded."""

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
            self._content(content, structured_patches(meta))
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
                self.diffs[shown] = file_diff(shown, item.get("oldText"), item.get("newText"), patches.get(path))
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
