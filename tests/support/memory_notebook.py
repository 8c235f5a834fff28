"""An in-memory ``NotebookLink``: the notebook tools' page, in tests of the kernel side.

A stand-in (not the real page) because these tests are about the tools and the review card,
which code against the ``NotebookLink`` protocol only; the real way to the page (the front-end
piece and ``nbacp/kernel/notebook_link.py``) is covered by that piece's browser tests in real
JupyterLab and Notebook 7. It behaves as the contract says: cells by id, a stale edit refused
by comparing ``expected_source``, every result read back from its own cells.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from nbacp.errors import NbacpError
from nbacp.kernel.notebook_edits import Cell, CellEdit, CellType, EditResult, NotebookView


class NotebookGone(NbacpError):
    """What a link raises when the notebook closed (stands in for nbacp's NotebookUnavailableError)."""


def cell(cell_id: str, source: str, cell_type: CellType = "code", count: int | None = None, outputs: str = "") -> Cell:
    return Cell(cell_id, cell_type, source, count, outputs)


class MemoryNotebook:
    def __init__(
        self,
        path: str,
        cells: list[Cell],
        prompt_cell_id: str | None = None,
        *,
        live: bool = True,
        why_not_live: str = "",
    ) -> None:
        self.path = path
        self.cells = list(cells)
        self.prompt_cell_id = prompt_cell_id
        self._live = live
        self._why = why_not_live
        self.closed = False
        self.applied: list[CellEdit] = []
        self.ran: list[str] = []
        self.turns = 0
        self._ids = itertools.count(1)

    @property
    def live(self) -> bool:
        return self._live

    @property
    def why_not_live(self) -> str:
        return "" if self._live else self._why

    def turn_started(self) -> None:
        self.turns += 1

    async def read(self) -> NotebookView:
        if self.closed:
            raise NotebookGone(f"{self.path} was closed.")
        return NotebookView(self.path, self.prompt_cell_id, tuple(self.cells))

    def index(self, cell_id: str) -> int:
        return [c.id for c in self.cells].index(cell_id)

    def sources(self) -> list[tuple[str, str]]:
        return [(c.id, c.source) for c in self.cells]

    def person_types(self, cell_id: str, source: str) -> None:
        """The person edits a cell meanwhile."""
        self.cells[self.index(cell_id)] = replace(self.cells[self.index(cell_id)], source=source)

    async def apply(self, edit: CellEdit) -> EditResult:
        if self.closed:
            raise NotebookGone(f"{self.path} was closed.")
        ids = [c.id for c in self.cells]
        if edit.cell_id is not None and ids.count(edit.cell_id) != 1:
            return EditResult("not_applied", None, None, f"cell {edit.cell_id} is not in the notebook")
        stale = (
            edit.expected_source is not None
            and edit.cell_id is not None
            and (self.cells[self.index(edit.cell_id)].source != edit.expected_source)
        )
        if stale:
            return EditResult("stale", None, None, "the cell changed since it was read")
        self.applied.append(edit)
        if edit.mode == "delete":
            del self.cells[self.index(edit.cell_id or "")]
            return EditResult("applied", None, None, "")
        if edit.mode == "replace":
            at = self.index(edit.cell_id or "")
            self.cells[at] = replace(self.cells[at], source=edit.source, cell_type=edit.cell_type)
            new_id = edit.cell_id
        else:
            new_id = f"new-{next(self._ids)}"
            at = 0 if edit.cell_id is None else self.index(edit.cell_id) + 1
            self.cells.insert(at, Cell(new_id, edit.cell_type, edit.source, None, ""))
        if edit.run:
            self.ran.append(new_id or "")
        back = self.cells[self.index(new_id or "")]
        return EditResult("applied", back.id, back.source, "")
