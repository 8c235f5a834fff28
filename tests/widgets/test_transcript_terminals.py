"""Display terminals (claude-agent-acp's and codex-acp's ``_meta`` convention) and client writes in a turn.

The updates are the shapes measured from the real agents (docs/files-and-terminals.md,
'Display terminals'), built as the SDK hands them to the client.
"""

from __future__ import annotations

from typing import Any

from acp import schema
from support.comm_support import walk

from nbacp.widgets.transcript import Transcript
from nbacp.widgets.transcript.terminals import SHOWN_CHARS


def start(call_id: str) -> schema.ToolCallStart:
    return schema.ToolCallStart(
        session_update="tool_call",
        tool_call_id=call_id,
        title="for i in 1 2; do echo tick $i; done",
        kind="execute",
        status="in_progress",
        content=[schema.TerminalToolCallContent(type="terminal", terminal_id=call_id)],
        field_meta={"terminal_info": {"terminal_id": call_id, "cwd": "/p"}},
    )


def progress(call_id: str, meta: dict[str, Any], status: Any = None) -> schema.ToolCallProgress:
    return schema.ToolCallProgress(
        session_update="tool_call_update", tool_call_id=call_id, status=status, field_meta=meta
    )


def test_codex_deltas_stream_into_the_tool_call_and_the_exit_ends_it() -> None:
    view = Transcript("run")
    view.add(start("call_1"))
    view.add(progress("call_1", {"terminal_output_delta": {"terminal_id": "call_1", "data": "tick 1\n"}}))
    assert view.terminal_shown("call_1") == "tick 1\n"
    view.add(progress("call_1", {"terminal_output_delta": {"terminal_id": "call_1", "data": "tick 2\n"}}))
    view.add(progress("call_1", {"terminal_exit": {"terminal_id": "call_1", "exit_code": 3, "signal": None}}, "failed"))
    assert view.terminal_shown("call_1") == "tick 1\ntick 2\n[exit code 3]"
    view.flush()
    texts = [getattr(w, "value", "") for w in walk(view)]
    assert any("tick 2" in t for t in texts)


def test_claude_whole_output_replaces_and_a_cancelled_command_just_ends() -> None:
    view = Transcript("run")
    view.add(start("toolu_1"))
    view.add(progress("toolu_1", {"terminal_output": {"terminal_id": "toolu_1", "data": "a\nb\n"}}))
    view.add(progress("toolu_1", {"terminal_output": {"terminal_id": "toolu_1", "data": "a\nb\n"}}))
    view.add(progress("toolu_1", {"terminal_exit": {"terminal_id": "toolu_1", "exit_code": None, "signal": None}}))
    assert view.terminal_shown("toolu_1") == "a\nb\n[ended]"


def test_a_flood_of_deltas_keeps_only_the_end() -> None:
    view = Transcript("run")
    view.add(start("c"))
    for n in range(200):
        view.add(progress("c", {"terminal_output_delta": {"terminal_id": "c", "data": f"{n:04d}" + "x" * 996}}))
    shown = view.terminal_shown("c")
    assert shown.startswith("… (earlier output not shown)\n")
    assert shown.endswith("0199" + "x" * 996) and len(shown) < SHOWN_CHARS + 100


def test_malformed_display_meta_is_ignored() -> None:
    view = Transcript("run")
    view.add(start("c"))
    view.add(
        progress(
            "c",
            {
                "terminal_output_delta": {"terminal_id": 5, "data": "x"},
                "terminal_output": "nonsense",
                "terminal_exit": {"terminal_id": "c", "exit_code": "0"},
            },
        )
    )
    assert view.terminal_shown("c") == "[ended]"


def test_a_client_write_is_a_diff_block() -> None:
    view = Transcript("write")
    view.file_written("/p/a.txt", "one\ntwo\n", "one\n2\n", "+1 -1")
    view.flush()
    texts = [getattr(w, "value", "") for w in walk(view)]
    assert "wrote /p/a.txt (+1 -1)" in texts
    assert any("-two" in t and "+2" in t for t in texts)


def test_streamed_output_updates_one_widget_in_place() -> None:
    """A command that prints for an hour must not create a widget per frame (docs/notebooks.md, 'What a card costs')."""
    view = Transcript("run")
    view.add(start("c"))
    view.add(progress("c", {"terminal_output_delta": {"terminal_id": "c", "data": "first\n"}}))
    view.flush()
    before = {id(w) for w in walk(view)}
    [shown] = [w for w in walk(view) if "first" in getattr(w, "value", "")]
    view.add(progress("c", {"terminal_output_delta": {"terminal_id": "c", "data": "second\n"}}))
    view.flush()
    assert {id(w) for w in walk(view)} == before
    assert "second" in shown.value
