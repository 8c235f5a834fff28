"""Subagent blocks in the transcript itself: where a block goes when its tool call comes late, a
child's card, blocks past a page of the transcript, and the inbox's notes. The wire tests are in
``tests/client/test_subagents.py``; here no event loop runs, so each ``add`` renders at once.
"""

from __future__ import annotations

from typing import Any

from acp import schema

from nbacp.widgets import PermissionCard
from nbacp.widgets.transcript import Transcript, nodes
from nbacp.widgets.transcript.frames import PAGE


def announce(child: str, title: str) -> dict[str, Any]:
    return {"sessionUpdate": "subagent_update", "sessionId": child, "title": title, "state": {"state": "running"}}


def chunk(text: str, tool: str | None = None) -> schema.AgentMessageChunk:
    meta = {"claudeCode": {"parentToolUseId": tool}} if tool else None
    return schema.AgentMessageChunk(
        session_update="agent_message_chunk", field_meta=meta, content=schema.TextContentBlock(type="text", text=text)
    )


def call(call_id: str, title: str) -> schema.ToolCallStart:
    return schema.ToolCallStart(session_update="tool_call", tool_call_id=call_id, title=title, status="completed")


def blocks(t: Transcript) -> list[str]:
    """The transcript's blocks in order, as "tool:<title>" / "child:<heading>" / "other"."""
    out = []
    for w in t.shown:
        if isinstance(w, nodes.Fold):
            out.append(f"child:{w.titles[0]}")
        elif isinstance(w, nodes.Box) and "nbacp-tool-call" in w._dom_classes:
            out.append(f"tool:{w.children[0].value.split(' ', 1)[1].split(' · ')[0]}")
    return out


def test_a_child_shown_before_its_tool_call_moves_under_it_when_the_call_comes() -> None:
    """claude-agent-acp shows its Task tool call only once it is done."""
    t = Transcript(prompt="p")
    t.add(call("other", "ls"))
    t.add_child("c1", chunk("working", tool="toolu_task"))
    t.add(call("late", "grep"))
    assert blocks(t) == ["tool:ls", "child:Subagent: Subagent · running", "tool:grep"]
    t.add(call("toolu_task", "Task"))
    assert blocks(t) == ["tool:ls", "tool:grep", "tool:Task", "child:Subagent: Subagent · running"]
    t.add(announce("c1", "Explore"))
    assert blocks(t)[-1] == "child:Subagent: Explore · running"
    (view,) = [w for w in t.shown if isinstance(w, nodes.Fold)]
    assert "nbacp-subagent-running" in view._dom_classes
    t.add({"sessionUpdate": "subagent_update", "sessionId": "c1", "state": {"state": "requires_action"}})
    assert "nbacp-subagent-requires_action" in view._dom_classes and "nbacp-subagent-running" not in view._dom_classes


def test_a_child_known_by_its_tool_call_only_is_named_after_it_once_it_comes() -> None:
    t = Transcript(prompt="p")
    t.add(chunk("working", tool="toolu_task"))
    assert blocks(t) == ["child:Subagent: Subagent · running"]
    t.add(call("toolu_task", "Explore the data"))
    assert blocks(t) == ["tool:Explore the data", "child:Subagent: Explore the data · running"]
    assert "Subagent: Explore the data · running\n    working" in t.record_text()


def test_a_childs_card_goes_in_its_block_and_an_unknown_childs_after_everything() -> None:
    t = Transcript(prompt="p")
    t.add(announce("c1", "Explore"))
    tool_call = schema.ToolCallUpdate(tool_call_id="w", title="Write")
    option = schema.PermissionOption(option_id="a", name="Allow", kind="allow_once")
    inside = PermissionCard(tool_call, [option], agent="Explore")
    t.add_child_card("c1", inside)
    (view,) = [w for w in t.shown if isinstance(w, nodes.Fold)]
    body = view.children[0].children[1]  # the description, then the child's own pages

    def holds(card: Any) -> bool:
        return any(card in page.children for page in body.children)

    assert holds(inside) and inside not in t.shown
    elsewhere = PermissionCard(tool_call, [option], agent="Ghost")
    t.add_child_card("never-announced", elsewhere)
    assert t.shown[-1] is elsewhere


def test_children_placed_under_a_tool_call_on_an_earlier_page_keep_every_block_in_order() -> None:
    t = Transcript(prompt="p")
    t.add(call("task", "Task"))
    for i in range(PAGE + 5):
        t.add(call(f"c{i}", f"step{i}"))
    t.add(chunk("one", tool="task"))
    t.add(chunk("two", tool="other-task"))
    t.add(call("other-task", "Other"))
    order = blocks(t)
    assert order[:2] == ["tool:Task", "child:Subagent: Task · running"]
    assert order[-2:] == ["tool:Other", "child:Subagent: Other · running"]
    assert [b for b in order if b.startswith("tool:step")] == [f"tool:step{i}" for i in range(PAGE + 5)]


def test_the_inbox_keeps_notices_in_its_notes() -> None:
    inbox = Transcript(prompt="")
    inbox.add({"sessionUpdate": "notice", "severity": "error", "title": "Quota reached"})
    notes = inbox.notes("Between turns")
    assert notes is not None and "Notice (error): Quota reached" in notes[0]
