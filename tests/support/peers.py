"""Test agents for the client tests: ACP Kit ask_choice, held elicitations, fan-out, stdio.

Everything here is a real ACP peer: pydantic-acp agents with a deterministic FunctionModel,
or raw ``acp.Agent`` objects that use the agent-side connection the SDK hands them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import json
import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a file (``python tests/support/peers.py``): find the support package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acp.schema import (
    ElicitationFormSessionMode,
    ElicitationSchema,
    ElicitationUrlSessionMode,
    PermissionOption,
    PromptResponse,
    ToolCallUpdate,
)
from support.agents import RawAgent, acp_kit_agent, claude_question_schema
from support.sdk_line import HAS_ACP_KIT, require_acp_kit

if HAS_ACP_KIT:  # not on SDK 1.x (support/sdk_line.py): choice_agent skips there
    from pydantic_acp import (
        AcpSessionContext,
        ChoiceElicitationAccepted,
        ChoiceElicitationCancelled,
        ChoiceElicitationDeclined,
        ElicitationChoice,
    )
    from pydantic_ai import Agent, RunContext
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
from support.builders import text_block, update_agent_message


class Target(enum.Enum):
    PREVIEW = "preview"
    PRODUCTION = "production"


@dataclasses.dataclass(frozen=True)
class Region:
    code: str
    latency_ms: int


def choice_agent(choices: list[ElicitationChoice[Any]], outcomes: list[Any]) -> Any:
    """An ACP Kit agent whose only tool calls ``ctx.deps.ask_choice`` and reports the typed result."""
    require_acp_kit()

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returned = [p.content for p in getattr(messages[-1], "parts", []) if isinstance(p, ToolReturnPart)]
        if returned:
            return ModelResponse(parts=[TextPart(content=str(returned[0]))])
        return ModelResponse(parts=[ToolCallPart(tool_name="choose", args={})])

    agent: Agent[AcpSessionContext, str] = Agent(FunctionModel(model), deps_type=AcpSessionContext)

    @agent.tool
    async def choose(ctx: RunContext[AcpSessionContext]) -> str:
        """Ask the person to choose."""
        result = await ctx.deps.ask_choice("Choose one", choices)
        outcomes.append(result)
        if isinstance(result, ChoiceElicitationAccepted):
            return f"accepted {result.value!r}"
        if isinstance(result, ChoiceElicitationDeclined):
            return "declined"
        if isinstance(result, ChoiceElicitationCancelled):
            return "cancelled"
        raise AssertionError(f"unexpected result {result!r}")

    return acp_kit_agent(agent)


class HoldingAgent(RawAgent):
    """Sends one elicitation and keeps the turn open until ``release`` (or session/cancel) ends it.

    With ``end_early`` the prompt returns ``end_turn`` as soon as the request is out, leaving
    the elicitation pending: the client must close that card itself.
    """

    def __init__(self, *, end_early: bool = False, url: str | None = None) -> None:
        super().__init__()
        self.end_early = end_early
        self.url = url
        self.sent = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.replies: list[Any] = []
        self.errors: list[BaseException] = []

    async def _elicit(self, session_id: str) -> None:
        message, schema = claude_question_schema(
            [{"question": "Which colour?", "options": [{"label": "Red"}, {"label": "Blue"}]}]
        )
        if self.url is not None:
            mode: Any = ElicitationUrlSessionMode(session_id=session_id, elicitation_id="e-1", url=self.url)
        else:
            mode = ElicitationFormSessionMode(session_id=session_id, requested_schema=ElicitationSchema(**schema))
        self.sent.set()
        try:
            self.replies.append(await self.conn.create_elicitation(message=message, mode=mode))
        except Exception as exc:
            self.errors.append(exc)

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        task = asyncio.ensure_future(self._elicit(session_id))
        if self.end_early:
            await self.sent.wait()
            await asyncio.sleep(0)
            self._background = task
            return PromptResponse(stop_reason="end_turn")
        waiters = [asyncio.ensure_future(self.release.wait()), asyncio.ensure_future(self.cancelled.wait())]
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        for waiter in waiters:
            waiter.cancel()
        if not task.done():
            await asyncio.wait({task}, timeout=5)
        return PromptResponse(stop_reason="cancelled" if self.cancelled.is_set() else "end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled.set()


class FanOutAgent(RawAgent):
    """Each prompt sends ``count`` elicitations at once, each with its own token, and says the replies."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    async def _one(self, session_id: str, index: int) -> str:
        schema = {
            "type": "object",
            "properties": {"pick": {"type": "string", "enum": [f"t{index}", "other"]}},
            "required": ["pick"],
        }
        mode = ElicitationFormSessionMode(session_id=session_id, requested_schema=ElicitationSchema(**schema))
        reply = await self.conn.create_elicitation(message=f"{session_id} #{index}", mode=mode)
        return f"{index}={reply.content['pick'] if reply.action == 'accept' else reply.action}"

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        replies = await asyncio.gather(*(self._one(session_id, i) for i in range(self.count)))
        await self.conn.session_update(
            session_id=session_id, update=update_agent_message(text_block(" ".join(replies)))
        )
        return PromptResponse(stop_reason="end_turn")


class PermissionAgent(RawAgent):
    """Asks for permission to write a file and says which option the client chose."""

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        options = [
            PermissionOption(option_id="allow", name="Allow once", kind="allow_once"),
            PermissionOption(option_id="deny", name="Reject", kind="reject_once"),
        ]
        tool_call = ToolCallUpdate(tool_call_id="call-1", title="Write notes.txt", kind="edit", status="pending")
        response = await self.conn.request_permission(session_id=session_id, tool_call=tool_call, options=options)
        outcome = response.outcome
        said = outcome.option_id if outcome.outcome == "selected" else outcome.outcome
        await self.conn.session_update(session_id=session_id, update=update_agent_message(text_block(said)))
        return PromptResponse(stop_reason="end_turn")


class ExitingAgent(HoldingAgent):
    """For stdio: sends the elicitation, then the whole process exits (an agent crash)."""

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        asyncio.ensure_future(self._elicit(session_id))
        await self.sent.wait()
        await asyncio.sleep(0.2)
        import os

        os._exit(3)


def main() -> None:
    """``python tests/support/peers.py MODE``: serve a test agent over stdio."""
    from acp import run_agent
    from support.agents import SchemaAgent

    mode = sys.argv[1]
    agent: Any
    if mode == "exit":
        agent = ExitingAgent()
    elif mode == "schema":
        agent = SchemaAgent(sys.argv[2], json.loads(sys.argv[3]))
    else:
        raise SystemExit(f"unknown mode {mode}")
    asyncio.run(run_agent(agent, use_unstable_protocol=False))


if __name__ == "__main__":
    main()
