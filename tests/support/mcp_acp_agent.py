"""A raw ``acp`` agent that takes MCP servers over the ACP connection (``mcpCapabilities.acp``).

It keeps the ``acp`` servers it gets in ``session/new`` and, on a prompt, plays an MCP client
through ``mcp/connect`` / ``mcp/message`` / ``mcp/disconnect`` on the ACP connection, then says
what it saw as one JSON object (the test reads it from the turn's text). Prompt words:
``tools`` (initialize, tools/list, list_variables, run_python of ``code ...`` after the word
``code``), ``unknown`` (mcp/connect with a server id nobody offered), ``calls <JSON>`` (a list of
steps, each one tool call ``{"name", "arguments"}`` or a list of calls made at once; the report's
``results`` hold each call's MCP result in the same shape).

Run over stdio: ``python tests/support/mcp_acp_agent.py``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a file: find the support package (its builders)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import AgentCapabilities, InitializeResponse, McpCapabilities, NewSessionResponse, PromptResponse
from support.builders import text_block, update_agent_message


class McpAcpAgent:
    def __init__(self, *, http: bool = False) -> None:
        self.conn: Any = None
        self.http = http
        self.servers: dict[str, list[Any]] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        caps = AgentCapabilities(mcp_capabilities=McpCapabilities(acp=not self.http, http=self.http))
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=caps)

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any) -> NewSessionResponse:
        session_id = f"sess-{uuid.uuid4().hex[:8]}"
        self.servers[session_id] = [s.model_dump(by_alias=True, exclude_none=True) for s in (mcp_servers or [])]
        return NewSessionResponse(session_id=session_id)

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        text = " ".join(getattr(block, "text", "") for block in prompt).strip()
        if text.startswith("servers"):
            report: dict[str, Any] = {"servers": self.servers[session_id]}
        elif text.startswith("flood"):
            report = await self._flood(session_id, int(text.split()[1]))
        elif text.startswith("disconnect-during-run"):
            report = await self._disconnect_during_run(session_id)
        elif text.startswith("calls "):
            report = await self._calls(session_id, json.loads(text[len("calls ") :]))
        elif text.startswith("unknown"):
            report = await self._call("mcp/connect", {"serverId": "nobody-offered-this"})
        else:
            code = text.split("code ", 1)[1] if "code " in text else "1 + 1"
            report = await self._tools(session_id, code)
        await self.conn.session_update(session_id, update_agent_message(text_block(json.dumps(report))))
        return PromptResponse(stop_reason="end_turn")

    async def _call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return {"result": await self.conn._conn.send_request(method, params)}
        except RequestError as exc:
            return {"error": {"code": exc.code, "message": str(exc), "data": exc.data}}

    async def _tools(self, session_id: str, code: str) -> dict[str, Any]:
        acp_servers = [s for s in self.servers[session_id] if s.get("type") == "acp"]
        connected = await self._call("mcp/connect", {"serverId": acp_servers[0]["serverId"]})
        cid = connected["result"]["connectionId"]

        async def mcp(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
            return await self._call("mcp/message", {"connectionId": cid, "method": method, "params": params})

        report: dict[str, Any] = {"connect": connected}
        client_info = {"name": "mcp-acp-agent", "version": "1"}
        report["initialize"] = await mcp(
            "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client_info}
        )
        await self.conn._conn.send_notification(
            "mcp/message", {"connectionId": cid, "method": "notifications/initialized"}
        )
        report["list"] = await mcp("tools/list", {})
        report["variables"] = await mcp("tools/call", {"name": "list_variables", "arguments": {}})
        report["run"] = await mcp("tools/call", {"name": "run_python", "arguments": {"code": code}})
        report["bogus"] = await mcp("no/such/method", {})
        report["disconnect"] = await self._call("mcp/disconnect", {"connectionId": cid})
        report["after"] = await mcp("tools/list", {})
        return report

    async def _calls(self, session_id: str, steps: list[Any]) -> dict[str, Any]:
        server_id = [s for s in self.servers[session_id] if s.get("type") == "acp"][0]["serverId"]
        cid = (await self._call("mcp/connect", {"serverId": server_id}))["result"]["connectionId"]

        async def call(step: dict[str, Any]) -> dict[str, Any]:
            params = {"name": step["name"], "arguments": step.get("arguments", {})}
            return await self._call("mcp/message", {"connectionId": cid, "method": "tools/call", "params": params})

        info = {"name": "mcp-acp-agent", "version": "1"}
        await self._call(
            "mcp/message",
            {
                "connectionId": cid,
                "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info},
            },
        )
        results: list[Any] = []
        for step in steps:
            results.append(list(await asyncio.gather(*map(call, step))) if isinstance(step, list) else await call(step))
        await self._call("mcp/disconnect", {"connectionId": cid})
        return {"results": results}

    async def _flood(self, session_id: str, count: int) -> dict[str, Any]:
        """``count`` mcp/connect calls, none disconnected: how many were accepted, and the first refusal."""
        server_id = [s for s in self.servers[session_id] if s.get("type") == "acp"][0]["serverId"]
        accepted, refusal = 0, None
        for _ in range(count):
            reply = await self._call("mcp/connect", {"serverId": server_id})
            if "result" in reply:
                accepted += 1
            elif refusal is None:
                refusal = reply["error"]
        return {"accepted": accepted, "refusal": refusal}

    async def _disconnect_during_run(self, session_id: str) -> dict[str, Any]:
        """run_python, then (once the client answered a permission request of ours, which its test
        policy does only while the run_python card is open) mcp/disconnect; what the run got."""
        server_id = [s for s in self.servers[session_id] if s.get("type") == "acp"][0]["serverId"]
        cid = (await self._call("mcp/connect", {"serverId": server_id}))["result"]["connectionId"]

        async def mcp(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
            return await self._call("mcp/message", {"connectionId": cid, "method": method, "params": params})

        info = {"name": "mcp-acp-agent", "version": "1"}
        await mcp("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info})
        run = asyncio.ensure_future(mcp("tools/call", {"name": "run_python", "arguments": {"code": "hit = 1"}}))
        options = [{"optionId": "go", "name": "Go", "kind": "allow_once"}]
        await self._call(
            "session/request_permission",
            {"sessionId": session_id, "toolCall": {"toolCallId": "sync", "title": "sync"}, "options": options},
        )
        disconnect = await self._call("mcp/disconnect", {"connectionId": cid})
        result = await run
        await self._call(
            "session/request_permission",
            {  # the test's policy looks at the cards now
                "sessionId": session_id,
                "toolCall": {"toolCallId": "check", "title": "check"},
                "options": options,
            },
        )
        return {"disconnect": disconnect, "run": result}

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None


def main() -> None:
    from acp import run_agent

    asyncio.run(run_agent(McpAcpAgent(), use_unstable_protocol=True))


if __name__ == "__main__":
    main()
