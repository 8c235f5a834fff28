"""A real kernel: a cell awaits ``session.prompt`` and the test answers as the browser would.

The test speaks only the widget comm protocol (state updates and button clicks), exactly
what JupyterLab's widget manager sends, so this catches ipykernel-version behaviour.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from support.kernel_support import FORMATS_SETUP as SETUP
from support.kernel_support import KernelHarness, accept, question_card

pytestmark = pytest.mark.kernel


def test_prompt_awaited_in_a_cell_is_answered_through_widget_comms(
    kernel: KernelHarness, record_property: Callable[[str, object], None]
) -> None:
    kernel.run(
        SETUP + "agent = SchemaAgent(message, schema)\nconn = await nbacp.connect(agent)\n"
        "session = await conn.new_session('.')",
        timeout=60,
    )
    cell = kernel.execute("result = await session.prompt('go')\nprint('RESULT', result.text)")
    card = question_card(kernel)
    assert not kernel.is_idle(cell)
    kernel.send_update(card["comm_id"], draft={"question_0": ["CSV", "JSON"], "question_0_custom": ""})
    draft = {"question_0": ["CSV", "JSON"], "question_0_custom": " Avro "}
    kernel.send_update(card["comm_id"], draft=draft)
    clicked_at = time.perf_counter()
    accept(kernel, card["comm_id"], draft)
    kernel.wait_idle(cell, timeout=30)
    assert kernel.error(cell) is None, kernel.error(cell)
    out = kernel.stream_text(cell)
    assert out == (
        'RESULT {"action": "accept", "content": {"question_0": ["CSV", "JSON"], "question_0_custom": "Avro"}}\n'
    )
    seen_at = kernel.first_output_time(cell, "RESULT")
    assert seen_at is not None
    latency_ms = (seen_at - clicked_at) * 1000
    record_property("click_to_agent_reply_ms", round(latency_ms, 1))
    print(f"\nclick -> agent reply -> cell output: {latency_ms:.1f} ms")
    # the record is a widget-free output of the prompting cell
    records = [
        m
        for m in kernel.messages(cell)
        if m["msg_type"] in ("display_data", "update_display_data") and "text/html" in m["content"].get("data", {})
    ]
    assert any(
        "Avro" in m["content"]["data"]["text/html"] and "nbacp-record" in m["content"]["data"]["text/html"]
        for m in records
    )
    # one view per turn: the live view's output is blanked (by display id) when the record comes
    views = [
        m["content"]["transient"]["display_id"]
        for m in kernel.messages(cell)
        if m["msg_type"] == "display_data"
        and "application/vnd.jupyter.widget-view+json" in m["content"]["data"]
        and "nbacp turn" in m["content"]["data"]["text/plain"]
    ]
    blanked = [
        m["content"]["transient"]["display_id"]
        for m in kernel.messages(cell)
        if m["msg_type"] == "update_display_data" and m["content"]["data"] == {"text/plain": ""}
    ]
    assert len(views) == 1 and blanked == views
    plain = [m["content"]["data"]["text/plain"] for m in records]
    assert any(
        "You: go" in p
        and "Question: Which formats?\n  Answer: CSV, JSON + “Avro”" in p
        and "Stop reason: end_turn" in p
        for p in plain
    ), plain


def test_the_ended_view_shows_the_record_until_the_connection_closes(kernel: KernelHarness) -> None:
    """A page that re-reads the live view's model (a reload, a second tab) finds the record in it
    (docs/reload.md); it stays open while the connection is, then closes with it."""
    kernel.run(
        SETUP + "agent = SchemaAgent(message, schema)\nconn = await nbacp.connect(agent)\n"
        "session = await conn.new_session('.')",
        timeout=60,
    )
    cell = kernel.execute("result = await session.prompt('go')")
    card = question_card(kernel)
    draft = {"question_0": ["CSV"], "question_0_custom": "Avro"}
    accept(kernel, card["comm_id"], draft)
    kernel.wait_idle(cell, timeout=30)
    assert kernel.error(cell) is None, kernel.error(cell)
    out = kernel.run(
        "import json\n"
        "view = session.turn.transcript\n"
        "shown = json.dumps(view.record_tree(), ensure_ascii=False)\n"
        "print(view.comm is not None and view.ended, 'nbacp-ended' in view._dom_classes,\n"
        "      'nbacp-record' in shown and 'Avro' in shown)\n"
        "await conn.close()\n"
        "print(view.comm is None)",
        timeout=60,
    )
    assert out == "True True True\nTrue\n"


def test_stop_button_cancels_the_pending_card_and_releases_the_cell(kernel: KernelHarness) -> None:
    kernel.run(
        SETUP + "agent = HoldingAgent()\nconn = await nbacp.connect(agent)\nsession = await conn.new_session('.')",
        timeout=60,
    )
    cell = kernel.execute("result = await session.prompt('hold')")
    question_card(kernel)
    assert not kernel.is_idle(cell)
    kernel.interrupt()
    kernel.wait_idle(cell, timeout=15)
    error = kernel.error(cell)
    assert error is not None and error["ename"] == "KeyboardInterrupt"
    out = kernel.run(
        "import asyncio\nawait asyncio.wait_for(agent.cancelled.wait(), 5)\n"
        "await asyncio.sleep(0.2)\nprint(agent.replies, conn.client.open_cards())"
    )
    assert out == "[CancelElicitationResponse(field_meta=None, action='cancel')] []\n"


def test_comm_messages_handled_while_a_cell_awaits_get_busy_idle(kernel: KernelHarness) -> None:
    """The widget front end sends a model's next edit only after "idle" for the previous one.

    ipykernel 7.4 publishes no status for comms it dispatches while an async cell holds the
    shell; nbacp.kernel.ensure_comm_status adds it (installed by connect() and every card).
    """
    kernel.run(
        "import asyncio, ipywidgets, nbacp.kernel\nassert nbacp.kernel.ensure_comm_status()\n"
        "t = ipywidgets.Text(value='a')\ndone = ipywidgets.Button(description='Done')\n"
        "display(t, done)\nseen = []\nt.observe(lambda c: seen.append(c['new']), names='value')\n"
        "finished = asyncio.get_running_loop().create_future()\n"
        "done.on_click(lambda _: finished.set_result(None))"
    )
    (text,) = kernel.wait_comm("TextModel")
    cell = kernel.execute("await finished\nprint(seen)")
    kernel.wait_for(lambda: kernel.messages(cell, "status"), 10, "the cell to start")

    def states(msg_id: str) -> list[str]:
        return [m["content"]["execution_state"] for m in kernel.messages(msg_id, "status")]

    for value in ("b", "bc", "bcd"):
        edit = kernel.send_update(text["comm_id"], value=value)
        kernel.wait_for(lambda edit=edit: "idle" in states(edit), 10, f"idle for the edit {value!r}")
        assert states(edit) == ["busy", "idle"]
        # parented as an untracked type: JupyterLab's status bar keeps the awaiting cell's "Busy"
        assert {m["parent_header"]["msg_type"] for m in kernel.messages(edit, "status")} == {"comm_info_request"}
        assert not kernel.is_idle(cell)
    kernel.click(kernel.wait_widget("ButtonModel", description="Done")["comm_id"])
    kernel.wait_idle(cell, timeout=15)
    assert kernel.stream_text(cell) == "['b', 'bc', 'bcd']\n"
    # outside an awaiting cell the kernel's own status is untouched: exactly one busy and one idle
    edit = kernel.send_update(text["comm_id"], value="z")
    kernel.wait_idle(edit)
    assert states(edit) == ["busy", "idle"]
