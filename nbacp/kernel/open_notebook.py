"""The notebook tools' default way to the open notebook: chosen per turn, live or fallback.

``nbacp.kernel_tools()`` in a kernel gives the session an :class:`OpenNotebook`. Each turn it
notes the prompt cell as the turn starts (in that cell: its id from the execute request, its
execution count), and at the turn's first notebook call picks the way in: nbacp's front-end
piece over the ``nbacp:notebook`` comm when a page answers (a bounded wait), else IPython's
``set_next_input`` (``next_input.py``), which says why with every outcome. Deciding per turn
lets a page opened, reloaded or closed between turns be found or given up.
"""

from __future__ import annotations

import asyncio

from nbacp.kernel.next_input import NextInputLink, execution_count, live_or_fallback
from nbacp.kernel.notebook_edits import CellEdit, EditResult, NotebookLink, NotebookView
from nbacp.kernel.notebook_link import CommNotebookLink, prompt_cell_id

NO_CELL_ID = (
    "the prompt's execute request carried no cell id (this front end sends none: VS Code, Colab, "
    "nbclient), so nbacp cannot be sure which notebook to edit through its front-end piece"
)


class OpenNotebook:
    """A :class:`~nbacp.kernel.notebook_edits.NotebookLink` that is, for each turn, either the
    live :class:`CommNotebookLink` or a :class:`NextInputLink` below that turn's prompt cell."""

    def __init__(self, comm: CommNotebookLink | None = None) -> None:
        self.comm = comm if comm is not None else CommNotebookLink()
        self.chosen: NotebookLink | None = None
        """This turn's way in, once its first notebook call decided it."""
        self._noted = False
        self._has_cell = False
        self._count: int | None = None
        self._choice: asyncio.Task[NotebookLink] | None = None

    @property
    def live(self) -> bool:
        return self.chosen.live if self.chosen is not None else self.comm.live

    @property
    def why_not_live(self) -> str:
        return self.chosen.why_not_live if self.chosen is not None else self.comm.why_not_live

    def turn_started(self) -> None:
        self._noted = True
        self._has_cell = prompt_cell_id() is not None
        self.comm.turn_started()
        self._count = execution_count()
        self._choice = None
        self.chosen = None

    async def read(self) -> NotebookView:
        return await (await self.link()).read()

    async def apply(self, edit: CellEdit) -> EditResult:
        return await (await self.link()).apply(edit)

    async def link(self) -> NotebookLink:
        """This turn's way in, decided once (calls made at the same time share the one decision)."""
        if not self._noted:  # a call outside any turn: the running cell stands for the prompt cell
            self.turn_started()
        if self._choice is None:
            self._choice = asyncio.ensure_future(self._decide())
        return await asyncio.shield(self._choice)

    async def _decide(self) -> NotebookLink:
        if not self._has_cell:
            chosen: NotebookLink = NextInputLink(NO_CELL_ID, prompt_count=self._count)
        else:
            chosen = await live_or_fallback(self.comm, prompt_count=self._count)
        if self._choice is asyncio.current_task():  # not a decision a newer turn replaced
            self.chosen = chosen
        return chosen


__all__ = ["OpenNotebook"]
