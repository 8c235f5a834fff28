"""Driving nbacp's notebook link from a real page: kernel code run as if from a notebook cell,
and the notebook model as the page holds it.

The page sends an ``execute_request`` on the notebook's own kernel connection with the
``cellId`` metadata JupyterLab puts there, so the kernel sees exactly what a prompt cell's
request carries; the code prints one JSON line, returned here.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from playwright.sync_api import Page

_EXECUTE = """async ({code, cellId}) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({code, store_history: false}, true, cellId ? {cellId} : {});
  let out = '';
  future.onIOPub = (msg) => {
    const t = msg.header.msg_type;
    if (t === 'stream') out += msg.content.text;
    if (t === 'error') out += 'ERROR ' + msg.content.ename + ': ' + msg.content.evalue + '\\n';
  };
  await future.done;
  return out;
}"""

_CELLS = """() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells.map(
  (c) => ({id: c.id, cell_type: c.cell_type, source: c.getSource()}))"""

SETUP = textwrap.dedent("""
    import json, dataclasses
    from nbacp.kernel.notebook_link import CommNotebookLink
    from nbacp.kernel.notebook_edits import CellEdit
    link = CommNotebookLink()
    def show(value):
        print(json.dumps(dataclasses.asdict(value) if dataclasses.is_dataclass(value) else value))
""")


def run_in_kernel(page: Page, code: str, cell_id: str | None) -> Any:
    """Run ``code`` in the page's notebook kernel as if from cell ``cell_id``; its last printed JSON line."""
    out: str = page.evaluate(_EXECUTE, {"code": textwrap.dedent(code), "cellId": cell_id})
    lines = [line for line in out.splitlines() if line.strip()]
    assert lines and not lines[-1].startswith("ERROR"), out
    return json.loads(lines[-1])


def page_cells(page: Page) -> list[dict[str, str]]:
    """The cells of the current notebook as its page's model holds them (id, type, source)."""
    cells: list[dict[str, str]] = page.evaluate(_CELLS)
    return cells


def edit_code(**edit: Any) -> str:
    """Kernel code that applies one CellEdit through ``link`` and prints the result."""
    fields = {"cell_id": None, "source": "", "cell_type": "code", "expected_source": None, "run": False} | edit
    return f"show(await link.apply(CellEdit(**{fields!r})))"
