"""Every update kind sent by a real acp agent over the in-process transport reaches the
transcript through ``Client.session_update`` (the SDK parses the wire into acp.schema
objects), and 10,000 chunks of one turn arrive complete and in order."""

from __future__ import annotations

import re
from typing import Any

from acp.schema import PromptResponse, TextContentBlock
from support.agents import NO_ELICITATION, RawAgent, ReplyingClient, in_memory_pair
from support.comm_support import walk

from nbacp.widgets.transcript import Transcript, nodes

KINDS: list[dict[str, Any]] = [
    {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "echo"}},
    {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}},
    {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Read", "kind": "read", "status": "pending"},
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "completed",
        "content": [{"type": "diff", "path": "/a", "oldText": "1\n", "newText": "2\n"}],
    },
    {"sessionUpdate": "plan", "entries": [{"content": "Step", "priority": "high", "status": "pending"}]},
    {"sessionUpdate": "plan_update", "plan": {"type": "markdown", "planId": "p", "content": "*plan*"}},
    {"sessionUpdate": "plan_removed", "planId": "p"},
    {"sessionUpdate": "available_commands_update", "availableCommands": [{"name": "go", "description": "d"}]},
    {"sessionUpdate": "current_mode_update", "currentModeId": "code"},
    {"sessionUpdate": "config_option_update", "configOptions": []},
    {"sessionUpdate": "session_info_update", "title": "T"},
    {"sessionUpdate": "usage_update", "used": 1, "size": 10},
]


class UpdatesAgent(RawAgent):
    """Each prompt sends every update kind, then ``n`` message chunks."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        for data in KINDS:
            await self.conn._conn.send_notification(
                "session/update", {"sessionId": session_id, "update": data}
            )  # the raw wire, exactly as another agent would write it
        for i in range(self.n):
            await self._say(session_id, f"w{i} ")
        return PromptResponse(stop_reason="end_turn")


class TranscriptClient(ReplyingClient):
    def __init__(self) -> None:
        super().__init__([])
        self.transcript = Transcript(prompt="go")

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.transcript.add(update)


async def test_a_real_agent_turn_fills_the_transcript() -> None:
    client = TranscriptClient()
    async with in_memory_pair(UpdatesAgent(10_000), client, NO_ELICITATION) as conn:
        session = await conn.new_session(cwd="/", mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[TextContentBlock(type="text", text="go")])
    t = client.transcript
    t.finish(response.stop_reason)
    kinds = [u.session_update for u in t.updates[: len(KINDS)]]
    assert kinds == [k["sessionUpdate"] for k in KINDS]
    assert t.text == "".join(f"w{i} " for i in range(10_000))
    shown = [w.value for w in walk(t) if isinstance(w, nodes.Text)]
    assert "✓ Read · read · completed" in shown and "Mode: code" in shown and "Session: T" in shown
    assert not any(s.startswith("Unsupported") for s in shown)
    assert "Turn ended: end_turn" in shown
    message = next(w for w in walk(t) if isinstance(w, nodes.Box) and "nbacp-agent" in w._dom_classes)
    assert re.findall(r"w\d+", message.children[0].value) == [f"w{i}" for i in range(10_000)]
