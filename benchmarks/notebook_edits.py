"""The notebook edits in a real JupyterLab and Debian's chromium (docs/notebook-edits.md).

From the page, a request on the notebook's kernel connection asks nbacp's notebook link in the
kernel to insert a cell; the figure is the time from that request to the new cell shown in the
page (a ``MutationObserver`` sees its text), against the same request running ``pass``: the
kernel round trip every edit starts with. So the ratio is what one edit costs on top of asking
the kernel anything. Medians of ``rounds``; nothing asserts on them. Needs chromium.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

_TIMED = """async ({code, cellId, marker}) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const shown = marker === null ? null : new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      const editors = [...document.querySelectorAll('.jp-Cell .jp-InputArea-editor')];
      if (editors.some((e) => e.textContent.includes(marker))) { observer.disconnect(); resolve(performance.now()); }
    });
    observer.observe(document.body, {childList: true, subtree: true, characterData: true});
  });
  const start = performance.now();
  const future = kernel.requestExecute({code, store_history: false}, true, {cellId});
  await future.done;
  const end = shown === null ? performance.now() : await shown;
  return end - start;
}"""


def _support() -> tuple[Any, Any]:
    # the browser tests' helpers, imported as pytest sees them (tests/browser, tests/support)
    sys.path[:0] = [str(ROOT / "tests" / "browser"), str(ROOT / "tests")]
    import browser_support
    import notebook_edit_support

    return browser_support, notebook_edit_support


def run(rounds: int) -> tuple[list[float], list[float]]:
    """Milliseconds per round: the kernel round trip, and a request that inserts a cell until it shows."""
    support, edits = _support()
    from playwright.sync_api import sync_playwright

    server = support.start_server("lab", Path(tempfile.mkdtemp(prefix="nbacp-bench-")))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=support.CHROMIUM, headless=True, args=support.CHROMIUM_ARGS)
            try:
                page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
                support.open_notebook(page, server, server.write_notebook("bench.ipynb", ["a = 1", "b = 2"]))
                edits.run_in_kernel(page, edits.SETUP + "show(0)", None)
                first = edits.page_cells(page)[0]["id"]
                trips, inserts = [], []
                for i in range(rounds):
                    trips.append(page.evaluate(_TIMED, {"code": "pass", "cellId": first, "marker": None}))
                    marker = f"bench_{i} = {i}"
                    code = (
                        f"await link.apply(CellEdit(mode='insert', cell_id={first!r}, source={marker!r}, "
                        "cell_type='code', expected_source=None))"
                    )
                    inserts.append(page.evaluate(_TIMED, {"code": code, "cellId": first, "marker": marker}))
                shown = [c["source"] for c in edits.page_cells(page)].count
                assert all(shown(f"bench_{i} = {i}") == 1 for i in range(rounds)), "an insert did not arrive once"
            finally:
                browser.close()
    finally:
        server.stop()
    return trips, inserts


def report(rounds: int) -> None:
    trips, inserts = run(rounds)
    trip, insert = statistics.median(trips), statistics.median(inserts)
    print(f"notebook edits (JupyterLab + chromium): median of {rounds}, ms from the page's request")
    print(f"  {'request':<34} {'median ms':>10} {'each ms':>28} {'x trip':>7}")
    print(f"  {'kernel round trip (pass)':<34} {trip:>10.1f} {str([round(t) for t in trips]):>28} {1:>6.2f}x")
    print(
        f"  {'insert until shown in the page':<34} {insert:>10.1f} {str([round(t) for t in inserts]):>28} "
        f"{insert / trip:>6.2f}x"
    )
