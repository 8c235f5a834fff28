"""The demo agent: ACP Kit (pydantic-acp) around a pydantic-ai agent with a deterministic model.

It is a real ACP agent: the notebook reaches it through the same client, transport and
widgets as any other agent, in-process or over acpremote, and it needs no API key.
"""

from __future__ import annotations

from typing import Any

from pydantic_acp import AcpSessionContext, AdapterConfig, create_acp_agent
from pydantic_ai import Agent, RunContext

from nbacp.demo import cell, explore, tools
from nbacp.demo.model import CELL_TOOL, EXPLORE_TOOL, LOGIN_TOOL, PLAN_TOOL, demo_model
from nbacp.demo.plan import Plan

AGENT_NAME = "nbacp-demo"
AGENT_TITLE = "nbacp demo agent"


def demo_agent(*, plans: list[Plan] | None = None) -> Any:
    """A fresh demo agent object for ``nbacp.connect``; ``plans`` collects each run's typed Plan."""
    sink = plans if plans is not None else []
    agent: Agent[AcpSessionContext, str] = Agent(demo_model(), deps_type=AcpSessionContext, name=AGENT_NAME)

    @agent.tool(name=PLAN_TOOL)
    async def plan_pipeline_run(ctx: RunContext[AcpSessionContext], scenario: str) -> str:
        """Ask the person how to run the data pipeline, then ask to launch it."""
        plan = await tools.plan_pipeline_run(ctx.deps, scenario)
        sink.append(plan)
        return plan.report()

    @agent.tool(name=LOGIN_TOOL)
    async def sign_in(ctx: RunContext[AcpSessionContext]) -> str:
        """Sign in to the warehouse through a URL the person opens."""
        return await tools.sign_in(ctx.deps)

    @agent.tool(name=EXPLORE_TOOL)
    async def explore_notebook(ctx: RunContext[AcpSessionContext]) -> str:
        """Look at the person's DataFrames through the notebook's kernel tools (MCP)."""
        return await explore.explore_notebook(ctx.deps)

    @agent.tool(name=CELL_TOOL)
    async def propose_cell(ctx: RunContext[AcpSessionContext]) -> str:
        """Propose a new cell in the person's notebook (they review it on a card)."""
        return await cell.propose_cell(ctx.deps)

    class _Source:
        async def get_agent(self, session: AcpSessionContext) -> Agent[AcpSessionContext, str]:
            return agent

        async def get_deps(self, session: AcpSessionContext, agent: Any) -> AcpSessionContext:
            return session

    config = AdapterConfig(
        agent_name=AGENT_NAME,
        agent_title=AGENT_TITLE,
        enable_model_config_option=False,
        capability_bridges=[explore.AcceptsHttpMcpServers()],
    )
    return create_acp_agent(agent_source=_Source(), config=config)
