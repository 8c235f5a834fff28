"""Agent text is never typeset as math, in the live view or the saved record, and long words wrap.

A positive control in the same cell (an ordinary Markdown output with ``$x^2$``) proves the
page's MathJax runs, so the absence of typeset math in nbacp's outputs means something.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from browser_support import JupyterServer, open_notebook, output_area, screenshot, start_cell
from playwright.sync_api import Page, expect

TESTS = Path(__file__).resolve().parent.parent

CELL = textwrap.dedent(f"""
    import sys
    sys.path.insert(0, {str(TESTS)!r})
    import nbacp
    from IPython.display import Markdown, display
    from support.math_agent import MathAgent
    display(Markdown("control: $x^2$"))
    agent = MathAgent(hold=True)
    conn = await nbacp.connect(agent)
    session = await conn.new_session('.')
    turn = session.start("What do $1 and $2 cost?")
""")
FINISH = "agent.release.set()\nresult = await turn\nprint('DONE', result.stop_reason)"


def test_agent_text_is_not_typeset_and_long_words_wrap(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    open_notebook(page, lab, lab.write_notebook("math.ipynb", [CELL, FINISH]))
    start_cell(page, 0)
    out = output_area(page, 0)
    control = out.locator(".jp-RenderedMarkdown", has_text="control")
    expect(control.locator("mjx-container")).to_have_count(1, timeout=60_000)  # MathJax runs on this page
    # while the turn runs: the live view
    live = out.locator(".nbacp-transcript:not(.nbacp-inbox)")
    expect(live).to_contain_text("The price is $5 and $6.", timeout=60_000)
    expect(live).to_contain_text("compute $a$ and $b$")
    page.wait_for_timeout(1500)  # give the typesetter the same chance on nbacp's outputs
    assert out.locator("mjx-container").count() == 1, "only the control may be typeset"
    # the 3,000-character word wraps inside the live view instead of overflowing it
    overflow = live.evaluate("""(el) => {
        const html = Array.from(el.querySelectorAll('.nbacp-tv-html'))
            .find((n) => (n.textContent || '').includes('wwwwwwwwww'));
        return html ? [html.scrollWidth, el.clientWidth, html.getBoundingClientRect().height] : null;
    }""")
    assert overflow is not None
    scroll_width, view_width, height = overflow
    assert scroll_width <= view_width + 1, overflow  # not wider than the turn's view (it was 31,897 px)
    assert height > 200, overflow  # 3,000 characters on many lines
    # the turn ends: the record takes the live view's place, and is not typeset either
    start_cell(page, 1)
    expect(output_area(page, 1)).to_contain_text("DONE end_turn", timeout=60_000)
    record = out.locator(".nbacp-record")
    expect(record).to_have_count(1, timeout=30_000)
    expect(live).to_have_count(0)
    expect(record).to_contain_text("The price is $5 and $6. Your $HOME is set.")
    expect(record).to_contain_text(r"\color{red}{alarm} and $$x^2$$")
    expect(record).to_contain_text("What do $1 and $2 cost?")
    page.wait_for_timeout(1500)
    assert out.locator("mjx-container").count() == 1, "only the control may be typeset"
    width = record.evaluate("(el) => [el.scrollWidth, el.clientWidth]")
    assert width[0] <= width[1] + 1, width  # the long word wraps in the record too
    screenshot(page, tmp_path, "math")
