"""The cards in a real browser on Colab's widget stack: ipywidgets 7.7.1's widget manager + anywidget 0.9.21.

JupyterLab 3.6 with jupyterlab_widgets 1.1.1 and anywidget 0.9.21's lab extension, on Colab's
kernel stack (support/colab_stack.py; docs/kernels.md, 'Colab in a browser'), in chromium through
the delaying proxy. There each card carries its whole module and stylesheet (anywidget < 0.11 has
no ``host.getWidget``; docs/cards.md). The slow-link tier's cases (test_slow_link.py) run here
for a fast person at 0 and 400 ms each way, with the kernel idle and with a cell awaiting the
card: the kernel gets exactly what the page showed at the click. The first test proves which
widget manager and anywidget the page runs, from the page.

Run alone: ``make test-colab-stack``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_cards_browser
import test_slow_link
from browser_support import JupyterServer, output_area, start_server
from playwright.sync_api import Page, expect
from support import colab_stack
from support.delay_proxy import DelayProxy
from test_slow_link import CASES, answer_through_the_link, run_cell

from nbacp.widgets.card_code import CARD_STUB

pytestmark = pytest.mark.colab_stack

# The slow-link tier's fixtures, here resolved against this module's ``lab``.
proxy = test_slow_link.proxy
slow_page = test_slow_link.slow_page

DELAYS = [0, 400]
NAMES = ["multi-select+other", "number+text+date"]

# What the page runs, read from the page: JupyterLab's version, the widget manager's registry
# (module -> versions it can make models of), the module and version each live model names,
# and the version in the package.json of each federated extension the page loaded.
_STACK = """async () => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  const renderers = [];
  const walk = (w) => {
    if (w._manager) renderers.push(w);
    for (const child of (w.layout && w.layout.widgets) || []) walk(child);
  };
  for (const c of panel.content.widgets) if (c.outputArea) walk(c.outputArea);
  if (!renderers.length) return null;
  const held = renderers[0]._manager;
  const manager = held.promise ? await held.promise : held;
  const registry = Object.fromEntries(Object.entries(manager._registry._cache)
    .map(([module, versions]) => [module, Object.keys(versions).sort()]));
  const models = [];
  for (const pending of Object.values(manager._models)) {
    const m = await pending;
    const esm = m.get('_esm');
    models.push([m.get('_model_module'), m.get('_model_module_version'), m.get('_model_name'),
                 typeof esm === 'string' ? esm.length : -1, m.get('draft') !== undefined]);
  }
  const config = JSON.parse(document.getElementById('jupyter-config-data').textContent);
  const extensions = {};
  for (const ext of config.federated_extensions) {
    const reply = await fetch(`${config.fullLabextensionsUrl}/${ext.name}/package.json`);
    extensions[ext.name] = (await reply.json()).version;
  }
  return {lab: app.version, registry, models, extensions};
}"""

# The Accept button's background against the page's brand colour, resolved the same way.
_PRIMARY = """(button) => {
  const probe = document.createElement('div');
  probe.style.background = 'var(--jp-brand-color1, #1976d2)';
  document.body.appendChild(probe);
  const brand = getComputedStyle(probe).backgroundColor;
  probe.remove();
  const plain = document.createElement('button');
  document.body.appendChild(plain);
  const unstyled = getComputedStyle(plain).backgroundColor;
  plain.remove();
  return {button: getComputedStyle(button).backgroundColor, brand, unstyled};
}"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """JupyterLab 3.6 from the Colab-stack venv, in place of the session's JupyterLab 4 for this module."""
    python = colab_stack.ensure()
    server = start_server(
        "lab", tmp_path_factory.mktemp("jupyter-colab"), extra_env=colab_stack.server_env(), python=str(python)
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _stop_kernels() -> None:
    """``slow_page``'s kernel lives across its cases; every kernel ends with the module's server."""


def _show_card(page: Page, name: str) -> Any:
    index = 1 + list(CASES).index(name)
    run_cell(page, index)
    card = output_area(page, index).locator(".nbacp-card[data-ready=true]")
    expect(card).to_have_count(1, timeout=30_000)
    return card


def test_the_page_runs_ipywidgets_7_and_anywidget_0_9(slow_page: Page) -> None:
    _show_card(slow_page, NAMES[0])
    stack = slow_page.evaluate(_STACK)
    assert stack is not None, "no widget renderer in the notebook"
    assert stack["lab"].startswith("3.6."), stack
    # jupyterlab_widgets 1.1.1's manager: widget protocol 1.x only (ipywidgets 8's registers 2.0.0).
    assert stack["extensions"]["@jupyter-widgets/jupyterlab-manager"] == "3.1.1", stack
    assert stack["registry"]["@jupyter-widgets/base"] == ["1.2.0"], stack
    assert stack["registry"]["@jupyter-widgets/controls"] == ["1.5.0"], stack
    assert stack["extensions"]["anywidget"] == "0.9.21", stack
    assert stack["registry"]["anywidget"] == ["0.9.21"], stack
    # Every anywidget model is a card (no shared code model) carrying the whole bundle, not the stub.
    anywidgets = [m for m in stack["models"] if m[0] == "anywidget"]
    assert anywidgets, stack
    for _, version, _, esm_length, is_card in anywidgets:
        assert version == "~0.9.*" and is_card and esm_length > 10 * len(CARD_STUB), stack


def test_a_card_carries_its_stylesheet(slow_page: Page) -> None:
    card = _show_card(slow_page, NAMES[1])
    colours = card.get_by_role("button", name="Accept").evaluate(_PRIMARY)
    assert colours["button"] == colours["brand"] != colours["unstyled"], colours


@pytest.mark.parametrize("awaiting", [False, True], ids=["idle", "awaiting-cell"])
@pytest.mark.parametrize("delay", DELAYS)
@pytest.mark.parametrize("name", NAMES)
def test_the_kernel_gets_what_the_page_showed(
    slow_page: Page, proxy: DelayProxy, name: str, delay: int, awaiting: bool
) -> None:
    """Idle: the card's callback gets the answer. Awaiting: a cell awaits the card meanwhile
    (ipykernel 6.17.1 holds comm messages behind it without nbacp's forwarding, docs/kernels.md)."""
    answer_through_the_link(slow_page, proxy, name, delay, "fast", awaiting)


def test_a_started_turn_shows_its_record_after_the_click(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    """``turn = session.start(...)`` in one cell, the permission card clicked, ``await turn`` in
    the next: the first cell shows the turn's record. On ipywidgets 7 it went blank (the live
    view was published without its display id; nbacp/display.py, docs/kernels.md)."""
    test_cards_browser.test_answered_permission_card_shows_bidi_marks_not_obeyed(lab, page, tmp_path)
