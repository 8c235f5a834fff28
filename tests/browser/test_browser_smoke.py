"""The browser tier works: real widgets in real JupyterLab (and Notebook 7) in chromium."""

from __future__ import annotations

import textwrap
from pathlib import Path

from browser_support import JupyterServer, active_plugins, open_notebook, output_area, run_all_cells, screenshot
from playwright.sync_api import Page, expect

AWAIT_CLICK = textwrap.dedent("""
    import asyncio, ipywidgets
    fut = asyncio.get_running_loop().create_future()
    button = ipywidgets.Button(description="Press me")
    button.on_click(lambda b: fut.set_result(None))
    display(button)
    await fut
    print("clicked")
""")

ANYWIDGET = textwrap.dedent("""
    import anywidget, traitlets
    class Hello(anywidget.AnyWidget):
        _esm = '''export default { render({ model, el }) {
            const span = document.createElement("span");
            span.className = "hello-card";
            span.textContent = "hello from " + model.get("who");
            el.appendChild(span);
        } }'''
        who = traitlets.Unicode("anywidget").tag(sync=True)
    Hello(who="esm")
""")


def _click_and_see_clicked(server: JupyterServer, page: Page, tmp_path: Path) -> None:
    open_notebook(page, server, server.write_notebook("await_click.ipynb", [AWAIT_CLICK, "print('after')"]))
    run_all_cells(page)
    out = output_area(page, 0)
    button = out.get_by_role("button", name="Press me")
    expect(button).to_be_visible(timeout=30_000)
    expect(out).not_to_contain_text("clicked")
    expect(output_area(page, 1)).not_to_contain_text("after")  # the cell really is waiting
    screenshot(page, tmp_path, "waiting")
    button.click()
    expect(out).to_contain_text("clicked", timeout=15_000)
    expect(output_area(page, 1)).to_contain_text("after", timeout=15_000)


def test_lab_button_click_ends_a_top_level_await(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    _click_and_see_clicked(lab, page, tmp_path)
    assert active_plugins(page, "@jupyter-widgets/jupyterlab-manager")


def test_lab_renders_inline_esm_anywidget(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    open_notebook(page, lab, lab.write_notebook("anywidget.ipynb", [ANYWIDGET]))
    run_all_cells(page)
    expect(output_area(page, 0).locator(".hello-card")).to_have_text("hello from esm", timeout=30_000)
    screenshot(page, tmp_path, "anywidget")


def test_notebook7_button_click_ends_a_top_level_await(notebook7: JupyterServer, page: Page, tmp_path: Path) -> None:
    _click_and_see_clicked(notebook7, page, tmp_path)
