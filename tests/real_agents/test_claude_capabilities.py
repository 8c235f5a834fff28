"""claude-agent-acp 0.101 against the fake Anthropic API: what it does with what nbacp advertises.

- the client system prompt (``sessionCapabilities.systemPrompt``, append + override advertised):
  the notebook's text reaches the model's ``system``;
- two subagents (the ``Agent`` tool, called twice in one reply, ``run_in_background: false``) run
  in parallel; each child's tool calls reach nbacp told apart, marked with
  ``_meta.claudeCode.parentToolUseId``: on the parent session after its ``Agent`` tool call
  (no ``subagents`` capability), or in the child's own session announced by ``subagent_update``
  (with it);
- a notice (its gateway warning, sent because the API is on 127.0.0.1) and a compaction
  (``/compact``): typed updates, since nbacp advertises ``session.notices`` /
  ``session.compaction`` (without them claude sends a bold message chunk and a "Compact
  conversation" think tool call: docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from agent_support import HANG, claude_env
from fake_models import AnthropicFake, Call, Calls, FakeModel, Reply, Say

import nbacp
from nbacp.client.sessions import system_prompt

pytestmark = pytest.mark.real_agents


def _wire(update: Any) -> dict[str, Any]:
    if isinstance(update, dict):
        return update
    dumped: dict[str, Any] = update.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def _system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, list):
        return "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
    return str(system or "")


def _user_text(body: dict[str, Any]) -> str:
    """The text the conversation's user turns hold (tool results left out: they quote the children)."""
    parts: list[str] = []
    for message in body.get("messages") or []:
        content = message.get("content") if message.get("role") == "user" else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(parts)


async def test_the_notebook_prompt_reaches_the_model_and_a_notice_arrives(agents_bin: Path, tmp_path: Path) -> None:
    with AnthropicFake(lambda fake, body: Say("hello from the fake")) as fake:
        async with nbacp.connect([str(agents_bin / "claude-agent-acp")], env=claude_env(tmp_path, fake.url)) as conn:
            assert conn.tap is not None and conn.tap.agent_capabilities is not None
            advertised = conn.tap.agent_capabilities["sessionCapabilities"]["systemPrompt"]
            assert advertised == {"mode": {"override": {}}}  # append (always) and override
            session = await conn.new_session(tmp_path)
            result = await asyncio.wait_for(session.prompt("Hello"), HANG)
    text = system_prompt.compose(True)
    assert text is not None
    main = [body for _path, body in fake.snapshot() if "Bash" in fake.offered_tools(body)]
    assert main and all(text in _system_text(body) for body in main)  # appended to claude's own
    assert "You are Claude Code" in _system_text(main[0]) or len(_system_text(main[0])) > 2 * len(text)
    # the notice: typed (nbacp advertises session.notices), never claude's bold chunk in the message
    notices = [u for u in map(_wire, session.updates) if u.get("sessionUpdate") == "notice"]
    assert notices and "**Warning:**" not in result.text


async def test_system_prompt_false_leaves_claudes_own(agents_bin: Path, tmp_path: Path) -> None:
    with AnthropicFake(lambda fake, body: Say("hi")) as fake:
        async with nbacp.connect([str(agents_bin / "claude-agent-acp")], env=claude_env(tmp_path, fake.url)) as conn:
            session = await conn.new_session(tmp_path, system_prompt=False)
            await asyncio.wait_for(session.prompt("Hello"), HANG)
    assert fake.snapshot() and not any("through nbacp" in _system_text(b) for _p, b in fake.snapshot())


def _agent(tag: str) -> Call:
    return Call(
        "Agent",
        {
            "description": f"Read {tag}",
            "prompt": f"CHILD-{tag.upper()}: read {tag}.txt",
            "subagent_type": "general-purpose",
            "run_in_background": False,
        },
        id=f"toolu_agent_{tag}",
    )


def _subagents(home: Path) -> Any:
    def respond(fake: FakeModel, body: dict[str, Any]) -> Reply:
        done = {r.call_id for r in fake.results_in(body)}
        said = _user_text(body)
        for tag in ("one", "two"):
            if f"CHILD-{tag.upper()}:" in said:  # the child's own conversation
                if f"toolu_read_{tag}" in done:
                    return Say(f"CHILD-{tag.upper()} finished")
                if "Read" in fake.offered_tools(body):
                    return Call("Read", {"file_path": str(home / f"{tag}.txt")}, id=f"toolu_read_{tag}")
                return Say("ok")
        if {"toolu_agent_one", "toolu_agent_two"} <= done:
            return Say("Both subagents are done.")
        if "Agent" in fake.offered_tools(body):
            return Calls((_agent("one"), _agent("two")))
        return Say("ok")

    return respond


def shown_widgets(transcript: Any) -> list[Any]:
    return list(transcript.shown)


def widget_texts(root: Any) -> list[str]:
    """Every text a widget tree shows (labels, HTML, accordion titles), depth first."""
    out: list[str] = []
    stack = [root]
    while stack:
        item = stack.pop()
        for name in ("value", "summary"):
            value = getattr(item, name, None)
            if isinstance(value, str):
                out.append(value)
        out.extend(str(t) for t in getattr(item, "titles", ()) or ())
        stack.extend(reversed(getattr(item, "children", ())))
    return out


async def test_two_parallel_subagents_reach_nbacp_told_apart(agents_bin: Path, tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("first file\n")
    (tmp_path / "two.txt").write_text("second file\n")
    with AnthropicFake(_subagents(tmp_path)) as fake:
        async with nbacp.connect(
            [str(agents_bin / "claude-agent-acp")],
            env=claude_env(tmp_path, fake.url),
            answers=lambda card: card.choose("allow-once"),
        ) as conn:
            session = await conn.new_session(tmp_path)
            await session.set_mode("default")  # auto mode asks a classifier (the fake cannot answer it)
            result = await asyncio.wait_for(session.prompt("Read both files with two agents."), HANG)
            logs = {sid: [_wire(u) for u in log] for sid, log in conn.client.session_updates.logs.items()}
    assert result.text.endswith("Both subagents are done.")
    parent = logs[session.id]
    announced = {u["sessionId"]: u for u in parent if u.get("sessionUpdate") == "subagent_update" and "title" in u}
    # nbacp advertises subagents: each child is a session of its own, announced on the parent
    assert sorted(u["title"] for u in announced.values()) == ["Read one", "Read two"]
    for child, first in announced.items():
        reads = [u for u in logs.get(child, []) if u.get("toolCallId", "").startswith("toolu_read_")]
        assert {u["toolCallId"] for u in reads} == {f"toolu_read_{first['title'].split()[-1]}"}
    # shown as two blocks of the parent's turn, each holding its own child's Read, never the other's
    blocks = [w for w in shown_widgets(session.turn.transcript) if "nbacp-subagent" in w._dom_classes]
    assert len(blocks) == 2
    texts = sorted(" ".join(widget_texts(block)) for block in blocks)
    assert "Read one" in texts[0] and "two.txt" not in texts[0]
    assert "Read two" in texts[1] and "one.txt" not in texts[1]
    # each child's Read, told apart: by its parent tool call's id, or by its own session
    owner: dict[str, set[str]] = {}
    for sid, updates in logs.items():
        for u in updates:
            call_id = u.get("toolCallId", "")
            if call_id.startswith("toolu_read_"):
                meta = (u.get("_meta") or {}).get("claudeCode") or {}
                owner.setdefault(call_id, set()).add(meta.get("parentToolUseId") or sid)
    assert owner.keys() == {"toolu_read_one", "toolu_read_two"}
    assert all(len(v) == 1 for v in owner.values())
    assert owner["toolu_read_one"] != owner["toolu_read_two"] and session.id not in owner["toolu_read_one"]
    if owner["toolu_read_one"] == {"toolu_agent_one"}:  # marked on the parent session
        assert owner["toolu_read_two"] == {"toolu_agent_two"}
    assert fake.result_for("toolu_read_one").count("first file") == 1
    assert "CHILD-ONE finished" in fake.result_for("toolu_agent_one")
    assert "CHILD-TWO finished" in fake.result_for("toolu_agent_two")


async def test_a_compaction(agents_bin: Path, tmp_path: Path) -> None:
    with AnthropicFake(lambda fake, body: Say("SUMMARY: we said hello.")) as fake:
        async with nbacp.connect([str(agents_bin / "claude-agent-acp")], env=claude_env(tmp_path, fake.url)) as conn:
            session = await conn.new_session(tmp_path)
            await session.set_mode("default")
            await asyncio.wait_for(session.prompt("Hello"), HANG)
            before = len(session.updates)
            await asyncio.wait_for(session.prompt("/compact"), HANG)
            updates = [_wire(u) for u in session.updates[before:]]
    typed = [u for u in updates if u.get("sessionUpdate") == "compaction_update"]
    think = [u for u in updates if ((u.get("_meta") or {}).get("claudeCode") or {}).get("toolName") == "compact"]
    # nbacp advertises session.compaction: a typed compaction, not claude's "think" tool call
    assert typed and typed[-1].get("status") == "completed", json.dumps(updates)
    assert not think
    assert fake.snapshot()
