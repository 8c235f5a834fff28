"""The kernel tools over the ACP connection itself (``mcpCapabilities.acp``, ``mcp/connect`` / ``mcp/message``).

The agent is ``McpAcpAgent`` (tests/support/mcp_acp_agent.py), a raw ``acp`` agent that advertises
``mcpCapabilities.acp``, in process and over stdio: it plays the MCP client through nbacp's
``mcp/*`` handling and reports what it got as JSON in the turn's text. Permission cards are
answered by nbacp.answers scripts acting on the real cards.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from support import SUPPORT
from support.mcp_acp_agent import McpAcpAgent

import nbacp
from nbacp.answers import Script

pytest.importorskip("mcp")
AGENT = SUPPORT / "mcp_acp_agent.py"
TRANSPORTS = ["memory", "stdio"]


def agent_for(transport: str, **kw: Any) -> Any:
    return McpAcpAgent(**kw) if transport == "memory" else [sys.executable, str(AGENT)]


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in result["content"] if b["type"] == "text")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_session_new_carries_an_acp_server_and_no_http(transport: str) -> None:
    async with nbacp.connect(agent_for(transport)) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}))
        servers = json.loads((await session.prompt("servers")).text)["servers"]
        assert session.tools is not None and session.tools.url == "" and session.tools._http is None
    assert len(servers) == 1 and servers[0]["type"] == "acp" and servers[0]["name"] == "notebook"
    assert servers[0]["serverId"].startswith("nbacp-notebook-")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_tools_over_acp_run_when_allowed(transport: str) -> None:
    ns: dict[str, Any] = {"n": 3, "words": ["a", "b"]}
    policy = Script([{"expect": "permission", "choose": "allow_once"}])
    async with nbacp.connect(agent_for(transport), answers=policy) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace=ns))
        report = json.loads((await session.prompt("tools code y = n * 14; y")).text)
        assert session.tools is not None and session.tools.runs == [("y = n * 14; y", "allowed")]
    assert report["connect"]["result"]["connectionId"]
    init = report["initialize"]["result"]
    assert init["serverInfo"]["name"] == "notebook" and "tools" in init["capabilities"]
    assert [t["name"] for t in report["list"]["result"]["tools"]] == ["list_variables", "describe", "run_python"]
    variables = text_of(report["variables"]["result"])
    assert "n" in variables and "words" in variables and not report["variables"]["result"].get("isError")
    run = report["run"]["result"]
    assert not run.get("isError") and "42" in text_of(run)
    assert ns["y"] == 42
    assert report["bogus"]["error"]["code"] == -32601  # the inner MCP error, as the JSON-RPC error
    assert report["disconnect"] == {"result": {}}
    after = report["after"]["error"]  # a disconnected connection is gone
    assert after["code"] == -32602 and "Unknown MCP connection id" in after["data"]["details"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_rejected_run_python_over_acp_runs_nothing(transport: str) -> None:
    ns: dict[str, Any] = {"n": 3}
    async with nbacp.connect(agent_for(transport), answers=Script([{"choose": "reject"}])) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace=ns))
        report = json.loads((await session.prompt("tools code n = 99")).text)
        assert session.tools is not None and session.tools.runs == [("n = 99", "rejected")]
    run = report["run"]["result"]
    assert run["isError"] and "nothing was run" in text_of(run)
    assert ns == {"n": 3}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_unknown_server_id_is_invalid_params(transport: str) -> None:
    async with nbacp.connect(agent_for(transport)) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}))
        error = json.loads((await session.prompt("unknown")).text)["error"]
    assert error["code"] == -32602 and "nobody-offered-this" in error["data"]["details"]


async def test_closing_the_session_ends_its_acp_server() -> None:
    async with nbacp.connect(McpAcpAgent()) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}))
        from nbacp.client.tools.acp_transport import host_for

        host = host_for(conn.client)
        assert list(host.servers.values()) == [session.tools]
    assert host.servers == {} and host.links == {}


async def test_http_only_agent_still_gets_the_http_server() -> None:
    async with nbacp.connect(McpAcpAgent(http=True)) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}))
        servers = json.loads((await session.prompt("servers")).text)["servers"]
        assert session.tools is not None and session.tools.url.startswith("http://127.0.0.1:")
    assert [s["type"] for s in servers] == ["http"] and servers[0]["url"] == session.tools.url


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_mcp_connect_is_capped(transport: str) -> None:
    from nbacp.client.tools import acp_transport

    MAX_LINKS = getattr(acp_transport, "MAX_LINKS", 16)
    async with nbacp.connect(agent_for(transport)) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace={}))
        report = json.loads((await session.prompt(f"flood {MAX_LINKS + 20}")).text)
    assert report["accepted"] == MAX_LINKS
    assert report["refusal"]["code"] == -32602 and "mcp/disconnect" in report["refusal"]["data"]["details"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_mcp_disconnect_closes_the_open_run_python_card_as_cancelled(transport: str) -> None:
    import asyncio

    from nbacp.widgets import PermissionCard

    ns: dict[str, Any] = {}
    cards: list[Any] = []
    seen_after_disconnect: list[tuple[bool, str]] = []

    def run_card() -> Any:
        return next(c for c in cards if c.tool_call.title.startswith("run_python"))

    async def policy(card: Any) -> None:
        cards.append(card)
        if card.tool_call.tool_call_id == "sync":  # answer the agent's own request once run_python asks
            while not any(c.tool_call.title.startswith("run_python") and not c.done for c in cards):
                await asyncio.sleep(0.01)
            card.choose("go")
        elif card.tool_call.tool_call_id == "check":  # sent after mcp/disconnect was answered, turn still on
            seen_after_disconnect.append((run_card().done, run_card().summary))
            card.choose("go")

    async with nbacp.connect(agent_for(transport), answers=policy) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace=ns))
        report = json.loads((await session.prompt("disconnect-during-run")).text)
        assert isinstance(run_card(), PermissionCard)
        assert run_card().choose("allow_once") is False  # nothing left to press
    [(done, summary)] = seen_after_disconnect
    assert done and summary.startswith("Cancelled"), summary
    assert report["disconnect"] == {"result": {}}
    assert "error" in report["run"] or report["run"]["result"].get("isError")
    assert ns == {}
