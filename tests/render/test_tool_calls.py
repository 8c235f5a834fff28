"""The record's tool calls, from the updates claude-agent-acp, codex-acp and gemini-cli really sent.

The updates are the recorded wire traffic in ``tests/support/agent_traffic`` (see
``tests/support/replay_agent.py``), fed as the wire dicts they were; the record must say what
each call did, where, with what result, in bounded space (docs/record.md).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from nbacp.render.tool_call_lines import ACTIVITY_BUDGET, OUTPUT_LINES, RECORD_BOUND
from nbacp.render.tool_calls import ActivityLog
from nbacp.render.turn_record_html import record_html
from nbacp.render.turn_record_text import record_markdown, record_text

TRAFFIC = Path(__file__).resolve().parents[1] / "support" / "agent_traffic"


def replayed(run: str) -> ActivityLog:
    """The activity of the run's first turn, paths relative to its project folder."""
    log = ActivityLog(f"/tmp/research-agents/runs/{run}/home/proj")
    for line in (TRAFFIC / f"{run}.jsonl").read_text().splitlines():
        event = json.loads(line)
        if "respond" in event:
            break
        update = event.get("update", {})
        if update.get("sessionUpdate") in ("tool_call", "tool_call_update") and not event["child"]:
            log.take(update)
        elif update.get("sessionUpdate") == "plan":
            log.take_plan(update["entries"])
    return log


def lines(log: ActivityLog) -> list[str]:
    return record_text("p", "t", [], "end_turn", log).splitlines()[3:-1]


def test_claude_read_write_edit_and_a_failed_command() -> None:
    shown = lines(replayed("claude_fs_auto"))
    assert shown[0] == "  ✓ Read data.txt (2 - 4) · read · completed · at data.txt:2"
    assert shown[1] == "  ✓ Write new.txt · edited · completed · new.txt +2 -0 (new)"
    # Edit: claude's oldText/newText are the snippets; structuredPatch is the diff
    assert "  ✓ Edit new.txt · edited · completed · at new.txt:1 · new.txt +1 -1" in shown
    failed = next(line for line in shown if "exit 3" in line or "echo out-line" in line)
    assert failed.startswith("  ✗ echo out-line; echo err-line >&2; exit 3 · ran a command · failed")


def test_claude_command_output_and_exit_code_from_raw_output() -> None:
    log = ActivityLog()
    log.take({"toolCallId": "b", "sessionUpdate": "tool_call", "kind": "execute", "title": "Terminal", "rawInput": {}})
    log.take(
        {
            "toolCallId": "b",
            "sessionUpdate": "tool_call_update",
            "title": "make test",
            "rawInput": {"command": "make test", "description": "run"},
        }
    )
    log.take(
        {
            "toolCallId": "b",
            "sessionUpdate": "tool_call_update",
            "status": "failed",
            "rawOutput": "Exit code 3\nout-line\nerr-line",
            "content": [
                {"type": "content", "content": {"type": "text", "text": "```\nExit code 3\nout-line\nerr-line\n```"}}
            ],
        }
    )
    assert lines(log) == ["  ✗ make test · ran a command · failed · exit 3", "      | out-line", "      | err-line"]


def test_codex_output_chunks_and_exit_from_meta() -> None:
    shown = lines(replayed("codex_record"))
    assert shown[:3] == [
        "  ✗ echo out-line; echo err-line >&2; exit 3 · ran a command · failed · exit 3",
        "      | out-line",
        "      | err-line",
    ]
    assert "  ✓ Editing files · edited · completed · added.txt +2 -0 (new), data.txt +1 -1" in shown
    ticks = shown[shown.index(next(s for s in shown if s.startswith("  ✓ for i in"))) :]
    assert ticks[0].endswith("· ran a command · completed · exit 0")
    assert ticks[1:] == [f"      | tick {i}" for i in range(2, 6)]  # codex never sends the first chunk


def test_codex_mcp_and_web_search_name_their_target() -> None:
    assert lines(replayed("codex_mcp_full")) == [
        "  ✓ mcp.research.echo · ran a command · completed · research.echo",
        "  ✓ Web search: nbacp · searched · completed · query nbacp",
    ]


def test_claude_fetch_search_mcp_and_plan() -> None:
    text = record_text("p", "t", [], "end_turn", replayed("claude_record"))
    assert "  ✓ mcp__research__echo · called a tool · completed" in text
    assert "  ✗ Fetch http://127.0.0.1:43497/page · fetched · failed · url http://127.0.0.1:43497/page" in text
    assert '  ✓ Search "nbacp" · fetched · completed · query nbacp' in text
    assert "Plan:\n  ◐ Doing step one\n  ○ Step two" in text


def test_gemini_edit_of_a_whole_file_counts_only_the_changed_line() -> None:
    shown = lines(replayed("gemini_fs_existing"))
    assert shown[0] == "  ✓ data.txt: line2 => LINE TWO · edited · completed · data.txt +1 -1"


def test_diff_is_folded_in_html_and_a_summary_line_in_text() -> None:
    log = ActivityLog("/w")
    log.take(
        {
            "toolCallId": "e",
            "sessionUpdate": "tool_call",
            "kind": "edit",
            "title": "Edit a.py",
            "status": "completed",
            "content": [
                {"type": "diff", "path": "/w/a.py", "oldText": "x = 1\ny = 2\n", "newText": "x = 1\ny = 3\nz = 4\n"}
            ],
        }
    )
    html = record_html("p", "t", [], "end_turn", log)
    assert "<details><summary>a.py +2 -1</summary><pre>" in html and "+y = 3" in html
    text = record_text("p", "t", [], "end_turn", log)
    assert "a.py +2 -1" in text and "+y = 3" not in text


def test_output_keeps_only_its_last_lines() -> None:
    log = ActivityLog()
    log.take({"toolCallId": "c", "sessionUpdate": "tool_call", "kind": "execute", "title": "seq 100"})
    for i in range(100):
        log.take(
            {
                "toolCallId": "c",
                "sessionUpdate": "tool_call_update",
                "_meta": {"terminal_output_delta": {"data": f"{i}\n"}},
            }
        )
    log.take(
        {
            "toolCallId": "c",
            "sessionUpdate": "tool_call_update",
            "status": "completed",
            "_meta": {"terminal_exit": {"exit_code": 0, "signal": None}},
        }
    )
    shown = lines(log)
    assert shown[0].endswith("exit 0") and shown[1] == "      …"
    assert shown[2:] == [f"      | {i}" for i in range(100 - OUTPUT_LINES, 100)]


def test_agent_strings_stay_inert_in_every_form() -> None:
    evil = "<img src=x onerror=alert(1)> $x$ \u202e"
    log = ActivityLog()
    log.take(
        {
            "toolCallId": evil,
            "sessionUpdate": "tool_call",
            "kind": "fetch",
            "title": evil,
            "status": "failed",
            "rawInput": {"url": evil},
            "content": [{"type": "diff", "path": evil, "oldText": evil, "newText": "y"}],
        }
    )
    html = record_html("p", "t", [], "end_turn", log)
    assert "<img" not in html and "$x$" not in html and "\u202e" not in html
    assert "\u202e" not in record_text("p", "t", [], "end_turn", log)
    assert not re.search(r"(?<!\\)<img", record_markdown("p", "t", [], "end_turn", log))  # only escaped


def thousand_calls() -> ActivityLog:
    log = ActivityLog("/w")
    for i in range(1000):
        log.take(
            {
                "toolCallId": f"call-{i}",
                "sessionUpdate": "tool_call",
                "kind": "execute",
                "title": f"python step_{i}.py --input data/{i}.csv",
                "status": "in_progress",
            }
        )
        log.take(
            {
                "toolCallId": f"call-{i}",
                "sessionUpdate": "tool_call_update",
                "status": "completed",
                "_meta": {
                    "terminal_output": {"data": "".join(f"line {j} of step {i}\n" for j in range(40))},
                    "terminal_exit": {"exit_code": 0},
                },
                "locations": [{"path": f"/w/data/{i}.csv"}],
                "content": [{"type": "diff", "path": f"/w/out/{i}.txt", "oldText": "a\n" * 50, "newText": "b\n" * 50}],
            }
        )
    return log


@pytest.mark.parametrize("form", ["text", "markdown", "html"])
def test_a_thousand_tool_calls_stay_within_the_bound(form: str) -> None:
    render: Any = {"text": record_text, "markdown": record_markdown, "html": record_html}[form]
    record = render("run the pipeline", "done", [], "end_turn", thousand_calls())
    # the tool calls take at most ACTIVITY_BUDGET characters of each form (docs/record.md, 'Size')
    assert len(record) < ACTIVITY_BUDGET + 2048
    assert len(record.encode()) < RECORD_BOUND
    assert "more tool calls" in record and "call-0" not in record
    assert "python step\\_0\\.py" in record if form == "markdown" else "python step_0.py" in record
    assert "step_999" not in record and "step\\_999" not in record
