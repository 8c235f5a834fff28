"""nbacp.demo through nbacp's own client: every scenario, every way of saying no, typed results.

The agent runs in process (pydantic-acp over the in-memory transport) and is answered by
nbacp.answers policies acting on the real cards, so the whole wire path is exercised.
"""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import pytest
from acp import schema
from support.comm_support import kids_of

import nbacp
from nbacp.answers import Script
from nbacp.demo import SCENARIOS, Dataset, Environment, Plan, Schedule, demo_agent, scenario_of
from nbacp.demo.model import help_text

FULL_ANSWERS: list[dict[str, Any]] = [
    {"expect": "form", "pick": {"choice": "Production"}},
    {
        "expect": "form",
        "pick": {"datasets": ["Orders", "Events"], "schedule": "Tonight at 02:00"},
        "fill": {"datasets_custom": "  clickstream ", "schedule_custom": "after the backup"},
    },
    {"expect": "form", "fill": {"workers": 8}},
    {"expect": "permission", "choose": "allow_once"},
]


def fetch(url: str) -> tuple[int, str]:
    """GET as a browser would (no proxy): the status and the page text."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=30) as response:
        return response.status, response.read().decode()


class Recorder:
    """A Script that also keeps every card it was shown, to inspect after the turn."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.script = Script(entries)
        self.cards: list[Any] = []
        self.shown = asyncio.Event()

    def __call__(self, card: Any) -> None:
        self.cards.append(card)
        self.shown.set()
        self.script(card)


async def run(prompt: str, answers: Any) -> tuple[nbacp.PromptResult, list[Plan]]:
    plans: list[Plan] = []
    async with nbacp.connect(demo_agent(plans=plans), answers=answers) as conn:
        session = await conn.new_session()
        result = await session.prompt(prompt)
    return result, plans


async def test_full_scenario_reports_typed_values() -> None:
    recorder = Recorder(FULL_ANSWERS)
    result, plans = await run("full", recorder)
    assert result.stop_reason == "end_turn"
    assert recorder.script.remaining == 0
    [plan] = plans
    assert plan.environment is Environment.PRODUCTION
    assert plan.datasets == [Dataset.ORDERS, Dataset.EVENTS]
    assert plan.datasets_custom == "clickstream"  # trimmed; multi-select keeps picks AND text
    assert plan.schedule is None and plan.schedule_custom == "after the backup"  # single: text wins
    assert plan.workers == 8
    assert plan.launch == "approved" and plan.complete
    assert "environment = <Environment.PRODUCTION: 'production'>" in result.text
    assert "datasets = [<Dataset.ORDERS: 'orders'>, <Dataset.EVENTS: 'events'>] + other 'clickstream'" in result.text
    assert "schedule = other 'after the backup'" in result.text
    assert "workers = 8" in result.text and "launch: approved" in result.text
    kinds = [type(card).__name__ for card in recorder.cards]
    assert kinds == ["FormCard", "FormCard", "FormCard", "PermissionCard"]
    # one answer per question, each by its own title (the two-question form gives two)
    env, datasets, schedule, workers, launch = result.answers
    assert [a.kind for a in result.answers] == ["question", "question", "question", "question", "permission"]
    assert env.question == "Which environment should the pipeline run in?"
    assert (env.action, env.value) == ("accept", "choice_2")
    assert str(env) == "Accepted: Production"
    assert (datasets.question, datasets.custom) == ("Datasets", "clickstream")
    assert datasets.value == ["datasets_0", "datasets_2"]
    assert (schedule.question, schedule.value, schedule.custom) == ("Schedule", "after the backup", "after the backup")
    assert (workers.value, launch.value, launch.action) == (8, "allow_once", "accept")
    kind, question, line = datasets  # unpacking as before
    assert (kind, question, line) == ("question", "Datasets", "Accepted: Orders, Events + “clickstream”")
    assert "Choice" not in result.record
    assert "**Permission:** launch\\_pipeline\\_run" in result.record


async def test_text_streams_in_several_chunks() -> None:
    result, _ = await run("hello there", None)
    chunks = [u for u in result.updates if isinstance(u, schema.AgentMessageChunk)]
    assert len(chunks) > 3
    assert "".join(c.content.text for c in chunks) == result.text
    for name in SCENARIOS:
        assert f"- {name}:" in result.text


async def test_ask_choice_offers_the_default() -> None:
    recorder = Recorder([{"press": "accept"}, {"press": "cancel"}])
    result, plans = await run("full", recorder)
    assert plans[0].environment is Environment.STAGING  # accepted untouched: the agent's default
    assert plans[0].stopped == ("datasets+schedule", "cancelled")
    assert "datasets+schedule: cancelled, so I stopped there" in result.text


@pytest.mark.parametrize("press", ["decline", "cancel"])
async def test_first_question_declined_or_cancelled(press: str) -> None:
    status = {"decline": "declined", "cancel": "cancelled"}[press]
    result, plans = await run("full", Script([{"press": press}]))
    assert result.stop_reason == "end_turn"
    assert plans[0].stopped == ("environment", status)
    assert plans[0].environment is None and plans[0].launch is None
    assert f"environment: {status}, so I stopped there" in result.text


async def test_number_declined_stops_before_the_permission() -> None:
    recorder = Recorder(
        [{"pick": {"choice": "Development"}}, {"pick": {"datasets": "Customers"}}, {"press": "decline"}]
    )
    result, plans = await run("full", recorder)
    assert plans[0].stopped == ("workers", "declined")
    assert plans[0].datasets == [Dataset.CUSTOMERS] and plans[0].datasets_custom is None
    assert plans[0].schedule is None and plans[0].schedule_custom is None
    assert "schedule =" not in result.text  # unanswered optional question: not "None"
    assert "schedule: accepted with nothing picked" in result.text
    assert not any(type(card).__name__ == "PermissionCard" for card in recorder.cards)


async def test_permission_rejected() -> None:
    answers = [*FULL_ANSWERS[:3], {"choose": "reject_once"}]
    result, plans = await run("full", Script(answers))
    assert plans[0].launch == "rejected"
    assert "launch: rejected" in result.text


async def test_decline_policy_stops_at_the_first_form() -> None:
    result, plans = await run("full", nbacp.answers.decline)
    assert plans[0].stopped == ("environment", "declined")


async def test_quick_is_one_multi_select_with_other() -> None:
    recorder = Recorder([{"pick": {"datasets": ["Events"]}, "fill": {"datasets_custom": "audit log"}}])
    result, plans = await run("quick", recorder)
    assert len(recorder.cards) == 1
    assert plans[0].datasets == [Dataset.EVENTS] and plans[0].datasets_custom == "audit log"
    assert "datasets = [<Dataset.EVENTS: 'events'>] + other 'audit log'" in result.text


async def test_single_pick_without_text() -> None:
    result, plans = await run("single", Script([{"pick": {"schedule": "Saturday morning"}}]))
    assert plans[0].schedule is Schedule.WEEKEND and plans[0].schedule_custom is None
    assert "schedule = <Schedule.WEEKEND: 'weekend'>" in result.text  # one value, not a list
    assert "[<Schedule" not in result.text


async def test_required_multi_select_cannot_be_accepted_empty() -> None:
    """The form refuses an empty required answer; the card stays open until the turn is cancelled."""
    recorder = Recorder([{"press": "accept"}])
    plans: list[Plan] = []
    async with nbacp.connect(demo_agent(plans=plans), answers=recorder) as conn:
        session = await conn.new_session()
        turn = session.start("quick")
        await asyncio.wait_for(recorder.shown.wait(), 60)
        [card] = recorder.cards
        assert not card.done and card.errors.get("datasets")
        card.pick("datasets", "Orders")
        card.accept()
        result = await turn
    assert result.stop_reason == "end_turn"
    assert plans[0].datasets == [Dataset.ORDERS]


async def test_login_completes_only_after_the_page_is_visited() -> None:
    """Consent is not completion: the agent serves its sign-in page on 127.0.0.1 and completes
    the elicitation when that page is fetched, not before, and not for another path."""
    recorder = Recorder([{"expect": "url", "press": "open"}])
    async with nbacp.connect(demo_agent(), answers=recorder) as conn:
        session = await conn.new_session()
        turn = session.start("/login")
        await asyncio.wait_for(recorder.shown.wait(), 60)
        [card] = recorder.cards
        parts = urlsplit(card.url)
        assert (parts.scheme, parts.hostname) == ("http", "127.0.0.1") and parts.port
        assert parts.path.startswith("/nbacp-demo/login/") and len(parts.path) > len("/nbacp-demo/login/") + 16
        assert card.stage == "waiting"
        guess = f"http://127.0.0.1:{parts.port}/nbacp-demo/login"
        with pytest.raises(urllib.error.HTTPError) as missing:
            await asyncio.to_thread(fetch, guess)
        assert missing.value.code == 404
        await asyncio.sleep(0.5)  # room for a wrong completion to arrive; none may
        assert not turn.done and not card.completed and card.stage == "waiting"
        status, page = await asyncio.to_thread(fetch, card.url)
        assert status == 200 and "Signed in to the demo data warehouse" in page
        result = await asyncio.wait_for(turn, 60)
    assert card.completed and card.stage == "completed"
    done = "sign-in: the page was visited, sign-in completed"
    assert result.text == f"The warehouse needs you to sign in first.\n\n{done}"
    with pytest.raises(urllib.error.URLError):  # the page server stops with the tool
        await asyncio.to_thread(fetch, card.url)


async def test_login_script_visits_the_page() -> None:
    """The headless answer for a person's click on Open and the tab it opens (nbval uses it)."""
    recorder = Recorder([{"expect": "url", "press": "open", "visit": True}])
    result, _ = await run("login", recorder)
    assert recorder.cards[0].completed
    assert "sign-in: the page was visited, sign-in completed" in result.text


@pytest.mark.parametrize(("press", "word"), [("decline", "declined"), ("cancel", "cancelled")])
async def test_login_declined_or_cancelled(press: str, word: str) -> None:
    recorder = Recorder([{"press": press}])
    result, _ = await run("login", recorder)
    assert not recorder.cards[0].completed
    assert f"sign-in: {word}" in result.text


def test_scenario_keywords() -> None:
    assert scenario_of("/login please") == "login"
    assert scenario_of("Run the FULL demo.") == "full"
    assert scenario_of("quickly") is None
    assert scenario_of("") is None


async def test_cancelling_the_turn_while_a_question_waits() -> None:
    """session.cancel() closes the open card as cancelled and the agent ends the turn as cancelled."""
    recorder = Recorder([])  # nobody answers
    plans: list[Plan] = []
    async with nbacp.connect(demo_agent(plans=plans), answers=recorder) as conn:
        session = await conn.new_session()
        turn = session.start("full")
        await asyncio.wait_for(recorder.shown.wait(), 60)
        await session.cancel()
        result = await asyncio.wait_for(turn, 60)
    assert result.stop_reason == "cancelled"
    assert recorder.cards[0].done
    assert type(recorder.cards[0].response).__name__ == "CancelElicitationResponse"


def tool_headers(widget: Any) -> list[str]:
    """The tool-call lines a turn's live view shows."""
    found = ["nbacp-tool-header" in getattr(widget, "_dom_classes", ()) and widget.value or ""]
    for child in kids_of(widget):
        found += tool_headers(child)
    return [line for line in found if line]


async def test_cancelled_turn_reads_right() -> None:
    """The agent's sentence and the adapter's cancellation note stay apart, and the stopped
    tool call shows as cancelled, not failed (ACP: the client marks it cancelled)."""
    recorder = Recorder([])
    async with nbacp.connect(demo_agent(), answers=recorder) as conn:
        session = await conn.new_session()
        turn = session.start("full")
        await asyncio.wait_for(recorder.shown.wait(), 60)
        await session.cancel()
        result = await asyncio.wait_for(turn, 60)
    assert result.stop_reason == "cancelled"
    assert "questions first.\n\nUser stopped the run." in result.text
    assert "first.User" not in result.record and "first\\.User" not in result.record
    [header] = tool_headers(turn.transcript)
    assert "plan_pipeline_run" in header and header.endswith("cancelled") and "failed" not in header


@pytest.mark.parametrize(
    ("prompt", "intro"),
    [
        ("full", "I have a few questions first."),
        ("quick", "I have a question first."),
        ("single", "I have a question first."),
    ],
)
async def test_intro_counts_the_questions(prompt: str, intro: str) -> None:
    result, _ = await run(prompt, nbacp.answers.decline)
    assert result.text.startswith(f"Let's plan tonight's data pipeline run. {intro}\n\nHere is what I received:\n")


async def test_accepted_with_nothing_picked_is_an_answer() -> None:
    """An optional single-select accepted empty: the agent says so; it was asked and answered."""
    result, plans = await run("single", Script([{"press": "accept"}]))
    assert plans[0].complete and plans[0].schedule is None and plans[0].schedule_custom is None
    assert result.text.endswith("Here is what I received:\nschedule: accepted with nothing picked")
    assert "nothing was asked" not in result.text


async def test_single_select_custom_text_is_one_value() -> None:
    answer = {"pick": {"schedule": "Right now"}, "fill": {"schedule_custom": " noon "}}
    result, _ = await run("single", Script([answer]))
    assert result.text.endswith("schedule = other 'noon'")


def test_help_does_not_say_start_with() -> None:
    assert scenario_of("please run the quick one") == "quick"  # any position matches
    assert "Put one of these words in your prompt:" in help_text()
