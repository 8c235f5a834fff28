"""Subagents over a real stdio transport: the capability on the wire, one block per child with its
own messages, tool calls and cards, the stop button, claude's ``parentToolUseId`` marks, the record
and the bounds. The peer is raw JSON-RPC (``support.subagent_agent``): the SDK's agent side would
drop the raw capabilities and refuse updates outside its schema. Runs on both SDK lines (the
``test-sdk1`` tier runs this file on 1.x too).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from support.comm_support import kids_of
from support.subagent_agent import command, report

import nbacp
from nbacp.widgets.card import Card
from nbacp.widgets.transcript import nodes
from nbacp.widgets.transcript import subagents as child_blocks


def announce(
    child: str, title: str, *, cancel: bool = True, state: str = "running", description: str = ""
) -> list[Any]:
    update: dict[str, Any] = {
        "sessionUpdate": "subagent_update",
        "sessionId": child,
        "title": title,
        "state": {"state": state},
    }
    if description:
        update["description"] = description
    if cancel:
        update["capabilities"] = {"cancel": {}}
    return ["update", None, update]


def chunk(
    session: str | None, text: str, *, meta: dict[str, Any] | None = None, kind: str = "agent_message_chunk"
) -> list[Any]:
    update: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    if meta is not None:
        update["_meta"] = meta
    return ["update", session, update]


def tool(session: str | None, call_id: str, title: str, *, meta: dict[str, Any] | None = None) -> list[Any]:
    update: dict[str, Any] = {
        "sessionUpdate": "tool_call",
        "toolCallId": call_id,
        "title": title,
        "kind": "other",
        "status": "in_progress",
    }
    if meta is not None:
        update["_meta"] = meta
    return ["update", session, update]


def labels(root: Any) -> list[str]:
    out: list[str] = []
    stack = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, nodes.Text):
            out.append(item.value)
        elif isinstance(item, Card) and item.summary:  # an answered card draws its own line
            out.append(item.summary)
        stack.extend(reversed(kids_of(item)))
    return out


def child_views(transcript: Any) -> list[nodes.Fold]:
    return [w for w in transcript.shown if isinstance(w, nodes.Fold) and "nbacp-subagent" in w._dom_classes]


def tool_header(widget: Any) -> str:
    if isinstance(widget, nodes.Box) and "nbacp-tool-call" in widget._dom_classes:
        return str(widget.children[0].value)
    return ""


async def run(script: dict[str, Any], tmp_path: Path, **connect: Any) -> tuple[Any, Any, list[list[Any]]]:
    async with asyncio.timeout(60), nbacp.connect(command(script, tmp_path), **connect) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        result = await session.prompt("go")
        return session.turn, result, report(result.text)


async def test_the_capabilities_reach_the_wire_beside_the_sdks_own(tmp_path: Path) -> None:
    _, _, received = await run({"turns": [[]]}, tmp_path)
    method, params = received[0]
    caps = params["clientCapabilities"]
    assert method == "initialize"
    assert caps["subagents"] == {}
    assert caps["session"]["notices"] == {} and caps["session"]["compaction"] == {}
    assert caps["session"]["configOptions"] == {"boolean": {}}  # the SDK's own fields are kept
    assert caps["fs"]["readTextFile"] is True and "form" in caps["elicitation"]


async def test_two_children_are_two_blocks_under_their_tool_calls_never_interleaved(tmp_path: Path) -> None:
    error = {"code": -32603, "message": "the model failed"}
    turn = [
        tool(None, "task-1", "Task: explore"),
        tool(None, "task-2", "Task: review"),
        announce("c-explore", "Explore", description="Find the data files"),
        announce("c-review", "Review", cancel=False),
        [
            "update",
            None,
            {
                "sessionUpdate": "session_message",
                "messageId": "task-1",
                "senderSessionId": "parent",
                "recipientSessionId": "c-explore",
                "content": [{"type": "text", "text": "look in data/"}],
            },
        ],
        [
            "update",
            None,
            {
                "sessionUpdate": "session_message",
                "messageId": "task-2",
                "senderSessionId": "parent",
                "recipientSessionId": "c-review",
                "content": [{"type": "text", "text": "review it"}],
            },
        ],
        chunk("c-explore", "alpha one "),
        chunk("c-review", "beta one "),
        chunk("c-explore", "alpha two"),
        chunk("c-review", "beta two"),
        chunk("c-explore", "pondering", kind="agent_thought_chunk"),
        tool("c-explore", "ls-1", "ls data/"),
        chunk(None, "The parent speaks."),
        [
            "update",
            None,
            {
                "sessionUpdate": "subagent_update",
                "sessionId": "c-explore",
                "state": {"state": "idle", "stopReason": "end_turn"},
            },
        ],
        [
            "update",
            None,
            {
                "sessionUpdate": "subagent_update",
                "sessionId": "c-review",
                "state": {"state": "idle", "stopReason": "error", "error": error},
            },
        ],
    ]
    t, result, _ = await run({"turns": [turn]}, tmp_path)
    transcript = t.transcript
    assert "alpha" not in result.text and "beta" not in result.text and "The parent speaks." in result.text
    views = child_views(transcript)
    assert [v.titles[0] for v in views] == [
        "Subagent: Explore · idle (end_turn)",
        "Subagent: Review · idle (error: the model failed)",
    ]
    shown = list(transcript.shown)
    for call, view in (("Task: explore", views[0]), ("Task: review", views[1])):
        at = next(i for i, w in enumerate(shown) if tool_header(w).endswith(call) or call in tool_header(w))
        assert shown[at + 1] is view  # under the tool call that started it
    explore = labels(views[0])
    assert "Find the data files" in explore and "Task from the parent: look in data/" in explore
    assert any("ls data/" in line for line in explore) and not any("ls data/" in line for line in labels(views[1]))
    record = t.record.text
    assert "Subagent: Explore · idle (end_turn)\n    Find the data files\n    alpha one alpha two" in record
    assert "Subagent: Review · idle (error: the model failed)" in record and "beta one beta two" in record
    assert "ls data/" in record.split("Subagent: Explore")[1].split("Subagent: Review")[0]
    assert "Subagent: Explore" in t.record.html and "nbacp-record-subagent" in t.record.html


async def test_a_childs_permission_request_is_a_card_in_its_block_headed_with_its_name(tmp_path: Path) -> None:
    headers: list[str] = []

    def allow(card: Any) -> None:
        headers.append(card.spec["header"])
        card.choose("allow")

    permission = {
        "sessionId": "c-explore",
        "toolCall": {"toolCallId": "w-1", "title": "Write notes.txt", "kind": "edit"},
        "options": [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "deny", "name": "Deny", "kind": "reject_once"},
        ],
    }
    turn = [announce("c-explore", "Explore"), ["request", "session/request_permission", permission]]
    t, result, received = await run({"turns": [turn]}, tmp_path, answers=allow)
    assert headers == ["Explore asks permission to edit a file"]
    assert ["reply", {"outcome": {"outcome": "selected", "optionId": "allow"}}] in received
    (view,) = child_views(t.transcript)
    assert any("Allow" in line for line in labels(view))  # the answered card's line, in the child's block
    assert "Permission: Write notes.txt" in t.record.text


async def test_the_stop_button_cancels_the_parent_and_each_running_child_that_can_be(tmp_path: Path) -> None:
    shown = asyncio.Event()
    permission = {
        "sessionId": "c-a",
        "toolCall": {"toolCallId": "w-1", "title": "Write", "kind": "edit"},
        "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
    }
    turn = [
        announce("c-a", "A"),
        announce("c-b", "B", cancel=False),
        announce("c-idle", "Idle", state="idle"),
        announce("c-wait", "Waiting", state="requires_action"),
        ["request", "session/request_permission", permission],
        ["await_cancel"],
        ["stop", "cancelled"],
    ]
    script = {"turns": [turn, []]}
    async with asyncio.timeout(60), nbacp.connect(command(script, tmp_path), answers=lambda card: shown.set()) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        running = session.start("go")
        await shown.wait()  # the child's card is up: every child is announced
        said = await session.cancel()
        first = await running
        second = await session.prompt("report")
    cancelled = [params["sessionId"] for method, params in report(second.text) if method == "session/cancel"]
    assert first.stop_reason == "cancelled"
    assert sorted(cancelled) == ["c-a", "c-wait", "parent"]  # not B (no cancel), not the idle child
    assert "and 2 running subagents" in said


async def test_claudes_parent_tool_use_marks_nest_children_without_the_capability(tmp_path: Path) -> None:
    def mark(tool_id: str) -> dict[str, Any]:
        return {"claudeCode": {"parentToolUseId": tool_id}}

    turn = [
        tool(None, "toolu_1", "Explore the data"),
        tool(None, "toolu_2", "Review the code"),
        chunk(None, "a1 ", meta=mark("toolu_1")),
        chunk(None, "b1 ", meta=mark("toolu_2")),
        chunk(None, "Parent text. "),
        chunk(None, "a2", meta=mark("toolu_1")),
        chunk(None, "b2", meta=mark("toolu_2")),
        tool(None, "grep-1", "grep x", meta=mark("toolu_1")),
    ]
    t, result, _ = await run({"turns": [turn]}, tmp_path)
    assert result.text.startswith("Parent text. ") and "a1" not in result.text and "b2" not in result.text
    views = child_views(t.transcript)
    assert [v.titles[0] for v in views] == [
        "Subagent: Explore the data · running",
        "Subagent: Review the code · running",
    ]
    shown = list(t.transcript.shown)
    assert shown[shown.index(views[0]) - 1] is not None and "Explore the data" in tool_header(
        shown[shown.index(views[0]) - 1]
    )
    assert any("grep x" in line for line in labels(views[0]))
    record = t.record.text
    assert "Subagent: Explore the data · running\n    a1 a2" in record
    assert "Subagent: Review the code · running\n    b1 b2" in record
    assert "grep x" not in record.split("Subagent:")[0]  # the child's tool call is not the parent's


async def test_a_message_between_sessions_without_a_block_is_one_line(tmp_path: Path) -> None:
    turn = [
        [
            "update",
            None,
            {
                "sessionUpdate": "session_message",
                "messageId": "m1",
                "senderSessionId": "x",
                "recipientSessionId": "y",
                "content": [{"type": "text", "text": "<b>hi</b>"}],
            },
        ]
    ]
    t, result, _ = await run({"turns": [turn]}, tmp_path)
    assert "Message between sessions: <b>hi</b>" in labels(t.transcript)  # a Label: text, never markup
    assert "hi" not in result.text


async def test_a_hostile_agent_cannot_open_unbounded_children_or_flood_one(tmp_path: Path) -> None:
    extra = 4
    turn = [announce(f"c-{i}", f"child {i}") for i in range(child_blocks.MAX_SUBAGENTS + extra)]
    turn += [chunk(f"c-{child_blocks.MAX_SUBAGENTS + 1}", "never shown")]
    flood = child_blocks.MAX_CHILD_UPDATES + 25
    turn += [chunk("c-0", "x") for _ in range(flood)]
    t, _, _ = await run({"turns": [turn]}, tmp_path)
    views = child_views(t.transcript)
    assert len(views) == child_blocks.MAX_SUBAGENTS
    assert "never shown" not in t.record.text
    assert "… 25 more updates of this subagent not shown" in labels(views[0])
    assert f"… {extra + 1} more subagent updates not shown (over the subagent bounds)" in t.record.text
    first = t.record.text.split("Subagent: child 0")[1].split("Subagent: child 1")[0]
    assert first.count("x") <= child_blocks.MAX_CHILD_UPDATES + 100 and len(t.record.text) < 400_000


async def test_a_child_reads_in_its_parents_folders_and_an_unknown_session_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello from the parent's folder\n", encoding="utf-8")
    read = {"path": str(tmp_path / "a.txt")}
    turn = [
        announce("c1", "Explore"),
        ["request", "fs/read_text_file", {"sessionId": "c1", **read}],
        ["request", "fs/read_text_file", {"sessionId": "ghost", **read}],
    ]
    _, _, received = await run({"turns": [turn]}, tmp_path)
    replies = [payload for kind, payload in received if kind == "reply"]
    assert replies[0] == {"content": "hello from the parent's folder\n"}
    assert "Unknown session 'ghost'" in replies[1]["message"]


async def test_a_childs_config_marked_on_the_parent_never_changes_the_parents_settings(tmp_path: Path) -> None:
    option = {
        "id": "mode",
        "name": "Mode",
        "type": "select",
        "currentValue": "bypassPermissions",
        "options": [{"value": "bypassPermissions", "name": "Bypass permissions"}],
    }
    marked = {
        "sessionUpdate": "config_option_update",
        "configOptions": [option],
        "_meta": {"claudeCode": {"parentToolUseId": "toolu_1"}},
    }
    turn = [tool(None, "toolu_1", "Task"), ["update", None, marked]]
    script = {"turns": [turn]}
    async with asyncio.timeout(60), nbacp.connect(command(script, tmp_path)) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        await session.prompt("go")
        assert session.settings.config_options == []
        (view,) = child_views(session.turn.transcript)  # type: ignore[union-attr]
    assert any(line.startswith("Config: Mode = Bypass permissions") for line in labels(view))


async def test_a_childs_question_is_a_form_in_its_block_headed_with_its_name(tmp_path: Path) -> None:
    headers: list[str] = []

    def answer(card: Any) -> None:
        headers.append(card.spec["header"])
        card.fill("colour", "blue")
        card.accept()

    schema = {"type": "object", "properties": {"colour": {"type": "string", "title": "Colour"}}}
    question = {"sessionId": "c-explore", "mode": "form", "message": "Which colour?", "requestedSchema": schema}
    turn = [announce("c-explore", "Explore"), ["request", "elicitation/create", question]]
    t, _, received = await run({"turns": [turn]}, tmp_path, answers=answer)
    assert headers == ["Explore asks"]
    assert ["reply", {"action": "accept", "content": {"colour": "blue"}}] in received
    (view,) = child_views(t.transcript)
    assert any("blue" in line for line in labels(view))  # the answered form's line, in the child's block
    assert "Question: Which colour?" in t.record.text
