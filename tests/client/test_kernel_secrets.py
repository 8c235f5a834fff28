"""A secret typed in the front end reaches the agent and leaves no trace in the saved notebook or
in any output of the turn; the device-code card shows in the cell that authenticates. Real kernel,
real stdio peers (docs/agents.md, 'Secret questions and deadlines', 'Sign-in in the notebook')."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import nbformat
import pytest
from support import SUPPORT
from support.kernel_support import KernelHarness, accept

pytestmark = pytest.mark.kernel
SECRET = "hunter2-SECRET-0451"
OUTPUTS = ("display_data", "execute_result", "stream", "update_display_data", "error")


def saved_notebook(kernel: KernelHarness, cells: list[tuple[str, str]]) -> str:
    """What the front end would save: each cell's outputs, and the widget state of every open model."""
    nb = nbformat.v4.new_notebook()
    for code, msg_id in cells:
        cell = nbformat.v4.new_code_cell(code)
        cell.outputs = [
            nbformat.v4.output_from_msg(m)
            for m in kernel.messages(msg_id)
            if m["msg_type"] in OUTPUTS and m["msg_type"] != "update_display_data"
        ]
        nb.cells.append(cell)
    state = {
        c["comm_id"]: {"model_name": c["model_name"], "state": c["state"]}
        for c in kernel.comm_opens()
        if not c["closed"]
    }
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"version_major": 2, "state": state}}
    return nbformat.writes(nb)


def test_a_secret_typed_in_the_front_end_leaves_no_trace(kernel: KernelHarness) -> None:
    setup = textwrap.dedent(f"""
        import sys
        import nbacp
        conn = await nbacp.connect([sys.executable, {str(SUPPORT / "feature_agents.py")!r}])
        session = await conn.new_session()
    """)
    first = kernel.execute(setup)
    kernel.wait_idle(first, timeout=60)
    assert kernel.error(first) is None, kernel.error(first)
    ask = "r = await session.prompt('secret')"
    turn = kernel.execute(ask)
    card = kernel.wait_for(
        lambda: next(
            (
                c
                for c in kernel.comm_opens()
                if not c["closed"]
                and isinstance(kernel.widget_state(c["comm_id"]).get("spec"), dict)
                and kernel.widget_state(c["comm_id"])["spec"].get("secret") == ["token"]
            ),
            None,
        ),
        30,
        "the secret question's card",
    )
    fields = {f["name"]: f["kind"] for f in kernel.widget_state(card["comm_id"])["spec"]["fields"]}
    assert fields["token"] == "secret" and fields["region"] != "secret"  # masked (a password box)
    # The page syncs every edit of the draft but a secret field's (docs/cards.md): the person types
    # the region, then the secret, and Accept carries both in its message.
    kernel.wait_idle(kernel.send_update(card["comm_id"], draft={"region": "eu"}))
    kernel.wait_idle(accept(kernel, card["comm_id"], {"token": SECRET, "region": "eu"}))
    kernel.wait_idle(turn, timeout=60)
    assert kernel.error(turn) is None, kernel.error(turn)
    show = "print(r.text); print(r.answers); print(repr(r)); print(conn.log and list(conn.log))"
    after = kernel.execute(show)
    kernel.wait_idle(after)
    assert f"secret: accept, {len(SECRET)} characters" in kernel.stream_text(after)  # the agent got it
    assert f"(secret, {len(SECRET)} characters)" in kernel.stream_text(after)
    state = kernel.widget_state(card["comm_id"])
    assert state["phase"] == "answered" and state["draft"] == {}  # the answered card keeps its summary only
    assert not [c for c in kernel.comm_opens() if SECRET in json.dumps(kernel.widget_state(c["comm_id"]))]
    saved = saved_notebook(kernel, [(setup, first), (ask, turn), (show, after)])
    assert SECRET not in saved
    outputs: list[Any] = [
        m["content"] for cell in (first, turn, after) for m in kernel.messages(cell) if m["msg_type"] in OUTPUTS
    ]
    assert outputs and SECRET not in json.dumps(outputs)


def test_the_device_code_card_shows_in_the_cell_that_authenticates(kernel: KernelHarness) -> None:
    setup = textwrap.dedent(f"""
        import sys
        import nbacp
        conn = await nbacp.connect([sys.executable, {str(SUPPORT / "signin_agent.py")!r}])
    """)
    first = kernel.execute(setup)
    kernel.wait_idle(first, timeout=60)
    assert kernel.error(first) is None, kernel.error(first)
    signing = kernel.execute("await conn.authenticate('chat-gpt-device-code'); print('signed in')")
    slots = kernel.wait_for(
        lambda: (
            [m for m in kernel.messages(signing, "display_data") if m["content"].get("transient", {}).get("display_id")]
            or None
        ),
        30,
        "the slot",
    )
    display_id = slots[0]["content"]["transient"]["display_id"]

    def card_updates() -> list[Any] | None:  # update_display_data goes wherever its display is, whatever its parent
        found = [
            m
            for cell in (first, signing)
            for m in kernel.messages(cell, "update_display_data")
            if m["content"]["transient"]["display_id"] == display_id
        ]
        return found or None

    updates = kernel.wait_for(card_updates, 30, "the card in the slot")
    model_id = updates[-1]["content"]["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
    assert "nbacp-url-card" in " ".join(kernel.widget_state(model_id).get("_dom_classes", ()))
    kernel.wait_idle(kernel.send_custom(model_id, {"event": "open", "seq": 1}))  # the person's click on Open
    kernel.wait_idle(signing, timeout=60)
    assert kernel.error(signing) is None and kernel.stream_text(signing) == "signed in\n"
