"""Modes, config options (select and boolean), models, and the session toolbar.

The agent is ``FeatureAgent`` (tests/support/feature_agents.py). Toolbar tests act as the browser
does: a Dropdown's ``index`` and a Checkbox's ``value`` arrive as comm ``update`` messages.
"""

from __future__ import annotations

import asyncio
import sys

import ipywidgets as widgets
import pytest
from support import SUPPORT
from support.comm_support import RecordingComms
from support.feature_agents import FeatureAgent

import nbacp
from nbacp.errors import AgentError

AGENT = SUPPORT / "feature_agents.py"


def options(session: nbacp.Session) -> dict[str, object]:
    return {o.id: o.current_value for o in session.config_options}


async def test_new_session_keeps_modes_options_and_models() -> None:
    async with nbacp.connect(FeatureAgent()) as conn:
        session = await conn.new_session()
        assert session.modes.current_mode_id == "auto"
        assert [m.id for m in session.modes.available_modes] == ["default", "plan", "auto"]
        assert options(session) == {"effort": "medium", "fast": False}
        assert session.models == {
            "currentModelId": "opus",
            "availableModels": [{"modelId": m, "name": m.title()} for m in ("opus", "sonnet", "haiku")],
        }


async def test_setters_call_the_agent_and_check_values_first() -> None:
    agent = FeatureAgent()
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session()
        await session.set_mode("default")
        await session.set_mode("Plan")  # a mode's name works too
        await session.set_config("effort", "High")
        await session.set_config("fast", True)
        await session.set_model("sonnet")
        assert session.mode == "plan"
        assert options(session) == {"effort": "high", "fast": True}
        assert session.models is not None and session.models["currentModelId"] == "sonnet"
        assert agent.calls == [
            ("mode", "default"),
            ("mode", "plan"),
            ("config", ("effort", "high")),
            ("config", ("fast", True)),
            ("model", "sonnet"),
        ]
        with pytest.raises(ValueError, match="'bogus' is not one of the agent's modes"):
            await session.set_mode("bogus")
        with pytest.raises(TypeError, match="boolean"):
            await session.set_config("fast", "yes")
        with pytest.raises(ValueError, match="not a value of 'effort'"):
            await session.set_config("effort", "extreme")
        with pytest.raises(ValueError, match="no config option 'colour'"):
            await session.set_config("colour", "red")
        with pytest.raises(AgentError, match="'effort' to 'max'.*paid plan"):
            await session.set_config("effort", "max")
        assert options(session)["effort"] == "high"
        assert len(agent.calls) == 5


async def test_agent_updates_keep_mode_and_options_current() -> None:
    async with nbacp.connect(FeatureAgent()) as conn:
        session = await conn.new_session()
        toolbar = session.toolbar
        await session.prompt("switch")
        assert session.mode == "plan" and options(session)["effort"] == "high"
        assert toolbar.controls["mode"].value == "plan" and toolbar.controls["effort"].value == "high"


async def test_without_models_list_no_model_control() -> None:
    async with nbacp.connect(FeatureAgent(models=False)) as conn:
        session = await conn.new_session()
        assert session.models is None
        assert list(session.toolbar.controls) == ["mode", "effort", "fast"]


async def test_settings_over_stdio() -> None:
    async with nbacp.connect([sys.executable, str(AGENT)]) as conn:
        session = await conn.new_session()
        await session.set_mode("default")
        await session.set_config("fast", True)
        await session.set_model("haiku")
        resumed = await conn.resume_session(session.id)
    assert resumed.mode == "default" and options(resumed)["fast"] is True
    assert resumed.models is not None and resumed.models["currentModelId"] == "haiku"


async def test_toolbar_changes_from_the_front_end_call_the_agent(comms: RecordingComms) -> None:
    agent = FeatureAgent()
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session()
        toolbar = session.toolbar
        assert list(toolbar.controls) == ["mode", "model", "effort", "fast"]
        mode, model, fast = toolbar.controls["mode"], toolbar.controls["model"], toolbar.controls["fast"]
        assert isinstance(mode, widgets.Dropdown) and isinstance(fast, widgets.Checkbox)
        comms.update(mode, index=0)  # "Default", as the browser sends it
        comms.update(model, index=2)  # "Haiku"
        comms.update(fast, value=True)
        await toolbar.settled()
        assert agent.calls == [("mode", "default"), ("model", "haiku"), ("config", ("fast", True))]
        assert session.mode == "default" and options(session)["fast"] is True
        toolbar.select("effort", "Low")  # the action API a policy or test uses
        await toolbar.settled()
        assert options(session)["effort"] == "low"


async def test_toolbar_shows_a_refusal_and_puts_the_value_back(comms: RecordingComms) -> None:
    async with nbacp.connect(FeatureAgent()) as conn:
        session = await conn.new_session()
        toolbar = session.toolbar
        toolbar.select("effort", "Max")
        await toolbar.settled()
        assert toolbar.controls["effort"].value == "medium"
        assert "max effort needs a paid plan" in toolbar.status.value
        assert comms.state_updates(toolbar.controls["effort"])[-1].get("index") == 1  # the browser is told too


async def test_toolbar_is_disabled_during_a_turn() -> None:
    agent = FeatureAgent()
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session()
        toolbar = session.toolbar
        turn = session.start("hang")
        await asyncio.sleep(0.05)
        assert toolbar.busy and all(c.disabled for c in toolbar.controls.values())
        toolbar.select("mode", "Default")
        await toolbar.settled()
        assert toolbar.controls["mode"].value == "auto" and "between turns" in toolbar.status.value
        await turn.cancel()
        await turn
        assert not toolbar.busy and not any(c.disabled for c in toolbar.controls.values())
    assert ("mode", "default") not in agent.calls


async def test_set_model_uses_the_model_config_option_when_there_is_one() -> None:
    agent = FeatureAgent(model_option=True)
    async with nbacp.connect(agent) as conn:
        session = await conn.new_session()
        await session.set_model("Haiku")
        assert agent.calls == [("config", ("model", "haiku"))]
        assert options(session)["model"] == "haiku"
        assert list(session.toolbar.controls) == ["mode", "model", "effort", "fast"]
        assert session.toolbar.controls["model"].value == "haiku"  # one Model control: the config option's
