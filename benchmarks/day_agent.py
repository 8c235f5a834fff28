"""The day session's agent: one deterministic ACP agent whose turns mix what a working day brings.

Turn ``i`` (from 0) does what ``kind(i)`` says, in a cycle of ten: a form question
(multi-select + Other, ``roundtrip``'s) answered, or declined once in every 50 turns; a
permission request, then the edit it asked for; two tool calls with diffs; a proposed cell
(``notebook_edit`` through the client's kernel tools, over MCP on the ACP connection, as
``tests/support/mcp_acp_agent.py`` does); a subagent with its own message and tool call;
notices; a thought and a plan; a short chat (twice); a long streamed message. Every turn also streams a short
message. Updates go out as raw JSON (``session/update``): the SDK's agent side would refuse
``subagent_update`` and ``notice``, which are outside its schema (docs/protocol.md,
'Subagents, notices, compaction').

``script(n)`` is the headless answer policy's list (``nbacp.answers.Script``) for the cards of
turns 0..n-1, in the order they come; ``BareDayClient`` is the baseline: the bare ACP client
(``roundtrip.BareClient``) answering the same questions, keeping each turn's message text only.
"""

from __future__ import annotations

from typing import Any

from acp import RequestError
from acp.schema import (
    AgentCapabilities,
    DeclineElicitationResponse,
    ElicitationFormSessionMode,
    InitializeResponse,
    McpCapabilities,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from benchmarks.agent_base import BenchAgent
from benchmarks.roundtrip import ANSWER, FIXED_ACCEPT, MESSAGE, SCHEMA, BareClient

KINDS = ("question", "permission", "diffs", "cell", "subagent", "notices", "plan", "chat", "chat", "long")
DECLINED = "Should I also rewrite the history of the branch?"
LONG_CHUNKS = 400  # a long message: 400 chunks of ~60 characters (~24 KB)
OLD = "".join(f"value_{n} = compute({n})\n" for n in range(30))
NEW = OLD.replace("compute(1", "compute_fast(1")


def kind(i: int) -> str:
    """What turn ``i`` does; a question turn of every 50 is the declined one."""
    name = KINDS[i % len(KINDS)]
    return "declined" if name == "question" and i % 50 == 10 else name


def script(n: int) -> list[dict[str, Any]]:
    """The answer policy's entries for the cards of turns 0..n-1, in order."""
    entries: list[dict[str, Any]] = []
    for i in range(n):
        what = kind(i)
        if what == "question":
            pick = {"question_0": list(ANSWER["question_0"])}
            entries.append({"expect": "form", "pick": pick, "fill": {"question_0_custom": ANSWER["question_0_custom"]}})
        elif what == "declined":
            entries.append({"expect": "form", "press": "decline"})
        elif what == "permission":
            entries.append({"expect": "permission", "choose": "allow_once"})
        elif what == "cell":
            entries.append({"expect": "review", "review": "accept"})
    return entries


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _diff_call(call_id: str, path: str, status: str) -> dict[str, Any]:
    diff = {"type": "diff", "path": path, "oldText": OLD, "newText": NEW}
    return {"toolCallId": call_id, "title": f"Edit {path}", "kind": "edit", "status": status, "content": [diff]}


class DayAgent(BenchAgent):
    """Turn ``i`` of the session does ``kind(i)``; it offers MCP over ACP, so nbacp gives it its
    kernel tools (``notebook_edit``) as an ``acp`` server; a client without them gets no cell turn."""

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0
        self.servers: list[str] = []
        self.outcomes: list[str] = []  # what each question, permission and proposed cell came back as

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        response = await super().initialize(protocol_version, **kwargs)
        response.agent_capabilities = AgentCapabilities(mcp_capabilities=McpCapabilities(acp=True))
        return response

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any) -> NewSessionResponse:
        for server in mcp_servers or []:
            dumped = server.model_dump(by_alias=True, exclude_none=True)
            if dumped.get("type") == "acp":
                self.servers.append(dumped["serverId"])
        return await super().new_session(cwd, **kwargs)

    async def _update(self, session: str, update: dict[str, Any]) -> None:
        await self.conn._conn.send_notification("session/update", {"sessionId": session, "update": update})

    async def _say(self, session: str, text: str, kind: str = "agent_message_chunk") -> None:
        await self._update(session, {"sessionUpdate": kind, "content": _text(text)})

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        i, self.turns = self.turns, self.turns + 1
        what = kind(i)
        await self._say(session_id, f"Turn {i}: looking at it. ")
        await getattr(self, "_" + what)(session_id, i)
        await self._say(session_id, f"Done with turn {i} ({what}).")
        return PromptResponse(stop_reason="end_turn")

    async def _question(self, session: str, i: int) -> None:
        mode = ElicitationFormSessionMode(session_id=session, requested_schema=SCHEMA)
        reply = await self.conn.create_elicitation(message=MESSAGE, mode=mode)
        self.outcomes.append(f"question:{reply.action}")

    async def _declined(self, session: str, i: int) -> None:
        mode = ElicitationFormSessionMode(session_id=session, requested_schema=SCHEMA)
        reply = await self.conn.create_elicitation(message=DECLINED, mode=mode)
        self.outcomes.append(f"declined:{reply.action}")

    async def _permission(self, session: str, i: int) -> None:
        call_id = f"perm-{i}"
        await self._update(session, {"sessionUpdate": "tool_call", **_diff_call(call_id, "src/app.py", "pending")})
        options = [
            PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
            PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
        ]
        call = ToolCallUpdate(tool_call_id=call_id, title="Edit src/app.py", kind="edit", status="pending")
        reply = await self.conn.request_permission(options=options, session_id=session, tool_call=call)
        outcome = reply.outcome
        chosen = getattr(outcome, "option_id", outcome.outcome)
        self.outcomes.append(f"permission:{chosen}")
        status = "completed" if chosen == "allow" else "failed"
        await self._update(session, {"sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": status})

    async def _diffs(self, session: str, i: int) -> None:
        for n, path in enumerate(("src/model.py", "tests/test_model.py")):
            call_id = f"edit-{i}-{n}"
            await self._update(session, {"sessionUpdate": "tool_call", **_diff_call(call_id, path, "in_progress")})
            await self._update(
                session, {"sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": "completed"}
            )

    async def _cell(self, session: str, i: int) -> None:
        if not self.servers:
            return  # no kernel tools offered (the bare client)
        cid = (await self._mcp("mcp/connect", {"serverId": self.servers[-1]}))["connectionId"]

        async def mcp(method: str, params: dict[str, Any]) -> Any:
            return await self._mcp("mcp/message", {"connectionId": cid, "method": method, "params": params})

        info = {"name": "day-agent", "version": "1"}
        await mcp("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info})
        edit = {"notebook_path": "day.ipynb", "cell_id": "load", "new_source": f"df.plot(title='turn {i}')"}
        result = await mcp("tools/call", {"name": "notebook_edit", "arguments": {**edit, "edit_mode": "insert"}})
        await self._mcp("mcp/disconnect", {"connectionId": cid})
        self.outcomes.append("cell:" + ("error" if result.get("isError") else "accepted"))

    async def _mcp(self, method: str, params: dict[str, Any]) -> Any:
        try:
            return await self.conn._conn.send_request(method, params)
        except RequestError as exc:
            raise AssertionError(f"{method}: {exc}") from exc

    async def _subagent(self, session: str, i: int) -> None:
        child = f"child-{i}"
        announce = {"sessionUpdate": "subagent_update", "sessionId": child, "title": "Explore"}
        await self._update(session, {**announce, "state": {"state": "running"}, "description": "Reads the tests"})
        await self._say(child, "Reading the tests folder. " * 4)
        tool = {"toolCallId": f"read-{i}", "title": "Read tests/test_model.py", "kind": "read", "status": "completed"}
        await self._update(child, {"sessionUpdate": "tool_call", **tool})
        await self._say(child, "The tests cover the model; nothing is missing.")
        await self._update(session, {**announce, "state": {"state": "idle", "stopReason": "end_turn"}})

    async def _notices(self, session: str, i: int) -> None:
        for severity, title in (("info", "Context 40% used"), ("warning", "Rate limit close")):
            await self._update(session, {"sessionUpdate": "notice", "severity": severity, "title": title})

    async def _plan(self, session: str, i: int) -> None:
        await self._say(session, "First the model, then its tests. ", "agent_thought_chunk")
        entries = [
            {"content": step, "priority": "medium", "status": status}
            for step, status in (("Read the model", "completed"), ("Fix compute", "in_progress"), ("Test", "pending"))
        ]
        await self._update(session, {"sessionUpdate": "plan", "entries": entries})

    async def _chat(self, session: str, i: int) -> None:
        for n in range(20):
            await self._say(session, f"word{n} ")

    async def _long(self, session: str, i: int) -> None:
        for n in range(LONG_CHUNKS):
            await self._say(session, f"Line {n} of a long answer, with **markdown** and `code`.\n")


class BareDayClient(BareClient):
    """The baseline: the bare ACP client answering as the script does (a fixed accept, a decline
    for the declined question, allow), keeping only the turn's message text (what a text client prints)."""

    def __init__(self) -> None:
        super().__init__(
            lambda message, _mode: DeclineElicitationResponse(action="decline") if message == DECLINED else FIXED_ACCEPT
        )
        self.text: list[str] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if getattr(update, "session_update", "") == "agent_message_chunk":
            self.text.append(getattr(update.content, "text", ""))

    async def request_permission(self, options: Any, session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        return RequestPermissionResponse.model_validate({"outcome": {"outcome": "selected", "optionId": "allow"}})

    def take(self) -> str:
        text, self.text = "".join(self.text), []
        return text
