"""A cancelled turn's tool calls: ACP has the client mark unfinished ones cancelled on
session/cancel; agents (pydantic-acp among them) then report them "failed", which the view
keeps showing as cancelled. Calls that had finished, or failed before, keep their status."""

from __future__ import annotations

from typing import Any

from acp import schema
from pydantic import TypeAdapter
from support.comm_support import walk

from nbacp.widgets.transcript import Transcript, nodes

UPDATE = TypeAdapter(schema.ToolCallStart | schema.ToolCallProgress)


def tool(kind: str, call: str, **fields: Any) -> Any:
    return UPDATE.validate_python({"sessionUpdate": kind, "toolCallId": call, **fields})


def headers(view: Transcript) -> list[str]:
    return [w.value for w in walk(view) if isinstance(w, nodes.Text) and "nbacp-tool-header" in w._dom_classes]


def test_unfinished_calls_show_cancelled_and_stay_so() -> None:
    view = Transcript(prompt="p")
    view.add(tool("tool_call", "done", title="done", status="in_progress"))
    view.add(tool("tool_call_update", "done", status="completed"))
    view.add(tool("tool_call", "broke", title="broke", status="in_progress"))
    view.add(tool("tool_call_update", "broke", status="failed"))
    view.add(tool("tool_call", "open", title="open", status="in_progress"))
    view.cancel_tools()
    view.flush()
    assert headers(view) == ["✓ done · completed", "✗ broke · failed", "⊘ open · cancelled"]
    # what the agent sends for the call it stopped, and for one it starts while stopping
    view.add(tool("tool_call_update", "open", status="failed", rawOutput="User requested cancellation."))
    view.add(tool("tool_call", "late", title="late", status="failed"))
    view.flush()
    assert headers(view)[2:] == ["⊘ open · cancelled", "⊘ late · cancelled"]


def test_without_cancel_failed_is_failed() -> None:
    view = Transcript(prompt="p")
    view.add(tool("tool_call", "c", title="c", status="in_progress"))
    view.add(tool("tool_call_update", "c", status="failed"))
    view.flush()
    assert headers(view) == ["✗ c · failed"]
