"""An ACP Kit agent (pydantic-acp, a deterministic FunctionModel) that edits the notebook it was
prompted from through nbacp's kernel tools, and keeps every tool result its model received.

Its model first calls ``notebook_read``, then proposes, all at once, the edits of ``plan``: each
one ``notebook_edit``'s arguments with ``"cell": <index>`` in place of ``cell_id`` (the model
takes the id of that cell from what it read, as a model would), then ends the turn. The tools
reach the kernel's MCP server over streamable HTTP (the entry nbacp put in ``session/new``; the
agent advertises ``mcpCapabilities.http`` as the demo does) with the ``mcp`` SDK's own client.
``received`` gets the read's result, then each edit's, in the plan's order, as
``{"is_error", "text"}``.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_acp import AcpSessionContext, AdapterConfig, create_acp_agent
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from nbacp.demo.explore import AcceptsHttpMcpServers, notebook_server


async def _call(deps: AcpSessionContext, name: str, arguments: dict[str, Any]) -> str:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    server = notebook_server(deps)
    assert server is not None, "the session has no kernel tools"
    headers = {str(k): str(v) for k, v in dict(server.get("headers") or {}).items()}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=None)) as http,
        Client(streamable_http_client(str(server["url"]), http_client=http)) as mcp,
    ):
        result = await mcp.call_tool(name, arguments)
    text = "\n".join(getattr(b, "text", "") for b in result.content if getattr(b, "type", "") == "text")
    return json.dumps({"is_error": bool(result.is_error), "text": text})


def notebook_agent(plan: list[dict[str, Any]], received: list[Any]) -> Any:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returned = sorted(
            (p for p in getattr(messages[-1], "parts", []) if isinstance(p, ToolReturnPart)),
            key=lambda p: p.tool_call_id,
        )
        if not returned:
            return ModelResponse(parts=[ToolCallPart(tool_name="notebook_read", args={}, tool_call_id="read")])
        if returned[0].tool_name == "notebook_read":
            read = json.loads(str(returned[0].content))
            received.append(read)
            view: dict[str, Any] = (
                json.loads(read["text"]) if not read["is_error"] else {"notebook_path": "?", "cells": []}
            )
            ids = [cell["id"] for cell in view["cells"]]
            calls = []
            for i, step in enumerate(plan):
                args = {k: v for k, v in step.items() if k != "cell"}
                if "cell" in step:
                    args["cell_id"] = ids[step["cell"]] if step["cell"] < len(ids) else f"cell-{step['cell']}"
                calls.append(
                    ToolCallPart(
                        tool_name="notebook_edit",
                        tool_call_id=f"edit-{i:02d}",
                        args={"notebook_path": view["notebook_path"], **args},
                    )
                )
            return ModelResponse(parts=calls)
        received.extend(json.loads(str(p.content)) for p in returned)
        return ModelResponse(parts=[TextPart(content=f"{len(returned)} proposal(s) answered")])

    agent: Agent[AcpSessionContext, str] = Agent(FunctionModel(model), deps_type=AcpSessionContext, name="editor")

    @agent.tool
    async def notebook_read(ctx: RunContext[AcpSessionContext]) -> str:
        """Read the notebook."""
        return await _call(ctx.deps, "notebook_read", {})

    @agent.tool
    async def notebook_edit(
        ctx: RunContext[AcpSessionContext],
        notebook_path: str,
        edit_mode: str,
        cell_id: str | None = None,
        new_source: str | None = None,
    ) -> str:
        """Propose one edit."""
        args = {"notebook_path": notebook_path, "edit_mode": edit_mode, "cell_id": cell_id, "new_source": new_source}
        return await _call(ctx.deps, "notebook_edit", {k: v for k, v in args.items() if v is not None})

    class _Source:
        async def get_agent(self, session: AcpSessionContext) -> Agent[AcpSessionContext, str]:
            return agent

        async def get_deps(self, session: AcpSessionContext, agent: Any) -> AcpSessionContext:
            return session

    config = AdapterConfig(agent_name="notebook-editor", capability_bridges=[AcceptsHttpMcpServers()])
    return create_acp_agent(agent_source=_Source(), config=config)
