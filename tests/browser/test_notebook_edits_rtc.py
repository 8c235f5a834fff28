"""The notebook edits under real-time collaboration (jupyter-collaboration 5 on JupyterLab 4.6):
the edit goes into the shared model once, and every tab shows it once, through the server's
sync; the person's undo takes it back in every tab (docs/notebook-edits.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_support import JupyterServer, active_plugins, open_notebook, start_server
from notebook_edit_support import SETUP, edit_code, page_cells, run_in_kernel
from playwright.sync_api import Page
from support import rtc_stack

SOURCES = ["a = 1", "b = 2"]


@pytest.fixture(scope="module")
def rtc_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    python = rtc_stack.ensure()
    server = start_server(
        "lab", tmp_path_factory.mktemp("jupyter-rtc"), python=str(python), extra_env=rtc_stack.server_env()
    )
    try:
        yield server
    finally:
        server.stop()


def _has(page: Page, source: str, count: int) -> None:
    page.wait_for_function(
        """([source, count]) => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells
             .filter((c) => c.getSource() === source).length === count""",
        arg=[source, count],
    )


def test_two_collaborating_tabs_see_one_insert_and_its_undo(page: Page, rtc_lab: JupyterServer) -> None:
    path = rtc_lab.write_notebook("shared.ipynb", SOURCES)
    open_notebook(page, rtc_lab, path)
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.collaborative") is True
    assert active_plugins(page, "nbacp:") == ["nbacp:notebook"]
    second = page.context.new_page()
    try:
        open_notebook(second, rtc_lab, path)
        a = page_cells(page)[0]
        assert [c["id"] for c in page_cells(second)] == [c["id"] for c in page_cells(page)]
        run_in_kernel(page, SETUP + "show(0)", None)
        result = run_in_kernel(page, edit_code(mode="insert", cell_id=a["id"], source="together = 1"), a["id"])
        assert result["outcome"] == "applied"
        for tab in (page, second):
            _has(tab, "together = 1", 1)
            assert [c["source"] for c in page_cells(tab)] == ["a = 1", "together = 1", "b = 2"]
        # Applied once: a moment for a second copy to arrive, then still one in each tab.
        run_in_kernel(page, "show(await link.read())", a["id"])
        assert [sum(c["source"] == "together = 1" for c in page_cells(tab)) for tab in (page, second)] == [1, 1]

        # The edit is on the undo stack of the tab that made it (the link's choice), not on the other's.
        can_undo = [
            tab.evaluate("() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.canUndo()")
            for tab in (page, second)
        ]
        assert sorted(can_undo) == [False, True], can_undo
        chosen = (page, second)[can_undo.index(True)]
        chosen.locator(".jp-Notebook .jp-Cell").first.click()
        chosen.keyboard.press("Escape")
        chosen.keyboard.press("z")
        for tab in (page, second):
            _has(tab, "together = 1", 0)
    finally:
        second.close()
