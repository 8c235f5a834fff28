"""What a permission card shows, as plain JSON: a person judges a tool call in a second.

Pure functions over the wire shape of ``session/request_permission`` (a ``toolCall`` and its
``options`` as dicts, camelCase as ACP sends them), so they run and are tested without
widgets or the SDK. The card (``nbacp.widgets.permission_card``) puts the result in its
``spec`` and its front end draws it; the layout of that spec is in docs/consent-cards.md
('Permission card').

Every agent string goes through ``shown`` (valid Unicode, bidi and other invisible controls
made visible): the front end writes the spec with ``textContent`` only. Everything is bounded
(lines, rows, characters), so a 10 MB diff or a 3,000-deep ``rawInput`` makes a card of a
fixed size. Where the agents differ (the command of an execute call), the shapes are the ones
measured with claude-agent-acp, codex-acp and gemini-cli (docs/consent-cards.md, 'What the agents send').
"""

from __future__ import annotations

import difflib
import json
import posixpath
import re
import shlex
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from nbacp.render.safe_text import bounded_json, safe_text

# What the tool does, in words, from ACP's ToolKind.
WHAT = {
    "execute": "run a command",
    "edit": "edit a file",
    "read": "read a file",
    "fetch": "fetch a web page",
    "search": "search",
    "delete": "delete a file",
    "move": "move a file",
    "think": "think it over (no side effects)",
    "switch_mode": "switch its mode",
}
WHAT_MANY = {"edit": "edit files", "read": "read files", "delete": "delete files", "move": "move files"}
WHAT_OTHER = "use a tool"

OPTION_HINTS = {
    "allow_once": "Allow this time",
    "allow_always": "Allow, and do not ask again",
    "reject_once": "Reject this time",
    "reject_always": "Reject, and do not ask again",
}

MAX_DIFF_LINES = 400
"""Diff lines shown per file; the rest is counted ("… 1,200 more lines")."""
MAX_LINE_CHARS = 2_000
MAX_ARGS = 30
FOLD_CHARS = 120
"""An argument longer than this (or on several lines) is folded to its first line."""
MAX_VALUE_CHARS = 20_000
MAX_TEXT_CHARS = 20_000
MAX_LOCATIONS = 50

_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "pwsh", "powershell", "cmd", "cmd.exe"}
_SHELL_FLAGS = {"-c", "-lc", "-ic", "-lic", "/c", "-Command", "-command"}
_GEMINI_CWD = re.compile(r"^\[current working directory (?P<cwd>.*?)\](?: \((?P<why>.*)\))?$", re.S)


def shown(text: Any) -> str:
    """An agent string as a person must see it: valid Unicode, every invisible control visible.

    Beyond ``safe_text`` (bidi), zero-width and other format/control characters (a ZWSP in a
    path, a NUL) are written ``<U+XXXX>``; newlines and tabs stay.
    """
    value = safe_text(text if isinstance(text, str) else str(text))
    if value.isascii() and value.isprintable():
        return value
    out = []
    for char in value:
        if char not in "\n\t" and unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(f"<U+{ord(char):04X}>")
        else:
            out.append(char)
    return "".join(out)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def what_it_does(kind: str | None, n_paths: int = 0) -> str:
    """ "run a command", "edit files", ...: the tool kind in words (unknown kinds: "use a tool")."""
    if kind in WHAT_MANY and n_paths > 1:
        return WHAT_MANY[kind]
    return WHAT.get(kind or "", WHAT_OTHER)


def command_of(tool_call: Mapping[str, Any]) -> tuple[str, str] | None:
    """The command an execute call runs, and its working directory ("" when not said).

    claude: ``rawInput.command`` (a string); codex: ``rawInput.command`` (a string, or an argv
    list in older codex-acp: ``["bash", "-lc", script]`` shows the script) and ``rawInput.cwd``;
    gemini sends no ``rawInput``: its title is the command and its first text content says
    ``[current working directory <cwd>] (<description>)``.
    """
    raw = tool_call.get("rawInput")
    if isinstance(raw, Mapping):
        command = raw.get("command", raw.get("cmd"))
        cwd = raw.get("cwd", raw.get("workdir", ""))
        cwd = cwd if isinstance(cwd, str) else ""
        if isinstance(command, str) and command:
            return command, cwd
        if isinstance(command, list) and command and all(isinstance(a, str) for a in command):
            if len(command) == 3 and posixpath.basename(command[0]) in _SHELLS and command[1] in _SHELL_FLAGS:
                return command[2], cwd
            return shlex.join(command), cwd
    if tool_call.get("kind") != "execute":
        return None
    for text in _texts(tool_call):
        found = _GEMINI_CWD.match(text)
        title = tool_call.get("title")
        if found and isinstance(title, str) and title:
            return title, found.group("cwd")
    return None


def _texts(tool_call: Mapping[str, Any]) -> list[str]:
    out = []
    for item in tool_call.get("content") or ():
        if isinstance(item, Mapping) and item.get("type") == "content":
            block = item.get("content")
            if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str):
                out.append(block["text"])
    return out


def diff_lines(old_text: str | None, new_text: str) -> dict[str, Any]:
    """A file edit as coloured lines: ``{"lines": [[tag, text]], "added", "removed", "more"}``.

    ``tag`` is ``+`` (added), ``-`` (removed), `` `` (context) or ``@`` (a hunk header);
    ``added``/``removed`` count every changed line, also those past ``MAX_DIFF_LINES``
    (``more`` says how many lines are not shown). A missing ``old_text`` is a new file.
    """
    old = [] if old_text is None else old_text.splitlines()
    new = new_text.splitlines()
    lines: list[list[str]] = []
    added = removed = more = 0
    for index, line in enumerate(difflib.unified_diff(old, new, lineterm="", n=3)):
        if index < 2:
            continue  # the "---"/"+++" file headers: the card names the path itself
        tag = line[:1] if line[:1] in "+-@" else " "
        if tag == "+":
            added += 1
        elif tag == "-":
            removed += 1
        if len(lines) < MAX_DIFF_LINES:
            lines.append([tag, shown(_cut(line[1:] if tag != "@" else line, MAX_LINE_CHARS))])
        else:
            more += 1
    return {"lines": lines, "added": added, "removed": removed, "more": more}


def _diffs(tool_call: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for item in tool_call.get("content") or ():
        if not isinstance(item, Mapping) or item.get("type") != "diff":
            continue
        old, new = item.get("oldText"), item.get("newText")
        diff = diff_lines(old if isinstance(old, str) else None, new if isinstance(new, str) else "")
        # gemini marks a new file with oldText "" and _meta.kind "add"; claude and codex with null
        meta = item.get("_meta")
        new_file = old is None or (isinstance(meta, Mapping) and meta.get("kind") == "add")
        out.append({"path": shown(item.get("path", "")), "new_file": new_file, **diff})
    return out


def _other_content(tool_call: Mapping[str, Any]) -> list[dict[str, str]]:
    """Content that is not a diff: text (shown as a block), terminals, resources, media."""
    out: list[dict[str, str]] = []
    for item in tool_call.get("content") or ():
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind == "terminal":
            out.append({"kind": "note", "text": shown(f"Terminal: {item.get('terminalId', '')}")})
        elif kind == "content":
            block = item.get("content")
            block = block if isinstance(block, Mapping) else {}
            btype = block.get("type")
            if btype == "text":
                out.append({"kind": "text", "text": shown(_cut(str(block.get("text", "")), MAX_TEXT_CHARS))})
            elif btype == "resource":
                resource = block.get("resource")
                resource = resource if isinstance(resource, Mapping) else {}
                out.append({"kind": "note", "text": shown(f"Resource: {resource.get('uri', '')}")})
                if isinstance(resource.get("text"), str):
                    out.append({"kind": "text", "text": shown(_cut(resource["text"], MAX_TEXT_CHARS))})
            elif btype == "resource_link":
                link = f"Resource link: {block.get('name', '')} ({block.get('uri', '')})"
                out.append({"kind": "note", "text": shown(link)})
            else:
                mime = block.get("mimeType", "")
                out.append({"kind": "note", "text": shown(f"[{btype} content {mime}]".replace(" ]", "]"))})
        elif kind != "diff":
            out.append({"kind": "note", "text": shown(f"[unknown content {kind}]")})
    return out


def _as_text(value: Any) -> tuple[str, str]:
    """(one line, whole) of an argument value; containers as bounded JSON."""
    if isinstance(value, str):
        return value, value
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value), json.dumps(value)
    full = bounded_json(value, max_chars=MAX_VALUE_CHARS)
    return " ".join(full.split()), full


def argument_rows(raw_input: Any) -> tuple[list[dict[str, Any]], int]:
    """``rawInput`` as key/value rows ``{"key", "value", "full"}`` and how many keys are left out.

    ``value`` is what fits on one line; ``full`` (or None) is the whole value, for the fold a
    person opens. Not a mapping: one row named "input".
    """
    items = list(raw_input.items()) if isinstance(raw_input, Mapping) else [("input", raw_input)]
    rows = []
    for key, value in items[:MAX_ARGS]:
        line, full = _as_text(value)
        folded = "\n" in line or len(line) > FOLD_CHARS
        short = line.split("\n", 1)[0][:FOLD_CHARS] + "…" if folded else line
        whole = shown(_cut(full, MAX_VALUE_CHARS)) if folded else None
        rows.append({"key": shown(key), "value": shown(short), "full": whole})
    return rows, max(0, len(items) - MAX_ARGS)


def _locations(tool_call: Mapping[str, Any]) -> list[str]:
    out = []
    for location in (tool_call.get("locations") or ())[:MAX_LOCATIONS]:
        if isinstance(location, Mapping) and location.get("path"):
            line = location.get("line")
            out.append(shown(f"{location['path']}:{line}" if isinstance(line, int) else str(location["path"])))
    return out


def option_rows(options: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The agent's options as buttons, in its order: ``{"id", "label", "kind", "tone", "hint"}``.

    ``tone`` is ``allow`` or ``reject`` (the colour), and ``hint`` says what the kind means.
    """
    out = []
    for option in options:
        kind = str(option.get("kind", ""))
        out.append(
            {
                "id": str(option.get("optionId", "")),
                "label": shown(option.get("name") or option.get("optionId", "")),
                "kind": kind,
                "tone": "reject" if kind.startswith("reject") else "allow" if kind.startswith("allow") else "other",
                "hint": OPTION_HINTS.get(kind, kind),
            }
        )
    return out


def permission_spec(
    tool_call: Mapping[str, Any], options: Sequence[Mapping[str, Any]], agent: str | None = None
) -> dict[str, Any]:
    """Everything the permission card shows, as JSON (docs/consent-cards.md, 'Permission card')."""
    kind = tool_call.get("kind")
    kind = kind if isinstance(kind, str) else None
    locations = _locations(tool_call)
    diffs = _diffs(tool_call)
    located = (loc.get("path") for loc in tool_call.get("locations") or () if isinstance(loc, Mapping))
    paths = {d["path"] for d in diffs} | {shown(p) for p in located if p}
    command = command_of(tool_call)
    title = shown(tool_call.get("title") or tool_call.get("name") or tool_call.get("toolCallId") or "")
    if command is not None and title == shown(command[0]):
        title = ""  # claude and gemini title an execute call with its command: show it once, as code
    raw_input = tool_call.get("rawInput")
    # claude repeats rawInput.description as the call's text content: show it once, in the table
    said = {shown(v) for v in raw_input.values() if isinstance(v, str)} if isinstance(raw_input, Mapping) else set()
    args, args_more = argument_rows(raw_input) if raw_input not in (None, {}) else ([], 0)
    details = [["id", shown(tool_call.get("toolCallId", ""))]]
    for name in ("name", "status", "kind"):
        if tool_call.get(name):
            details.append([name, shown(tool_call[name])])
    return {
        "kind": "permission",
        "agent": shown(agent or "The agent"),
        "what": what_it_does(kind, len(paths)),
        "title": title,
        "command": {"text": shown(_cut(command[0], MAX_TEXT_CHARS)), "cwd": shown(command[1])} if command else None,
        "locations": locations,
        "diffs": diffs,
        "content": [item for item in _other_content(tool_call) if item["text"] not in said],
        "args": args,
        "args_more": args_more,
        "raw_json": shown(bounded_json(raw_input)) if raw_input not in (None, {}) else "",
        "options": option_rows(options),
        "details": details,
    }
