"""The permission card's spec (nbacp.render.permission), from the requests the real agents send.

The tool calls below are the ``session/request_permission`` params recorded from
claude-agent-acp 0.101.0, codex-acp 2.6.0 and gemini-cli 0.61.0 (docs/consent-cards.md, 'What the
agents send'), paths shortened.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from nbacp.render.permission import (
    FOLD_CHARS,
    MAX_ARGS,
    MAX_DIFF_LINES,
    argument_rows,
    command_of,
    diff_lines,
    option_rows,
    permission_spec,
    shown,
    what_it_does,
)

CLAUDE_BASH = {
    "toolCallId": "toolu_bash",
    "name": "Bash",
    "status": "pending",
    "kind": "execute",
    "rawInput": {"command": "echo out-line; echo err-line >&2; exit 3", "description": "Print two lines"},
    "title": "echo out-line; echo err-line >&2; exit 3",
    "content": [{"type": "content", "content": {"type": "text", "text": "Print two lines"}}],
}
CLAUDE_EDIT = {
    "toolCallId": "toolu_edit",
    "name": "Edit",
    "status": "pending",
    "kind": "edit",
    "title": "Edit new.txt",
    "rawInput": {"file_path": "/proj/new.txt", "old_string": "beta", "new_string": "gamma", "replace_all": False},
    "content": [{"type": "diff", "path": "/proj/new.txt", "oldText": "beta", "newText": "gamma"}],
    "locations": [{"path": "/proj/new.txt"}],
}
CLAUDE_WRITE = {
    "toolCallId": "toolu_write",
    "kind": "edit",
    "title": "Write new.txt",
    "status": "pending",
    "rawInput": {"file_path": "/proj/new.txt", "content": "alpha\nbeta\n"},
    "content": [{"type": "diff", "path": "/proj/new.txt", "oldText": None, "newText": "alpha\nbeta\n"}],
    "locations": [{"path": "/proj/new.txt"}],
}
CODEX_EXEC = {
    "toolCallId": "call_esc",
    "title": "echo hi > b.txt",
    "kind": "execute",
    "status": "pending",
    "rawInput": {"command": "echo hi > b.txt", "cwd": "/proj"},
}
CODEX_PATCH = {
    "toolCallId": "call_patch",
    "title": "Edit files",
    "kind": "edit",
    "status": "pending",
    "locations": [{"path": "/proj/added.txt"}],
}
GEMINI_SHELL = {
    "toolCallId": "run_shell_command__call_shell",
    "status": "pending",
    "kind": "execute",
    "locations": [],
    "title": "echo out-line; echo err-line >&2; exit 3",
    "content": [{"type": "content", "content": {"type": "text", "text": "[current working directory /proj] (Print)"}}],
}
GEMINI_REPLACE = {
    "toolCallId": "replace__call_replace",
    "status": "pending",
    "kind": "edit",
    "title": "data.txt: line2 => LINE TWO",
    "content": [
        {
            "type": "diff",
            "path": "/proj/data.txt",
            "_meta": {"kind": "modify"},
            "oldText": "line1\nline2\nline3\nline4\nline5\nline6\n",
            "newText": "line1\nLINE TWO\nline3\nline4\nline5\nline6\n",
        }
    ],
    "locations": [{"path": "/proj/data.txt"}],
}
CLAUDE_OPTIONS = [
    {"optionId": "allow-once", "name": "Yes", "kind": "allow_once"},
    {"optionId": "allow-with-updates", "name": "Yes, allow all edits during this session", "kind": "allow_always"},
    {"optionId": "reject", "name": "No", "kind": "reject_once"},
]


# -- what it does and what runs ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "paths", "words"),
    [
        ("execute", 0, "run a command"),
        ("edit", 1, "edit a file"),
        ("edit", 2, "edit files"),
        ("read", 1, "read a file"),
        ("fetch", 0, "fetch a web page"),
        ("search", 0, "search"),
        ("delete", 1, "delete a file"),
        ("move", 1, "move a file"),
        ("think", 0, "think it over (no side effects)"),
        ("switch_mode", 0, "switch its mode"),
        ("other", 0, "use a tool"),
        (None, 0, "use a tool"),
        ("a-kind-from-the-future", 0, "use a tool"),
    ],
)
def test_the_tool_kind_in_words(kind: str | None, paths: int, words: str) -> None:
    assert what_it_does(kind, paths) == words


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (CLAUDE_BASH, ("echo out-line; echo err-line >&2; exit 3", "")),
        (CODEX_EXEC, ("echo hi > b.txt", "/proj")),
        (GEMINI_SHELL, ("echo out-line; echo err-line >&2; exit 3", "/proj")),
        (
            {"kind": "execute", "rawInput": {"command": ["bash", "-lc", "ls -la | wc -l"], "cwd": "/r"}},
            ("ls -la | wc -l", "/r"),
        ),
        ({"kind": "execute", "rawInput": {"command": ["pytest", "-q", "my tests/"]}}, ("pytest -q 'my tests/'", "")),
        (
            {
                "kind": "execute",
                "title": "Run Python",
                "content": [{"type": "content", "content": {"type": "text", "text": "print(1)"}}],
            },
            None,
        ),
        (CLAUDE_EDIT, None),
    ],
)
def test_the_command_of_each_agents_execute_call(call: dict[str, Any], expected: tuple[str, str] | None) -> None:
    assert command_of(call) == expected


def test_one_file_in_a_diff_and_a_location_with_a_line_is_one_file() -> None:
    one = {**CLAUDE_EDIT, "locations": [{"path": "/proj/new.txt", "line": 4}]}
    assert permission_spec(one, [])["what"] == "edit a file"
    two = {**CLAUDE_EDIT, "locations": [{"path": "/proj/other.txt"}]}
    assert permission_spec(two, [])["what"] == "edit files"


def test_a_title_that_is_the_command_is_shown_once() -> None:
    assert permission_spec(CLAUDE_BASH, [])["title"] == ""
    assert permission_spec(GEMINI_SHELL, [])["title"] == ""
    assert permission_spec(CODEX_EXEC, [])["title"] == ""  # codex too
    assert permission_spec({**CODEX_EXEC, "title": "Run the tests"}, [])["title"] == "Run the tests"


def test_text_content_that_repeats_an_argument_is_shown_once() -> None:
    assert permission_spec(CLAUDE_BASH, [])["content"] == []  # "Print two lines" is rawInput.description
    gemini = permission_spec(GEMINI_SHELL, [])["content"]
    assert gemini == [{"kind": "text", "text": "[current working directory /proj] (Print)"}]


def test_an_execute_card_shows_the_command_as_code() -> None:
    spec = permission_spec(CODEX_EXEC, CLAUDE_OPTIONS, agent="Codex")
    assert spec["what"] == "run a command" and spec["agent"] == "Codex"
    assert spec["command"] == {"text": "echo hi > b.txt", "cwd": "/proj"}
    assert spec["args"] == [
        {"key": "command", "value": "echo hi > b.txt", "full": None},
        {"key": "cwd", "value": "/proj", "full": None},
    ]
    assert json.loads(spec["raw_json"]) == CODEX_EXEC["rawInput"]
    assert spec["details"] == [["id", "call_esc"], ["status", "pending"], ["kind", "execute"]]
    assert spec["diffs"] == [] and spec["locations"] == []


# -- diffs ------------------------------------------------------------------------------------
def test_a_diff_is_coloured_lines_with_its_size() -> None:
    spec = permission_spec(GEMINI_REPLACE, CLAUDE_OPTIONS)
    (diff,) = spec["diffs"]
    assert diff["path"] == "/proj/data.txt" and diff["new_file"] is False
    assert (diff["added"], diff["removed"], diff["more"]) == (1, 1, 0)
    assert diff["lines"] == [
        ["@", "@@ -1,5 +1,5 @@"],
        [" ", "line1"],
        ["-", "line2"],
        ["+", "LINE TWO"],
        [" ", "line3"],
        [" ", "line4"],
        [" ", "line5"],
    ]
    assert spec["locations"] == ["/proj/data.txt"] and spec["what"] == "edit a file"


def test_new_files_from_claude_null_and_gemini_empty_add() -> None:
    (claude,) = permission_spec(CLAUDE_WRITE, [])["diffs"]
    assert claude["new_file"] and claude["lines"][1:] == [["+", "alpha"], ["+", "beta"]] and claude["added"] == 2
    gemini = {"type": "diff", "path": "n.txt", "oldText": "", "newText": "x\n", "_meta": {"kind": "add"}}
    (diff,) = permission_spec({"kind": "edit", "content": [gemini]}, [])["diffs"]
    assert diff["new_file"] and diff["added"] == 1


def test_removed_lines_that_look_like_headers_are_counted() -> None:
    diff = diff_lines("--- a\n+++ b\nkeep\n", "keep\n")
    assert (diff["added"], diff["removed"]) == (0, 2)
    assert ["-", "--- a"] in diff["lines"] and ["-", "+++ b"] in diff["lines"]


def test_a_huge_diff_is_bounded_but_counted() -> None:
    diff = diff_lines(None, "".join(f"line {i}\n" for i in range(5000)))
    assert len(diff["lines"]) == MAX_DIFF_LINES and diff["added"] == 5000
    assert diff["more"] == 5000 + 1 - MAX_DIFF_LINES  # + the hunk header
    assert diff_lines("same\n", "same\n") == {"lines": [], "added": 0, "removed": 0, "more": 0}


# -- arguments --------------------------------------------------------------------------------
def test_long_and_multiline_arguments_are_folded_with_the_whole_value_kept() -> None:
    long = "x" * (FOLD_CHARS + 50)
    raw = {"short": "ok", "long": long, "lines": "one\ntwo", "n": 3, "flag": False, "nested": {"a": [1, 2]}}
    rows, more = argument_rows(raw)
    by_key = {row["key"]: row for row in rows}
    assert more == 0
    assert by_key["short"] == {"key": "short", "value": "ok", "full": None}
    assert by_key["long"]["value"] == "x" * FOLD_CHARS + "…" and by_key["long"]["full"] == long
    assert by_key["lines"] == {"key": "lines", "value": "one…", "full": "one\ntwo"}
    assert by_key["n"]["value"] == "3" and by_key["flag"]["value"] == "false"
    assert by_key["nested"]["value"] == '{ "a": [ 1, 2 ] }' and by_key["nested"]["full"] is None


def test_many_keys_and_deep_values_stay_bounded() -> None:
    rows, more = argument_rows({f"k{i}": i for i in range(MAX_ARGS + 7)})
    assert len(rows) == MAX_ARGS and more == 7
    deep: Any = "bottom"
    for _ in range(3000):
        deep = [deep]
    (row,), _ = argument_rows({"deep": deep})
    assert "nested deeper" in (row["full"] or row["value"])
    scalar, _ = argument_rows(["not", "a", "mapping"])
    assert scalar[0]["key"] == "input"
    assert permission_spec({"toolCallId": "t", "rawInput": {}}, [])["args"] == []


# -- options and text safety ------------------------------------------------------------------
def test_options_keep_the_agents_order_and_say_what_their_kind_means() -> None:
    rows = option_rows(CLAUDE_OPTIONS + [{"optionId": "never", "name": "Never", "kind": "reject_always"}])
    assert [(r["id"], r["tone"], r["hint"]) for r in rows] == [
        ("allow-once", "allow", "Allow this time"),
        ("allow-with-updates", "allow", "Allow, and do not ask again"),
        ("reject", "reject", "Reject this time"),
        ("never", "reject", "Reject, and do not ask again"),
    ]


def test_every_agent_string_is_made_visible_not_obeyed() -> None:
    trick = "notes\u202etxt.exe\u200b"
    call = {
        "toolCallId": trick,
        "title": trick,
        "kind": "edit",
        "locations": [{"path": trick, "line": 3}],
        "content": [{"type": "diff", "path": trick, "oldText": None, "newText": trick}],
        "rawInput": {trick: trick},
    }
    spec = permission_spec(call, [{"optionId": "o", "name": trick, "kind": "allow_once"}], agent=trick)
    text = json.dumps(spec, ensure_ascii=False)
    assert "\u202e" not in text and "\u200b" not in text
    visible = "notes<U+202E>txt.exe<U+200B>"
    assert spec["title"] == spec["agent"] == spec["options"][0]["label"] == visible
    assert spec["locations"] == [f"{visible}:3"] and spec["diffs"][0]["lines"][-1] == ["+", visible]
    assert shown("a\tb\nc\x00") == "a\tb\nc<U+0000>"
    assert shown("half \ud83d") == "half \ufffd"


def test_the_spec_is_plain_json_and_imports_without_widgets() -> None:
    for call in (CLAUDE_BASH, CLAUDE_EDIT, CLAUDE_WRITE, CODEX_EXEC, CODEX_PATCH, GEMINI_SHELL, GEMINI_REPLACE):
        spec = permission_spec(call, CLAUDE_OPTIONS)
        assert json.loads(json.dumps(spec)) == spec
    heavy = ("ipywidgets", "anywidget", "acp")
    code = f"import nbacp.render.permission, sys; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
