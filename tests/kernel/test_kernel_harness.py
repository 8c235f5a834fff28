"""The real-kernel tier: what the browser's widget manager does, done over jupyter_client."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable

import pytest
from support.kernel_support import KernelHarness

pytestmark = pytest.mark.kernel


def test_top_level_await_resolved_by_button_click(
    kernel: KernelHarness, record_property: Callable[[str, object], None]
) -> None:
    cell = kernel.execute(
        textwrap.dedent("""
        import asyncio, ipywidgets
        fut = asyncio.get_running_loop().create_future()
        button = ipywidgets.Button(description="Go")
        button.on_click(lambda b: fut.set_result("clicked"))
        display(button)
        print("result:", await fut)
    """)
    )
    button = kernel.wait_widget("ButtonModel", description="Go")
    assert not kernel.is_idle(cell)

    sent_at = time.perf_counter()
    kernel.click(button["comm_id"])
    kernel.wait_idle(cell, timeout=10)
    assert kernel.error(cell) is None
    assert kernel.stream_text(cell) == "result: clicked\n"
    shown_at = kernel.first_output_time(cell, "result: clicked")
    assert shown_at is not None
    latency_ms = (shown_at - sent_at) * 1000
    record_property("click_to_output_ms", round(latency_ms, 1))
    print(f"\nclick-to-cell-output latency: {latency_ms:.1f} ms")


def test_front_end_update_reaches_a_text_widget(kernel: KernelHarness) -> None:
    kernel.run("import ipywidgets\nt = ipywidgets.Text(value='a')\ndisplay(t)")
    (text,) = kernel.wait_comm("TextModel")
    assert kernel.widget_state(text["comm_id"])["value"] == "a"
    kernel.wait_idle(kernel.send_update(text["comm_id"], value="typed"))
    assert kernel.run("print(t.value)") == "typed\n"
    kernel.run("t.value = 'from kernel'")
    kernel.wait_for(lambda: kernel.widget_state(text["comm_id"])["value"] == "from kernel", 10)
    assert text["comm_id"] in kernel.comm_info()


def test_anywidget_dict_trait_synced_from_front_end(kernel: KernelHarness) -> None:
    kernel.run(
        textwrap.dedent("""
        import anywidget, traitlets
        class Card(anywidget.AnyWidget):
            _esm = "export default { render({ model, el }) { el.textContent = 'card'; } }"
            answer = traitlets.Dict().tag(sync=True)
        seen = []
        card = Card(answer={"picked": []})
        card.observe(lambda change: seen.append(change["new"]), names="answer")
        display(card)
    """)
    )
    (card,) = [c for c in kernel.comm_opens() if "answer" in c["state"]]
    assert card["state"]["answer"] == {"picked": []}
    assert "render" in card["state"]["_esm"]
    kernel.wait_idle(kernel.send_update(card["comm_id"], answer={"picked": ["a", "b"], "custom": "x"}))
    assert kernel.run("print(card.answer['picked'], card.answer['custom'], len(seen))") == "['a', 'b'] x 1\n"
