"""The page's side, in a real JupyterLab and Debian's chromium (the browser test tier's set-up).

- **cards**: one cell shows N one-question cards (nbacp) or the same question written by hand
  with stock ipywidgets, and N/2 twelve-field forms or the same fields written by hand (the
  questions of ``benchmarks/cards.py``); from "run" to all visible (wall clock, kernel
  included) and the DOM nodes per card.
- **streaming**: one cell streams N agent message chunks (bursts of 10, 1 ms apart) into a
  ``Transcript`` or into the naive notebook idiom, ``display(Markdown(text), display_id=...)``
  updated on every chunk; a ``PerformanceObserver`` counts the page's main-thread long tasks
  (> 50 ms) and their total time while the cell runs. Every view gets the same budget
  (``STREAM_BUDGET`` seconds of streaming, then a bounded wait for the page to catch up), as
  the CPU streaming benchmark does: the naive idiom falls minutes behind, and the table says
  how many chunks it got through instead of the run dying at its timeout.
- the cards are counted once each is complete (``data-ready``: anywidget renders after the
  box is visible), not when their box first has a height.

Figures are ratios against the baseline of the same run (see README.md); nothing asserts on
them. Needs chromium (``make chromium``) like the browser tests.
"""

from __future__ import annotations

import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SETUP = textwrap.dedent(f"""
    import sys
    sys.path.insert(0, {str(ROOT)!r})
    import asyncio
    import ipywidgets as widgets
    from IPython.display import Markdown, display
    from acp import schema
    import nbacp
    from nbacp.widgets.transcript import Transcript
    from benchmarks.cards import MESSAGE, choice_schema, hand_written_choice, hand_written_form, twelve_field_schema

    def hand(build):
        box = build()
        box.add_class("hand-card")
        return box

    def chunk_text(i):
        if i % 300 == 299:
            return "\\n\\n```python\\nfor item in items:\\n    print(item)\\n```\\n\\n"
        if i % 60 == 59:
            return "\\n\\n- a point\\n- another **point**\\n\\n"
        return f"word{{i % 10}} "

    async def stream(n, add, budget):
        import time
        end = time.monotonic() + budget
        for i in range(n):
            add(chunk_text(i))
            if i % 10 == 9:
                if time.monotonic() > end:
                    return i + 1
                await asyncio.sleep(0.001)
        return n
""")

STREAM_BUDGET = 30.0
"""Seconds a view may stream for; then at most ``CATCH_UP`` more for the page to show it all."""
CATCH_UP = 90.0

CARDS = {
    "nbacp": "display(widgets.VBox([nbacp.FormCard(MESSAGE, choice_schema()) for _ in range({n})]))",
    "hand-written": "display(widgets.VBox([hand(hand_written_choice) for _ in range({n})]))",
    "nbacp 12 fields": "display(widgets.VBox([nbacp.FormCard(MESSAGE, twelve_field_schema()) for _ in range({n})]))",
    "hand 12 fields": "display(widgets.VBox([hand(hand_written_form) for _ in range({n})]))",
}
FORMS = ("nbacp 12 fields", "hand 12 fields")
"""The twelve-field views show half as many cards (at least one)."""
CARD_SELECTOR = {view: ".hand-card" if view.startswith("hand") else ".nbacp-card[data-ready=true]" for view in CARDS}

STREAMS = {
    "transcript": textwrap.dedent("""
        view = Transcript(prompt="go")
        display(view)
        def add(text):
            view.add(schema.AgentMessageChunk(session_update="agent_message_chunk",
                                              content=schema.TextContentBlock(type="text", text=text)))
        got = await stream({n}, add, {budget})
        view.finish("end_turn")
        print("streamed", got)
    """),
    "naive": textwrap.dedent("""
        handle = display(Markdown(""), display_id=True)
        parts = []
        def add(text):
            parts.append(text)
            handle.update(Markdown("".join(parts)))
        got = await stream({n}, add, {budget})
        print("streamed", got)
    """),
}

LONG_TASKS = """() => {
  window.__nbacpLong = {count: 0, total: 0};
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      window.__nbacpLong.count += 1;
      window.__nbacpLong.total += entry.duration;
    }
  }).observe({type: "longtask", buffered: false});
}"""


@dataclass
class CardRun:
    view: str
    n: int
    seconds: float
    nodes_per_card: float


@dataclass
class StreamRun:
    view: str
    n: int
    seconds: float
    long_tasks: int
    long_ms: float
    chunks_in: int = 0  # chunks streamed within the budget
    caught_up: bool = True  # the page showed the end within CATCH_UP seconds


def _support() -> Any:
    # browser_support imports the shared test helpers as ``support.*`` (tests/support/), as pytest sees them
    sys.path[:0] = [str(ROOT / "tests" / "browser"), str(ROOT / "tests")]
    import browser_support

    return browser_support


def _run_last_cell(page: Any) -> None:
    page.evaluate("""() => {
      const notebook = window.jupyterapp.shell.currentWidget.content;
      notebook.activeCellIndex = notebook.widgets.length - 1;
      window.jupyterapp.commands.execute('notebook:run-cell');
    }""")


def run(cards: int, chunks: int) -> tuple[list[CardRun], list[StreamRun]]:
    """``chunks=0``: the cards only."""
    support = _support()
    from playwright.sync_api import sync_playwright

    server = support.start_server("lab", Path(tempfile.mkdtemp(prefix="nbacp-bench-")), ROOT / "notebooks")
    card_runs: list[CardRun] = []
    stream_runs: list[StreamRun] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=support.CHROMIUM, headless=True, args=support.CHROMIUM_ARGS)
            try:
                for view, cell in CARDS.items():
                    n = max(1, cards // 2) if view in FORMS else cards
                    card_runs.append(_cards(support, server, browser, view, cell.format(n=n), n))
                for view, cell in STREAMS.items() if chunks else ():
                    code = cell.format(n=chunks, budget=STREAM_BUDGET)
                    stream_runs.append(_stream(support, server, browser, view, code, chunks))
            finally:
                browser.close()
    finally:
        server.stop()
    return card_runs, stream_runs


def _page(support: Any, server: Any, browser: Any, name: str, cells: list[str]) -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    support.open_notebook(page, server, server.write_notebook(name, cells))
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")  # the set-up cell
    support.wait_kernel_idle(page, timeout_ms=120_000)
    return context, page


def _cards(support: Any, server: Any, browser: Any, view: str, cell: str, n: int) -> CardRun:
    context, page = _page(support, server, browser, f"cards-{view}.ipynb", [SETUP, cell])
    try:
        selector = CARD_SELECTOR[view]
        start = time.perf_counter()
        _run_last_cell(page)
        page.wait_for_function(
            "([sel, n]) => [...document.querySelectorAll(sel)].filter((e) => e.offsetHeight > 0).length >= n",
            arg=[selector, n],
            timeout=300_000,
        )
        seconds = time.perf_counter() - start
        nodes = page.evaluate(
            "(sel) => [...document.querySelectorAll(sel)].reduce("
            "(sum, e) => sum + e.querySelectorAll('*').length + 1, 0)",
            selector,
        )
        server.shutdown_kernels()
        return CardRun(view, n, seconds, nodes / n)
    finally:
        context.close()


def _stream(support: Any, server: Any, browser: Any, view: str, cell: str, n: int) -> StreamRun:
    context, page = _page(support, server, browser, f"stream-{view}.ipynb", [SETUP, cell])
    try:
        page.evaluate(LONG_TASKS)
        start = time.perf_counter()
        _run_last_cell(page)
        done = support.output_area(page, 1).get_by_text("streamed")
        caught_up = True
        try:
            done.wait_for(timeout=(STREAM_BUDGET + CATCH_UP) * 1000)
            page.wait_for_timeout(500)  # the last frames
            got = int(done.inner_text().split()[-1])
        except Exception:  # the page is still behind: the budget ends the run, not the timeout
            caught_up, got = False, 0
        seconds = time.perf_counter() - start
        long = page.evaluate("() => window.__nbacpLong")
        server.shutdown_kernels()
        return StreamRun(view, n, seconds, int(long["count"]), float(long["total"]), got, caught_up)
    finally:
        context.close()


def report(cards: int, chunks: int) -> None:
    card_runs, stream_runs = run(cards, chunks)
    print(
        f"browser (JupyterLab + chromium): {cards} one-question cards, {max(1, cards // 2)} twelve-field forms, "
        "one cell each; x = against the same questions written by hand"
    )
    print(f"  {'view':<16} {'cards':>6} {'visible s':>10} {'DOM nodes/card':>15} {'time x':>7} {'nodes x':>8}")
    for r in card_runs:
        hand = next(h for h in card_runs if h.view == ("hand 12 fields" if r.view in FORMS else "hand-written"))
        print(
            f"  {r.view:<16} {r.n:>6} {r.seconds:>10.2f} {r.nodes_per_card:>15.1f} {r.seconds / hand.seconds:>6.2f}x "
            f"{r.nodes_per_card / hand.nodes_per_card:>7.2f}x"
        )
    if not stream_runs:
        return
    print(f"\nbrowser: {chunks} agent message chunks streamed into one view, main-thread long tasks (> 50 ms)")
    naive = next(r for r in stream_runs if r.view == "naive")
    print(f"  (each view streams for at most {STREAM_BUDGET:.0f} s; the page then has {CATCH_UP:.0f} s to catch up)")
    print(
        f"  {'view':<14} {'chunks in':>10} {'page kept up':>13} {'wall s':>8} {'long tasks':>11} {'long ms':>9} "
        f"{'naive/this ms':>14}"
    )
    for r in stream_runs:
        ratio = f"{naive.long_ms / r.long_ms:.1f}x" if r.long_ms else "no long task"
        shown = f"{r.chunks_in:,}" if r.caught_up else "?"
        print(
            f"  {r.view:<14} {shown:>10} {'yes' if r.caught_up else 'no':>13} {r.seconds:>8.2f} {r.long_tasks:>11} "
            f"{r.long_ms:>9.0f} {ratio:>14}"
        )
