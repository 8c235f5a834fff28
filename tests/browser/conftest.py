"""Fixtures for the browser tier: one JupyterLab (and, on demand, one Notebook 7) per session,
one chromium per session, a fresh page per test.

A test needs only ``lab`` (or ``notebook7``) and ``page``; see test_browser_smoke.py.
Without chromium these tests FAIL (CI installs it) unless NBACP_SKIP_BROWSER=1.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import CHROMIUM, CHROMIUM_ARGS, DEFAULT_TIMEOUT_MS, JupyterServer, start_server
from playwright.sync_api import Browser, Page, sync_playwright

HERE = Path(__file__).parent
NOTEBOOKS = HERE.parents[1] / "notebooks"
_timings: list[str] = []


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = os.environ.get("NBACP_SKIP_BROWSER") == "1"
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.browser)
            if skip:
                item.add_marker(pytest.mark.skip(reason="NBACP_SKIP_BROWSER=1"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _timings:
        terminalreporter.write_line("browser tier: " + "; ".join(_timings))


def _server(kind: str, factory: pytest.TempPathFactory, nbacp_extension: bool = True) -> Iterator[JupyterServer]:
    app = "lab" if kind in ("lab", "bare") else "notebook"
    server = start_server(app, factory.mktemp(f"jupyter-{kind}"), NOTEBOOKS, nbacp_extension=nbacp_extension)
    _timings.append(f"{kind} server started in {server.startup_seconds:.1f}s")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """JupyterLab serving a temp root with a copy of notebooks/ under ``notebooks/``."""
    yield from _server("lab", tmp_path_factory)


@pytest.fixture(scope="session")
def notebook7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """Notebook 7 (the ``notebook`` package), same layout as ``lab``."""
    yield from _server("notebook", tmp_path_factory)


@pytest.fixture(scope="session")
def bare_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """JupyterLab with nbacp's front-end piece disabled: a server environment without it."""
    yield from _server("bare", tmp_path_factory, nbacp_extension=False)


@pytest.fixture(params=["lab", "notebook7"])
def server(request: pytest.FixtureRequest) -> JupyterServer:
    """Each of JupyterLab 4 and Notebook 7 in turn, for a test that must hold in both."""
    found: JupyterServer = request.getfixturevalue(request.param)
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium per test module: sync Playwright marks an asyncio loop as running in this
    thread while it lives, which would break the async tests collected after this folder."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(
            f"chromium is not installed ({CHROMIUM} missing): the browser tests need Debian's chromium "
            "(apt-get install -y chromium; `make chromium` does it). Set NBACP_SKIP_BROWSER=1 to skip them.",
            pytrace=False,
        )
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture
def page(browser: Browser, tmp_path: Path) -> Iterator[Page]:
    """A fresh page; on teardown a screenshot goes to ``tmp_path/final.png`` and console errors
    to ``tmp_path/console.txt``; kernels the test started are shut down."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    pg = context.new_page()
    console: list[str] = []
    pg.on("console", lambda m: console.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    pg.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    try:
        yield pg
    finally:
        with contextlib.suppress(Exception):
            pg.screenshot(path=str(tmp_path / "final.png"), full_page=True)
        (tmp_path / "console.txt").write_text("\n".join(console))
        context.close()


@pytest.fixture(autouse=True)
def _stop_kernels(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    for name in ("lab", "notebook7", "bare_lab"):
        if name in request.fixturenames:
            server: JupyterServer = request.getfixturevalue(name)
            with contextlib.suppress(Exception):
                server.shutdown_kernels()
