"""Modes, config options and the toolbar against a hostile agent: colliding ids, floods, long lists.

The agent is the scripted peer (tests/support/scripted_agent.py), in process and over stdio; the
toolbar is driven as the browser drives it (comm ``update`` messages with a Dropdown's index).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.comm_support import RecordingComms
from support.scripted_agent import report, target

import nbacp
from nbacp.client.wire.budget import Budget

VIA = pytest.mark.parametrize("via", ["in-process", "stdio"])
BUDGET = Budget()


def select(option_id: str, name: str, values: list[str], current: str) -> dict[str, Any]:
    return {
        "id": option_id,
        "name": name,
        "type": "select",
        "currentValue": current,
        "options": [{"value": v, "name": v.title()} for v in values],
    }


@VIA
async def test_options_named_mode_and_model_keep_their_own_controls(
    via: str, tmp_path: Path, comms: RecordingComms
) -> None:
    script = {
        "new_session": {
            "sessionId": "scripted",
            "modes": {
                "currentModeId": "ask",
                "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}],
            },
            "configOptions": [
                select("mode", "Mode option", ["fast", "slow"], "fast"),
                select("model", "Model option", ["m1", "m2"], "m1"),
            ],
        }
    }
    async with nbacp.connect(target(script, via, tmp_path)) as conn:
        session = await conn.new_session()
        toolbar = session.toolbar
        assert list(toolbar.controls) == ["mode", "option:mode", "model"]
        assert [label for label, _ in toolbar.controls["mode"].options] == ["Ask", "Code"]
        comms.update(toolbar.controls["mode"], index=1)
        await toolbar.settled()
        comms.update(toolbar.controls["option:mode"], index=1)
        await toolbar.settled()
        comms.update(toolbar.controls["model"], index=1)
        await toolbar.settled()
        assert toolbar.status.value == ""
        toolbar.select("option:mode", "Fast")
        await toolbar.settled()
        result = await session.prompt("go")
    calls = [c for c in report(result.text)["calls"] if c[0].startswith("session/set")]
    assert calls == [
        ["session/set_mode", {"modeId": "code"}],
        ["session/set_config_option", {"configId": "mode", "value": "slow"}],
        ["session/set_config_option", {"configId": "model", "value": "m2"}],
        ["session/set_config_option", {"configId": "mode", "value": "fast"}],
    ]
    assert session.mode == "code"


@VIA
async def test_long_lists_in_replies_and_updates_are_cut_with_a_note(via: str, tmp_path: Path) -> None:
    many = [f"v{i}" for i in range(500)]
    options = [select(f"o{i}", f"Option {i}", many, "v0") for i in range(40)]
    commands = [{"name": f"c{i}", "description": "d"} for i in range(5_000)]
    update = {"sessionUpdate": "available_commands_update", "availableCommands": commands}
    script = {
        "initialize": {
            "protocolVersion": 1,
            "agentCapabilities": {},
            "authMethods": [{"id": f"a{i}", "name": f"A {i}"} for i in range(5_000)],
        },
        "new_session": {
            "sessionId": "scripted",
            "modes": {
                "currentModeId": "m0",
                "availableModes": [{"id": f"m{i}", "name": f"M {i}"} for i in range(5_000)],
            },
            "configOptions": options,
        },
        "prompt": [["notify", "session/update", {"sessionId": "scripted", "update": update}]],
    }
    async with nbacp.connect(target(script, via, tmp_path)) as conn:
        assert len(conn.auth_methods) == BUDGET.max_auth_methods
        session = await conn.new_session()
        assert len(session.modes.available_modes) == BUDGET.max_modes
        assert len(session.config_options) == BUDGET.max_config_options
        assert all(len(o.options) == BUDGET.max_option_values for o in session.config_options)
        await session.prompt("go")
        log = "\n".join(conn.log or [])
        commands_seen = [u for u in session.updates if getattr(u, "session_update", "") == "available_commands_update"]
    assert len(commands_seen[0].available_commands) == BUDGET.max_commands
    for what in (
        "authentication methods",
        "session modes",
        "config options",
        "values of config option 'o0'",
        "commands",
    ):
        assert f"{what}; the first" in log, (what, log)


async def test_the_toolbar_updates_in_place(comms: RecordingComms) -> None:
    """A burst of config_option_update notifications moves the controls; none is rebuilt."""
    values = [f"v{i}" for i in range(20)]
    options = [select(f"o{i}", f"Option {i}", values, "v0") for i in range(10)]
    updates = []
    for n in range(1, 40):
        changed = [dict(o) for o in options]
        changed[n % 10] = {**changed[n % 10], "currentValue": f"v{n % 20}", "name": f"Option {n % 10} ({n})"}
        if n == 20:  # one option gains a value
            changed[0] = {**changed[0], "options": [*changed[0]["options"], {"value": "new", "name": "New"}]}
        options = changed
        updates.append(
            [
                "notify",
                "session/update",
                {
                    "sessionId": "scripted",
                    "update": {"sessionUpdate": "config_option_update", "configOptions": options},
                },
            ]
        )
    script = {
        "new_session": {
            "sessionId": "scripted",
            "configOptions": [select(f"o{i}", f"Option {i}", values, "v0") for i in range(10)],
        },
        "prompt": updates,
    }
    async with nbacp.connect(target(script, "in-process", Path("."))) as conn:
        session = await conn.new_session()
        toolbar = session.toolbar
        before = {key: control.model_id for key, control in toolbar.controls.items()}
        opened = len(comms.sent)
        await session.prompt("go")
        after = {key: control.model_id for key, control in toolbar.controls.items()}
        assert after == before  # the same widgets, updated
        assert toolbar.controls["o9"].value == "v19" and toolbar.controls["o9"].description == "Option 9 (39)"
        assert [v for _, v in toolbar.controls["o0"].options][-1] == "new"
        controls = ("DropdownModel", "CheckboxModel")
        assert not [
            m
            for m in comms.sent[opened:]
            if m.msg_type == "comm_open" and m.data["state"].get("_model_name") in controls
        ]
