"""A deterministic streaming "model": no API key, same words every run.

It reads the prompt for a scenario keyword, streams a short introduction in several chunks
(each becomes one agent_message_chunk), calls the scenario's tool, and after the tool returns
streams the tool's report. The keywords let tests and notebooks run short paths.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

SCENARIOS: dict[str, str] = {
    "full": "every kind of question: a choice, two questions with Other, a number, a permission",
    "quick": "one multi-select question with an Other box",
    "single": "one single-select question with an Other box",
    "login": "a sign-in page to open (consent first); the agent finishes once the page was visited",
    "explore": "look at your DataFrames through the kernel tools (session started with tools=nbacp.kernel_tools())",
    "cell": "propose a new cell in your notebook, for you to review (kernel tools with a notebook link)",
}
PLAN_TOOL = "plan_pipeline_run"
LOGIN_TOOL = "sign_in"
EXPLORE_TOOL = "explore_notebook"
CELL_TOOL = "propose_cell"

# Each introduction ends its paragraph, so whatever follows it (the report, or the adapter's
# "User stopped the run." when the person cancels) starts a paragraph of its own.
INTRO = ["Let's plan ", "tonight's data ", "pipeline run. ", "I have a few ", "questions first.", "\n\n"]
ONE_QUESTION_INTRO = ["Let's plan ", "tonight's data ", "pipeline run. ", "I have a ", "question first.", "\n\n"]
LOGIN_INTRO = ["The warehouse ", "needs you to ", "sign in first.", "\n\n"]
EXPLORE_INTRO = ["Let me look ", "at the variables ", "in your notebook.", "\n\n"]
CELL_INTRO = ["Let me read ", "your notebook ", "and propose a cell.", "\n\n"]
REPORT_HEAD = "Here is what I received:\n"


def scenario_of(prompt: str) -> str | None:
    """The first scenario keyword in the prompt (a leading slash is allowed: "/login")."""
    for word in prompt.lower().replace("/", " ").split():
        if word.strip(".,!?") in SCENARIOS:
            return word.strip(".,!?")
    return None


def help_text() -> str:
    lines = ["I am the nbacp demo agent. Put one of these words in your prompt:"]
    lines += [f"- {name}: {what}" for name, what in SCENARIOS.items()]
    return "\n".join(lines)


def _words(text: str) -> list[str]:
    """Split a text into word-sized chunks that join back to exactly the text."""
    chunks: list[str] = []
    for line in text.splitlines(keepends=True):
        parts = line.split(" ")
        chunks += [p + " " for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    return chunks


def _typed_text(part: UserPromptPart) -> str:
    """What the person typed: the first text of the prompt, not the text of attached resources."""
    if isinstance(part.content, str):
        return part.content
    return next((item for item in part.content if isinstance(item, str)), "")


def _last_request(messages: list[ModelMessage]) -> ModelRequest | None:
    last = messages[-1] if messages else None
    return last if isinstance(last, ModelRequest) else None


async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    """One model response, streamed: intro + tool call for a prompt, the report for a tool return."""
    request = _last_request(messages)
    parts = request.parts if request is not None else []
    returned = [p for p in parts if isinstance(p, ToolReturnPart)]
    if returned:
        head = "" if returned[0].tool_name in (LOGIN_TOOL, EXPLORE_TOOL, CELL_TOOL) else REPORT_HEAD
        for chunk in _words(head + str(returned[0].content)):
            yield chunk
        return
    prompt = " ".join(_typed_text(p) for p in parts if isinstance(p, UserPromptPart))
    scenario = scenario_of(prompt)
    if scenario is None:
        for chunk in _words(help_text()):
            yield chunk
        return
    intro, tool, args = {
        "login": (LOGIN_INTRO, LOGIN_TOOL, {}),
        "explore": (EXPLORE_INTRO, EXPLORE_TOOL, {}),
        "cell": (CELL_INTRO, CELL_TOOL, {}),
        "full": (INTRO, PLAN_TOOL, {"scenario": "full"}),
    }.get(scenario, (ONE_QUESTION_INTRO, PLAN_TOOL, {"scenario": scenario}))  # quick, single: one question
    for chunk in intro:
        yield chunk
    yield {0: DeltaToolCall(name=tool, json_args=json.dumps(args), tool_call_id=f"{tool}-{len(messages)}")}


def demo_model() -> FunctionModel:
    return FunctionModel(stream_function=stream, model_name="nbacp-demo")
