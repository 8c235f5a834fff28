"""A hostile agent's replies, notifications and odd ids, in process and over stdio (docs/protocol.md).

Each test runs the same scripted peer (tests/support/scripted_agent.py) over both transports.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from support import TESTS
from support.kernel_support import KernelHarness
from support.scripted_agent import report, target

import nbacp
from nbacp.widgets import PermissionCard

VIA = pytest.mark.parametrize("via", ["in-process", "stdio"])
ALLOW = [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}]


def _permission(call: str) -> list[Any]:
    return [
        "request",
        "session/request_permission",
        {"sessionId": "scripted", "toolCall": {"toolCallId": call, "title": call}, "options": ALLOW},
    ]


def _allow(card: Any) -> None:
    if isinstance(card, PermissionCard):
        card.choose("yes")


@VIA
async def test_cancel_request_with_any_id_shape_leaves_the_connection_alive(via: str, tmp_path: Path) -> None:
    shapes: list[Any] = [{"a": 1}, [1, 2], None, 1.5, True, "unknown", 12345]
    steps = [["notify", "$/cancel_request", {"requestId": shape}] for shape in shapes]
    script = {"prompt": [*steps, _permission("after")]}
    async with nbacp.connect(target(script, via, tmp_path), answers=_allow) as conn:
        session = await conn.new_session()
        result = await session.prompt("go")
        assert result.stop_reason == "end_turn"
        assert report(result.text)["replies"] == [{"outcome": {"outcome": "selected", "optionId": "yes"}}]
        assert not conn.closed


# -- lone surrogates everywhere: shown safe, sent back exact ------------------------------
def surrogate_script() -> dict[str, Any]:
    """Lone surrogates in the initialize and session/new replies, a notification and two requests."""
    speed = {
        "id": "speed\ud800",
        "name": "Speed \ud800",
        "type": "select",
        "currentValue": "fast\ud800",
        "options": [{"value": "fast\ud800", "name": "Fast \ud800"}, {"value": "slow\udbff", "name": "Slow \udbff"}],
    }
    turbo = {**speed, "options": [*speed["options"], {"value": "turbo\udc01", "name": "Turbo \udc01"}]}
    update = {"sessionUpdate": "config_option_update", "configOptions": [turbo]}
    form = {
        "type": "object",
        "properties": {"pick": {"type": "string", "enum": ["a\ud800", "b"]}},
        "required": ["pick"],
    }
    options = [{"optionId": "ok\ud800", "name": "Allow \ud800", "kind": "allow_once"}]
    return {
        "initialize": {
            "protocolVersion": 1,
            "agentCapabilities": {},
            "authMethods": [{"id": "key\ud800", "name": "Key \udc00", "description": "d\ud800"}],
        },
        "new_session": {
            "sessionId": "s\ud800",
            "modes": {
                "currentModeId": "ask\ud800",
                "availableModes": [{"id": "ask\ud800", "name": "Ask \ud800"}, {"id": "code", "name": "Code \udfff"}],
            },
            "configOptions": [speed],
        },
        "prompt": [
            ["notify", "session/update", {"sessionId": "s\ud800", "update": update}],
            [
                "request",
                "elicitation/create",
                {"mode": "form", "sessionId": "s\ud800", "message": "m\ud800", "requestedSchema": form},
            ],
            [
                "request",
                "session/request_permission",
                {"sessionId": "s\ud800", "toolCall": {"toolCallId": "t", "title": "t\ud800"}, "options": options},
            ],
        ],
    }


def _pick_shown(card: Any) -> None:
    """Answer with what the person sees (the U+FFFD-shown values), as a click would."""
    if isinstance(card, PermissionCard):
        card.choose(card.options[0].option_id)
    elif isinstance(card, nbacp.FormCard):
        card.pick("pick", "a\ufffd")
        card.accept()


@VIA
async def test_agent_values_are_shown_safe_and_sent_back_exact(via: str, tmp_path: Path, comms: Any) -> None:
    async with nbacp.connect(target(surrogate_script(), via, tmp_path), answers=_pick_shown) as conn:
        assert [m.name for m in conn.auth_methods] == ["Key \ufffd"]
        await conn.authenticate("key\ufffd")
        session = await conn.new_session()
        assert session.id == "s\ufffd" and session.mode == "ask\ufffd"
        toolbar = session.toolbar
        assert [label for label, _ in toolbar.controls["mode"].options] == ["Ask \ufffd", "Code \ufffd"]
        comms.update(toolbar.controls["mode"], index=1)  # "Code", as the browser sends it
        await toolbar.settled()
        comms.update(toolbar.controls["mode"], index=0)  # back to "Ask"
        await toolbar.settled()
        comms.update(toolbar.controls["speed\ufffd"], index=1)  # "Slow"
        await toolbar.settled()
        result = await session.prompt("go")
        assert [label for label, _ in toolbar.controls["speed\ufffd"].options][-1] == "Turbo \ufffd"
        comms.update(toolbar.controls["speed\ufffd"], index=2)  # "Turbo", from the notification
        await toolbar.settled()
        await session.set_config("speed\ufffd", "fast\ufffd")  # from code, with the shown value
        last = await session.prompt("again")
    assert result.stop_reason == "end_turn"
    calls = report(last.text)["calls"]
    asked = [call for call in calls if call[0] in ("authenticate", "session/set_mode", "session/set_config_option")]
    assert asked == [
        ["authenticate", {"methodId": "key\ud800"}],
        ["session/set_mode", {"modeId": "code"}],
        ["session/set_mode", {"modeId": "ask\ud800"}],
        ["session/set_config_option", {"configId": "speed\ud800", "value": "slow\udbff"}],
        ["session/set_config_option", {"configId": "speed\ud800", "value": "turbo\udc01"}],
        ["session/set_config_option", {"configId": "speed\ud800", "value": "fast\ud800"}],
    ]
    replies = report(result.text)["replies"]
    assert replies == [
        {"action": "accept", "content": {"pick": "a\ud800"}},
        {"outcome": {"outcome": "selected", "optionId": "ok\ud800"}},
    ]


@pytest.mark.kernel
def test_surrogates_in_replies_in_a_real_kernel(kernel: KernelHarness) -> None:
    """The initialize and session/new replies' labels reach widgets in a real kernel: no UnicodeEncodeError,
    the session is kept, and the agent gets its own values back."""
    kernel.run(
        textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(TESTS)!r}, {str(Path(__file__).parent)!r}]
        import nbacp
        from support.scripted_agent import ScriptedAgent
        from test_guard_replies import _pick_shown, surrogate_script
        script = surrogate_script()
        script["auth_required"] = True
        agent = ScriptedAgent(script)
        def policy(card):
            if isinstance(card, nbacp.widgets.AuthCard):
                card.choose(card.methods[0].id)
            else:
                _pick_shown(card)
        conn = await nbacp.connect(agent, answers=policy)
    """),
        timeout=60,
    )
    cell = kernel.execute(
        textwrap.dedent("""
        session = await conn.new_session('.')
        display(session.toolbar)
        print('SESSION', ascii(session.id), ascii(session.mode))
    """)
    )
    kernel.wait_idle(cell, timeout=60)
    assert kernel.error(cell) is None, kernel.error(cell)
    assert kernel.stream_text(cell) == "SESSION 's\\ufffd' 'ask\\ufffd'\n"
    labels = [
        m["content"]["data"]["state"].get("_options_labels")
        for m in kernel.messages(cell)
        if m["msg_type"] == "comm_open" and m["content"]["data"]["state"].get("_model_name") == "DropdownModel"
    ]
    assert ["Ask \ufffd", "Code \ufffd"] in labels, labels
    cell = kernel.execute(
        textwrap.dedent("""
        session.toolbar.select("speed\ufffd", "Slow \ufffd")
        await session.toolbar.settled()
        result = await session.prompt('go')
        print('CALLS', ascii([c for c in agent.calls if c[0] != 'session/prompt']))
        print('REPLIES', ascii(agent.replies))
    """)
    )
    kernel.wait_idle(cell, timeout=60)
    assert kernel.error(cell) is None, kernel.error(cell)
    out = kernel.stream_text(cell)
    assert "['authenticate', {'methodId': 'key\\ud800'}]" in out, out
    assert "{'configId': 'speed\\ud800', 'value': 'slow\\udbff'}" in out, out
    assert "{'pick': 'a\\ud800'}" in out and "'optionId': 'ok\\ud800'" in out, out
