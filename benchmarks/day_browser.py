"""Opening the day session's saved notebook in a real JupyterLab and Debian's chromium.

The figure is the wall time from navigating to the notebook's page until its last cell's
output shows the last turn's closing words, against the same time for the baseline notebook
(the same cells, each output its turn's record as plain text). Both notebooks are signed with
the server's own notary first, as a notebook a person saved is: an unsigned one would show
``text/plain`` in place of the record's HTML. Pages alternate, ``rounds`` of each; medians.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import nbformat
from nbformat.sign import NotebookNotary

ROOT = Path(__file__).resolve().parents[1]

_SHOWN = """([n, marker]) => {
  const cells = document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell');
  if (cells.length < n) return false;
  const area = cells[cells.length - 1].querySelector('.jp-OutputArea');
  return !!area && area.textContent.includes(marker);
}"""


def _support() -> Any:
    # the browser tests' helpers, imported as pytest sees them (tests/browser, tests/support)
    sys.path[:0] = [str(ROOT / "tests" / "browser"), str(ROOT / "tests")]
    import browser_support

    return browser_support


def open_times(books: dict[str, Any], marker: str, rounds: int) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Seconds from ``goto`` to the last output showing ``marker``, per notebook name, ``rounds`` each;
    and the records the page drew as HTML (a signed notebook's; 0 if the page did not trust it)."""
    support = _support()
    from playwright.sync_api import sync_playwright

    base = Path(tempfile.mkdtemp(prefix="nbacp-day-lab-"))
    (base / "data").mkdir(parents=True)
    notary = NotebookNotary(data_dir=str(base / "data"))  # the server's JUPYTER_DATA_DIR
    server = support.start_server("lab", base)
    times: dict[str, list[float]] = {name: [] for name in books}
    html: dict[str, int] = {}
    try:
        for name, book in books.items():
            notary.sign(book)
            (server.root / name).write_text(nbformat.writes(book), encoding="utf-8")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=support.CHROMIUM, headless=True, args=support.CHROMIUM_ARGS)
            try:
                for _ in range(rounds):
                    for name, book in books.items():
                        context = browser.new_context(viewport={"width": 1280, "height": 900})
                        try:
                            page = context.new_page()
                            start = time.perf_counter()
                            page.goto(server.url_for(name), timeout=120_000)
                            page.wait_for_function(
                                _SHOWN, arg=[len(book.cells), marker], timeout=300_000, polling="raf"
                            )
                            times[name].append(time.perf_counter() - start)
                            html[name] = page.evaluate("() => document.querySelectorAll('.nbacp-record').length")
                        finally:
                            context.close()
                        server.shutdown_kernels()
            finally:
                browser.close()
    finally:
        server.stop()
    return times, html


def medians(times: dict[str, list[float]]) -> dict[str, float]:
    return {name: statistics.median(values) for name, values in times.items()}
