"""The demo's tools: every kind of question an agent can put to a notebook, with typed answers.

``plan_pipeline_run`` asks, in order: a single-select through ACP Kit's ``ask_choice`` (typed
enum values, one default), a multi-select with Other plus a single-select with Other through
``nbacp.questions`` (one form), an integer through the low-level ``create_elicitation``, and one
permission through the session's approval bridge (the same path pydantic-acp takes for tools
declared ``requires_approval``), so the notebook shows a permission card. ``sign_in`` asks for
consent to open its sign-in page (served on 127.0.0.1) and completes the elicitation once that
page was visited, as a login callback would.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from acp.schema import (
    AcceptElicitationResponse,
    CancelElicitationResponse,
    DeclineElicitationResponse,
    ElicitationFormSessionMode,
    ElicitationSchema,
    ElicitationUrlSessionMode,
)
from pydantic import AnyUrl
from pydantic_acp import (
    AcpSessionContext,
    ChoiceElicitationAccepted,
    ChoiceElicitationDeclined,
    ElicitationChoice,
)
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.tools import DeferredToolRequests, ToolApproved

from nbacp.demo.plan import (
    DATASETS,
    ENVIRONMENT_QUESTION,
    SCHEDULE,
    WORKERS_DEFAULT,
    WORKERS_MAX,
    WORKERS_MIN,
    WORKERS_QUESTION,
    Environment,
    Plan,
    Status,
)
from nbacp.demo.signin import SignInPage
from nbacp.questions import (
    InvalidQuestionResponseError,
    Question,
    QuestionsAccepted,
    QuestionsDeclined,
    QuestionsResult,
    ask_questions,
)

LOGIN_MESSAGE = "Sign in to the demo data warehouse"
VISIT_TIMEOUT = 600  # seconds the agent waits, after consent, for the sign-in page to be visited

_ids = itertools.count(1)

ENVIRONMENTS = [
    ElicitationChoice(value=Environment.DEV, label="Development", description="A scratch copy of the data"),
    ElicitationChoice(value=Environment.STAGING, label="Staging", description="Yesterday's snapshot", default=True),
    ElicitationChoice(value=Environment.PRODUCTION, label="Production", description="The live warehouse"),
]

WORKERS_SCHEMA = ElicitationSchema.model_validate(
    {
        "type": "object",
        "properties": {
            "workers": {
                "type": "integer",
                "title": "Workers",
                "description": f"Parallel workers, {WORKERS_MIN} to {WORKERS_MAX}",
                "minimum": WORKERS_MIN,
                "maximum": WORKERS_MAX,
                "default": WORKERS_DEFAULT,
            }
        },
        "required": ["workers"],
    }
)


def _status(response: Any) -> Status:
    if isinstance(response, DeclineElicitationResponse | ChoiceElicitationDeclined | QuestionsDeclined):
        return "declined"
    return "cancelled"


async def plan_pipeline_run(deps: AcpSessionContext, scenario: str) -> Plan:
    """Ask what the scenario needs; stop at the first question that is declined or cancelled."""
    plan = Plan(scenario=scenario)
    if scenario == "full":
        choice = await deps.ask_choice(ENVIRONMENT_QUESTION, ENVIRONMENTS)
        if not isinstance(choice, ChoiceElicitationAccepted):
            plan.stopped = ("environment", _status(choice))
            return plan
        plan.environment = choice.value
    by_scenario: dict[str, list[Question[Any]]] = {"quick": [DATASETS], "single": [SCHEDULE]}
    questions = by_scenario.get(scenario, [DATASETS, SCHEDULE])
    step = "+".join(q.id for q in questions)
    try:
        answers: QuestionsResult[Any] = await ask_questions(deps, questions)
    except InvalidQuestionResponseError:
        plan.stopped = (step, "invalid")
        return plan
    if not isinstance(answers, QuestionsAccepted):
        plan.stopped = (step, _status(answers))
        return plan
    plan.answered += [q.id for q in questions]
    if "datasets" in answers.answers:
        plan.datasets = list(answers.answers["datasets"].values)
        plan.datasets_custom = answers.answers["datasets"].custom
    if "schedule" in answers.answers:
        picked = answers.answers["schedule"].values
        plan.schedule = picked[0] if picked else None
        plan.schedule_custom = answers.answers["schedule"].custom
    if scenario != "full":
        return plan
    if not await _ask_workers(deps, plan):
        return plan
    await _ask_launch(deps, plan)
    return plan


async def _ask_workers(deps: AcpSessionContext, plan: Plan) -> bool:
    mode = ElicitationFormSessionMode(session_id=deps.session_id, requested_schema=WORKERS_SCHEMA)
    response = await deps.create_elicitation(WORKERS_QUESTION, mode)
    if not isinstance(response, AcceptElicitationResponse):
        plan.stopped = ("workers", _status(response))
        return False
    value = (response.content or {}).get("workers")
    # The SDK does not validate content against the schema: check it, as every agent should.
    if isinstance(value, bool) or not isinstance(value, int) or not WORKERS_MIN <= value <= WORKERS_MAX:
        plan.stopped = ("workers", "invalid")
        return False
    plan.workers = value
    return True


async def _ask_launch(deps: AcpSessionContext, plan: Plan) -> None:
    """The one permission: launching the run with the chosen settings."""
    assert plan.environment is not None and plan.workers is not None
    call = ToolCallPart(
        tool_name="launch_pipeline_run",
        args={
            "environment": plan.environment.value,
            "datasets": [d.value for d in plan.datasets] + ([plan.datasets_custom] if plan.datasets_custom else []),
            "workers": plan.workers,
        },
        tool_call_id=f"launch-{next(_ids)}",
    )
    resolution = await deps.resolve_deferred_approvals(DeferredToolRequests(approvals=[call]))
    if resolution.cancelled:
        plan.stopped = ("launch", "cancelled")
        return
    verdict = resolution.deferred_tool_results.approvals.get(call.tool_call_id)
    plan.launch = "approved" if isinstance(verdict, ToolApproved) else "rejected"


async def sign_in(deps: AcpSessionContext) -> str:
    """URL mode: consent is not completion; the agent completes once its sign-in page was visited."""
    elicitation_id = f"demo-login-{next(_ids)}"
    async with SignInPage() as page:
        url = AnyUrl(page.url)
        mode = ElicitationUrlSessionMode(session_id=deps.session_id, elicitation_id=elicitation_id, url=url)
        response = await deps.create_elicitation(LOGIN_MESSAGE, mode)
        if isinstance(response, DeclineElicitationResponse):
            return "sign-in: declined"
        if not isinstance(response, AcceptElicitationResponse):
            assert isinstance(response, CancelElicitationResponse)
            return "sign-in: cancelled"
        try:
            await asyncio.wait_for(page.visited(), VISIT_TIMEOUT)
        except TimeoutError:
            return f"sign-in: consent given, but the page was not visited within {VISIT_TIMEOUT // 60} minutes"
    await deps.complete_elicitation(elicitation_id)
    return "sign-in: the page was visited, sign-in completed"
