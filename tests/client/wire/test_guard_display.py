"""What a person sees of agent strings: bidi controls shown not obeyed, deep input bounded,
SDK failures as one line in the turn, a clear error when initialize never comes back."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import pytest
from acp import PromptResponse
from acp.schema import (
    AgentMessageChunk,
    FileEditToolCallContent,
    PermissionOption,
    TextContentBlock,
    ToolCallLocation,
    ToolCallStart,
    ToolCallUpdate,
)
from acp.task import TaskSupervisor
from support import TESTS
from support.agents import RawAgent
from support.comm_support import kids_of
from support.kernel_support import KernelHarness

import nbacp
from nbacp.client.wire import connection_log as notes
from nbacp.errors import ConnectError
from nbacp.form import Form
from nbacp.render.safe_text import BIDI_CONTROLS
from nbacp.render.turn_record_text import record_markdown, record_text
from nbacp.widgets import FormCard, PermissionCard
from nbacp.widgets.transcript import Transcript, nodes

RLO = "\u202e"


def shown_strings(root: widgets.Widget) -> list[str]:
    """Every string a widget tree puts on the page (values, descriptions, placeholders, specs)."""
    out: list[str] = []
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, widgets.Widget | nodes.Node):
            for name in ("value", "description", "placeholder", "tooltip", "titles", "spec"):  # a node's too
                stack.append(getattr(item, name, None))
            stack.extend(kids_of(item))
        elif isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return out


def no_bidi(strings: list[str]) -> bool:
    return not any(ch in s for s in strings for ch in BIDI_CONTROLS)


def deep(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"k": value}
    return value


def test_permission_card_shows_bidi_controls_and_bounds_deep_input() -> None:
    tool = ToolCallUpdate(
        tool_call_id="t",
        title=f"Edit {RLO}txt.exe",
        content=[FileEditToolCallContent(type="diff", path=f"notes{RLO}txt.exe", old_text="a\n", new_text="b\n")],
        locations=[ToolCallLocation(path="src/\u2066evil\u2069.py", line=3)],
        raw_input=deep(3000),
    )
    options = [PermissionOption(option_id="ok", name=f"Allow {RLO}once", kind="allow_once")]
    card = PermissionCard(tool, options)
    strings = shown_strings(card)
    assert no_bidi(strings)
    joined = "\n".join(strings)
    assert "notes<U+202E>txt.exe" in strings  # the diff's path
    assert "src/<U+2066>evil<U+2069>.py:3" in strings  # the location
    assert "Allow <U+202E>once" in joined
    assert "nested deeper" in joined  # 3,000 levels rendered to a bounded depth
    assert card.choose("ok")  # the id is untouched


def test_transcript_and_record_show_bidi_controls() -> None:
    view = Transcript(prompt=f"run {RLO}this")
    view.add(
        AgentMessageChunk(
            session_update="agent_message_chunk",
            content=TextContentBlock(type="text", text=f"saved as report{RLO}fdp.exe"),
        )
    )
    view.add(
        ToolCallStart(
            session_update="tool_call",
            tool_call_id="t",
            title=f"open {RLO}x",
            locations=[ToolCallLocation(path=f"a{RLO}b")],
        )
    )
    view.flush()
    assert no_bidi(shown_strings(view))
    assert "<U+202E>" in "".join(shown_strings(view))
    record = record_markdown(view.prompt, view.text, [("permission", f"q{RLO}", f"a{RLO}")], "end_turn")
    assert RLO not in record and RLO not in record_text(view.prompt, view.text, [], "end_turn")


def test_form_labels_and_placeholders_show_bidi_controls() -> None:
    schema = {
        "type": "object",
        "properties": {
            "pick": {"type": "string", "title": f"Pick {RLO}one", "oneOf": [{"const": "a", "title": f"A{RLO}"}]},
            "note": {"type": "string", "description": f"hint {RLO}"},
        },
    }
    form = FormCard(f"Question {RLO}?", schema)
    assert no_bidi(shown_strings(form))
    assert Form.from_schema  # the model itself keeps the agent's values: only the view neutralises


class BrokenUpdatesAgent(RawAgent):
    """Sends notifications the SDK rejects, then an ordinary message."""

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        rpc = self.conn._conn
        await rpc.send_notification("session/update", {"sessionId": session_id, "update": {"sessionUpdate": "nope"}})
        await rpc.send_notification("elicitation/complete", {"elicitationId": 5})
        await self._say(session_id, "still here")
        return PromptResponse(stop_reason="end_turn")


async def test_rejected_notifications_are_one_line_in_the_turn(capsys: pytest.CaptureFixture[str]) -> None:
    async with nbacp.connect(BrokenUpdatesAgent()) as conn:
        session = await conn.new_session()
        result = await session.prompt("go")
        lines = list(conn.log or [])
    assert result.text == "still here"
    # an update type outside the SDK's schema is no error: one readable line in the turn, no dump
    assert not any("session/update" in line for line in lines), lines
    assert any(line.startswith("Answered elicitation/complete with error -32602") for line in lines), lines
    shown = shown_strings(session.turn.transcript)  # type: ignore[union-attr]
    assert [s for s in shown if s.startswith("Connection: ")] == [
        next(s for s in shown if s.startswith("Connection: Answered elicitation/complete"))
    ]
    assert "Unsupported update: nope" in shown
    assert "Traceback" not in capsys.readouterr().err


async def test_sdk_background_task_failures_go_to_the_connection_log(capsys: pytest.CaptureFixture[str]) -> None:
    conn_log = notes.ConnectionLog()
    token = notes.routing(conn_log)
    try:
        supervisor = TaskSupervisor(source="test")

        async def fail() -> None:
            raise RuntimeError("boom")

        task = supervisor.create(fail(), name="failing")
    finally:
        notes.reset_routing(token)
    await asyncio.wait({task})
    await asyncio.sleep(0)
    assert list(conn_log) == ["agent connection: Unhandled error in test task: RuntimeError: boom"]
    assert "Traceback" not in capsys.readouterr().err


async def test_an_agent_that_never_answers_initialize_times_out_clearly() -> None:
    silent = [sys.executable, "-c", "import time; time.sleep(60)"]
    with pytest.raises(ConnectError, match=r"did not answer initialize within 0\.5 s.*timeout="):
        await nbacp.connect(silent, timeout=0.5)


@pytest.mark.kernel
def test_sdk_failures_never_print_a_traceback_in_the_cell(kernel: KernelHarness) -> None:
    kernel.run(
        textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(TESTS)!r}, {str(Path(__file__).parent)!r}]  # support.*, and this file
        import nbacp
        from test_guard_display import BrokenUpdatesAgent
        conn = await nbacp.connect(BrokenUpdatesAgent())
        session = await conn.new_session('.')
    """),
        timeout=60,
    )
    cell = kernel.execute("result = await session.prompt('go')\nprint('RESULT', result.text, len(conn.log))")
    kernel.wait_idle(cell, timeout=60)
    assert kernel.error(cell) is None, kernel.error(cell)
    assert kernel.stream_text(cell) == "RESULT still here 1\n"  # the unknown update type is shown, not refused
    assert "Traceback" not in kernel.stream_text(cell, "stderr")
    assert kernel.stream_text(cell, "stderr") == ""
