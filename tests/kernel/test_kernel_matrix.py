"""Every supported kernel (ipykernel 6.17.1 + IPython 7.34 as on Colab, 6.29.5, 7.0.1, 7.3.0, 7.4.0).

Each test drives a real kernel from tests/support/kernel_matrix.py through jupyter_client with the
fake front end of kernel_support, which holds a widget's next edit until the kernel reported
idle for the previous one, as the browser does. The card's Accept message carries its draft
(docs/cards.md), so the answer is whole however the edits were held.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import kernel_matrix
from support.kernel_support import FORMATS_SETUP as SETUP
from support.kernel_support import KernelHarness, accept, question_card, start_kernel

pytestmark = pytest.mark.kernel


ANSWER = '{"action": "accept", "content": {"question_0": ["CSV", "Parquet", "JSON"], "question_0_custom": "Avro"}}'


DRAFTS = [
    {"question_0": ["CSV"], "question_0_custom": ""},
    {"question_0": ["CSV", "Parquet"], "question_0_custom": ""},
    {"question_0": ["CSV", "Parquet", "JSON"], "question_0_custom": ""},
    {"question_0": ["CSV", "Parquet", "JSON"], "question_0_custom": " Avro "},
]


def answer_with_several_edits(kernel: KernelHarness, *, settle_first: bool = False) -> list[str]:
    """Three picks and a typed Other, each an edit of the card's draft, then Accept: as fast as a
    script can, so the second and later edits are held by the front end until the first is idle,
    and the Accept message (never held) overtakes them, carrying the whole draft.
    ``settle_first``: click only once every held edit reached the kernel."""
    card = question_card(kernel)["comm_id"]
    edits = [kernel.send_update(card, draft=draft) for draft in DRAFTS]
    assert len(set(edits)) == 2  # one sent, the rest merged into one held edit, as the browser does
    if settle_first:
        for edit in dict.fromkeys(edits):
            kernel.wait_idle(edit, timeout=30)  # the browser sends the held edit only after this idle
    accept(kernel, card, DRAFTS[-1])
    return edits


def connect(kernel: KernelHarness, agent: str) -> None:
    kernel.run(
        SETUP + f"agent = {agent}\nconn = await nbacp.connect(agent)\nsession = await conn.new_session('.')", timeout=90
    )


def test_awaited_prompt_is_answered_with_every_edit(matrix_kernel: KernelHarness) -> None:
    kernel = matrix_kernel
    connect(kernel, "SchemaAgent(message, schema)")
    cell = kernel.execute("result = await session.prompt('go')\nprint('RESULT', result.text)")
    question_card(kernel)
    assert not kernel.is_idle(cell)
    answer_with_several_edits(kernel)
    kernel.wait_idle(cell, timeout=30)
    assert kernel.error(cell) is None, kernel.error(cell)
    assert kernel.stream_text(cell) == f"RESULT {ANSWER}\n"
    assert kernel.held_edits() == {}


def test_status_bar_stays_busy_while_a_cell_awaits_a_turn(oldest_newest_kernel: KernelHarness) -> None:
    """Every comm message answered while the cell awaits gets busy/idle (the widgets need it),
    parented as ``comm_info_request``, a type JupyterLab's status bar ignores, so no "idle"
    flips it under the running cell: nbacp's forwarding (6.17) and ensure_comm_status (7.4)."""
    kernel = oldest_newest_kernel
    connect(kernel, "SchemaAgent(message, schema)")
    cell = kernel.execute("result = await session.prompt('go')\nprint('RESULT', result.text)")
    question_card(kernel)
    comms_before = set(kernel.sent("comm_msg"))
    answer_with_several_edits(kernel, settle_first=True)
    kernel.wait_idle(cell, timeout=30)
    assert kernel.stream_text(cell) == f"RESULT {ANSWER}\n", kernel.error(cell)
    during = [m for m in kernel.sent("comm_msg") if m not in comms_before]
    assert len(during) == 3  # the first edit, the held one, the Accept click
    for msg_id in during:
        statuses = kernel.messages(msg_id, "status")
        assert [m["content"]["execution_state"] for m in statuses] == ["busy", "idle"]
        assert {m["parent_header"]["msg_type"] for m in statuses} == {"comm_info_request"}


def test_run_all_start_then_await_turn_gets_every_pick(matrix_kernel: KernelHarness) -> None:
    """Run All queues both cells before anyone answers; the second awaits the turn."""
    kernel = matrix_kernel
    connect(kernel, "SchemaAgent(message, schema)")
    first = kernel.execute("turn = session.start('go')")
    second = kernel.execute("result = await turn\nprint('RESULT', result.text)")
    kernel.wait_idle(first, timeout=30)
    question_card(kernel)
    assert not kernel.is_idle(second)
    answer_with_several_edits(kernel)
    kernel.wait_idle(second, timeout=30)
    assert kernel.error(second) is None, kernel.error(second)
    assert kernel.stream_text(second) == f"RESULT {ANSWER}\n"
    # what the agent itself received (SchemaAgent echoes the reply it got)
    assert kernel.run("print(result.stop_reason, conn.client.open_cards())") == "end_turn []\n"


@pytest.mark.parametrize("wait", ["await session.prompt('hold')", "await turn"])
def test_stop_button_releases_the_cell_and_tells_the_agent(matrix_kernel: KernelHarness, wait: str) -> None:
    kernel = matrix_kernel
    connect(kernel, "HoldingAgent()")
    if wait == "await turn":
        kernel.run("turn = session.start('hold')")
    # The stop button is nbacp's once the cell waits (a click before that meets ipykernel#881):
    # call_soon prints only when the cell first yields, which is inside the wait.
    cell = kernel.execute(f"import asyncio\nasyncio.get_running_loop().call_soon(print, 'waiting')\nresult = {wait}")
    kernel.wait_for(lambda: "waiting" in kernel.stream_text(cell), 30, "the cell to wait")
    question_card(kernel)
    assert not kernel.is_idle(cell)
    kernel.interrupt()
    kernel.wait_idle(cell, timeout=15)
    error = kernel.error(cell)
    said = "Stopped from the notebook: 1 open question cancelled, the agent was told to stop the turn (session/cancel)."
    assert error is not None and (error["ename"], error["evalue"]) == ("KeyboardInterrupt", said)
    assert error["traceback"] == [f"KeyboardInterrupt: {said}"]  # one line, none of nbacp's frames
    out = kernel.run(
        "import asyncio\nawait asyncio.wait_for(agent.cancelled.wait(), 5)\n"
        "await asyncio.sleep(0.2)\nprint(agent.replies, conn.client.open_cards())"
    )
    assert out == "[CancelElicitationResponse(field_meta=None, action='cancel')] []\n"
    # the kernel is usable: a new turn is answered through the widgets while the cell awaits it
    kernel.run(
        "agent2 = SchemaAgent(message, schema)\nconn2 = await nbacp.connect(agent2)\n"
        "session2 = await conn2.new_session('.')",
        timeout=60,
    )
    cell = kernel.execute("result = await session2.prompt('go')\nprint('RESULT', result.text)")
    answer_with_several_edits(kernel)
    kernel.wait_idle(cell, timeout=30)
    assert kernel.stream_text(cell) == f"RESULT {ANSWER}\n", kernel.error(cell)


def test_click_that_overtook_held_edits_is_answered_with_the_whole_draft(matrix_kernel: KernelHarness) -> None:
    """A background turn answered while another cell keeps the kernel busy (Run All).

    The first edit and the Accept click wait in the kernel together, while the later edits are
    still held by the front end (they go out only after the first edit's idle). The click's own
    draft is the answer: every pick and the Other text, at once; the held edit that arrives
    after it is ignored. (Before the draft travelled with the click, this sent ["CSV"].)
    """
    kernel = matrix_kernel
    connect(kernel, "SchemaAgent(message, schema)")
    kernel.run("turn = session.start('go')")
    card = question_card(kernel)["comm_id"]
    busy = kernel.execute("import time\nprint('busy', flush=True)\ntime.sleep(4)")
    kernel.wait_for(lambda: "busy" in kernel.stream_text(busy), 30, "the busy cell")
    first = kernel.send_update(card, draft=DRAFTS[0])
    time.sleep(0.4)  # a person's pace between two edits and the click (not an assertion)
    held = kernel.send_update(card, draft=DRAFTS[-1])
    assert held != first and card in kernel.held_edits()
    time.sleep(0.4)
    click = accept(kernel, card, DRAFTS[-1])
    kernel.wait_idle(busy, timeout=30)
    kernel.wait_idle(click, timeout=30)
    assert kernel.run("result = await turn\nprint('RESULT', result.text)") == f"RESULT {ANSWER}\n"
    kernel.wait_idle(held, timeout=30)  # the front end let it go after the first edit's idle: ignored
    assert kernel.run("print(conn.client.open_cards())") == "[]\n"


def test_stop_button_during_await_card_cancels_it(matrix_kernel: KernelHarness) -> None:
    kernel = matrix_kernel
    kernel.run(SETUP + "view = nbacp.FormCard(message, schema, agent='test')\ndisplay(view)", timeout=60)
    cell = kernel.execute(
        "import asyncio\nasyncio.get_running_loop().call_soon(print, 'waiting')\nresponse = await view"
    )
    kernel.wait_for(lambda: "waiting" in kernel.stream_text(cell), 30, "the cell to wait")
    kernel.interrupt()
    kernel.wait_idle(cell, timeout=15)
    error = kernel.error(cell)
    said = "Stopped from the notebook: the question was answered as cancelled."
    assert error is not None and (error["ename"], error["evalue"]) == ("KeyboardInterrupt", said)
    assert error["traceback"] == [f"KeyboardInterrupt: {said}"]
    assert kernel.run("print(view.response, view.done)") == "field_meta=None action='cancel' True\n"


def test_a_request_that_arrives_while_the_kernel_replies_is_answered(matrix_kernel: KernelHarness) -> None:
    """ipykernel 7.0-7.3 send shell replies raw on the socket their stream reads requests from,
    which can leave a request that lands during that send unread: the kernel idles and never
    answers (seen as the "hang after stop"). nbacp sends the replies through the stream there
    (installed by connect() and every card), as 7.4 does. Two requests a few milliseconds
    apart, many times: without it 7.0.1/7.3.0 strand one within a few hundred rounds."""
    kernel = matrix_kernel
    connect(kernel, "SchemaAgent(message, schema)")
    jitter = random.Random(1529)
    for _ in range(1500):
        first = kernel.request("kernel_info_request")
        time.sleep(jitter.uniform(0, 0.004))
        second = kernel.request("kernel_info_request")
        kernel.reply(first, timeout=10)
        kernel.reply(second, timeout=10)


@pytest.mark.parametrize("env_id", [env.id for env in kernel_matrix.MATRIX])
def test_connect_installs_the_reply_workaround_where_the_kernel_needs_it(
    env_id: str, tmp_path: Path, kernel_envs: dict[str, Path]
) -> None:
    # The test kernels above install it at start-up; here only connect() may.
    with start_kernel(tmp_path, python=kernel_envs[env_id], stream_replies=False) as kernel:
        probe = (
            "import ipykernel\nm = getattr(get_ipython().kernel.shell_channel_thread, 'manager', None)"
            if env_id.startswith("ipykernel-7")
            else "import ipykernel\nm = None"
        )
        before = kernel.run(probe + "\nprint(getattr(m, '_nbacp_stream_replies', False))")
        connect(kernel, "SchemaAgent(message, schema)")
        after = kernel.run("print(getattr(m, '_nbacp_stream_replies', False))")
    needs = env_id in ("ipykernel-7.0", "ipykernel-7.3")
    assert (before, after) == ("False\n", f"{needs}\n")


def test_prompt_refuses_at_once_where_the_kernel_internals_are_missing(matrix_kernel: KernelHarness) -> None:
    kernel = matrix_kernel
    connect(kernel, "SchemaAgent(message, schema)")
    kernel.run(
        "import nbacp.kernel\nnbacp.kernel.forwarding._shell_receiver = lambda kernel: None\n"
        "nbacp.kernel.versions.dispatches_comms_concurrently = lambda kernel: False"
    )
    cell = kernel.execute("result = await session.prompt('go')")
    kernel.wait_idle(cell, timeout=30)
    error = kernel.error(cell)
    assert error is not None and error["ename"] == "RuntimeError"
    assert error["evalue"] == kernel.run("print(nbacp.kernel.older_kernel_message(), end='')")
    assert kernel.run("print(session.turn, conn.client.open_cards())") == "None []\n"  # nothing was sent


def test_card_carries_its_code_where_the_front_end_cannot_share_it(oldest_newest_kernel: KernelHarness) -> None:
    # anywidget 0.11 gives render a host that can reach the shared code model; Colab's 0.9.21 does
    # not, so there every card must carry the whole module (a stub would render nothing).
    kernel = oldest_newest_kernel
    kernel.run(SETUP + "card = nbacp.FormCard(message, schema, agent='test')", timeout=60)
    out = kernel.run(
        "import anywidget\nfrom nbacp.widgets.card_code import CARD_STUB\n"
        "print(anywidget.__version__, card._esm == CARD_STUB, len(card._esm) > 5000, bool(card._css))"
    )
    version, stub, whole, css = out.split()
    shares = tuple(int(part) for part in version.split(".")[:2]) >= (0, 11)
    assert (stub, whole, css) == (str(shares), str(not shares), str(not shares)), out


def test_a_started_turn_gives_way_to_its_record_in_its_own_output(oldest_newest_kernel: KernelHarness) -> None:
    """``turn = session.start(...)``, answered while the kernel is idle: the record replaces the
    live view through the display id of the view's own output. ipywidgets 7 (Colab) published a
    widget without that id, so the update matched no output and, once the view's widgets closed,
    the cell showed nothing (docs/kernels.md, 'Colab in a browser')."""
    kernel = oldest_newest_kernel
    connect(kernel, "SchemaAgent(message, schema)")
    cell = kernel.execute("turn = session.start('go')")
    kernel.wait_idle(cell, timeout=30)
    click = accept(kernel, question_card(kernel)["comm_id"], DRAFTS[-1])

    def record() -> list[dict[str, Any]] | None:  # ipykernel 6 parents it to the click, 7 to the cell
        found = [
            m
            for m in kernel.messages(cell, "update_display_data") + kernel.messages(click, "update_display_data")
            if "nbacp-record" in m["content"]["data"].get("text/html", "")
        ]
        return found or None

    updates = kernel.wait_for(record, 30, "the turn's record")
    views = {
        m["content"].get("transient", {}).get("display_id")
        for m in kernel.messages(cell, "display_data")
        if "application/vnd.jupyter.widget-view+json" in m["content"]["data"]
    }
    assert [m["content"]["transient"]["display_id"] in views for m in updates] == [True], (updates, views)


NESTED = [env for env in kernel_matrix.MATRIX if env.nest_asyncio]


@pytest.fixture(params=[env.id for env in NESTED])
def nested_kernel(
    request: pytest.FixtureRequest, tmp_path: Path, kernel_envs: dict[str, Path]
) -> Iterator[KernelHarness]:
    """A kernel where another library already applied the nest_asyncio its ipykernel ships
    (6.29.5: nest_asyncio, 7.4.0: nest_asyncio2), before nbacp is imported (docs/kernels.md, 'nest_asyncio')."""
    module = next(env.nest_asyncio for env in NESTED if env.id == request.param)
    with start_kernel(tmp_path, python=kernel_envs[request.param]) as harness:
        applied = harness.run(
            f"import asyncio, {module}\n{module}.apply()\n"
            "print(getattr(asyncio.get_running_loop(), '_nest_patched', False))"
        )
        assert applied == "True\n", applied
        yield harness


def test_nest_asyncio_applied_awaited_prompt_gets_every_edit(nested_kernel: KernelHarness) -> None:
    test_awaited_prompt_is_answered_with_every_edit(nested_kernel)


def test_nest_asyncio_applied_run_all_gets_every_pick(nested_kernel: KernelHarness) -> None:
    test_run_all_start_then_await_turn_gets_every_pick(nested_kernel)


@pytest.mark.parametrize("wait", ["await session.prompt('hold')", "await turn"])
def test_nest_asyncio_applied_stop_button_releases_the_cell(nested_kernel: KernelHarness, wait: str) -> None:
    test_stop_button_releases_the_cell_and_tells_the_agent(nested_kernel, wait)
