"""The fallback way to the notebook for front ends without nbacp's piece: IPython's ``set_next_input``.

An accepted insert becomes a ``set_next_input`` payload of the prompt cell's ``execute_reply``:
JupyterLab and Notebook 7 insert it as a new code cell below the prompt cell when that cell
finishes, and take only the first such payload of a reply; VS Code takes all; Colab duplicates.
Nothing can be read back, so an edit is never reported as applied: the outcome is
``not_applied`` and the reason says how (and whether) the cell will arrive. Replace, delete and
markdown cells have no such way: the reason says to copy the cell from the card.
"""

from __future__ import annotations

from typing import Any

from nbacp.errors import NotebookUnavailableError
from nbacp.kernel import versions
from nbacp.kernel.notebook_edits import CellEdit, EditResult, NotebookLink, NotebookView
from nbacp.kernel.notebook_link import CommNotebookLink
from nbacp.kernel.notebook_wire import LIMITS

COPY = "copy it from the card into the notebook"


class NextInputLink:
    """A :class:`~nbacp.kernel.notebook_edits.NotebookLink` that can only queue one new code cell per
    prompt, below the prompt cell, where the front end honours ``set_next_input``.

    ``why`` is why the live link is not there (shown with every outcome). Create it while the
    prompt cell runs, or pass ``prompt_count``, the execution count the shell had then: it tells
    whether that cell is still running later. ``turn_started`` makes it serve a new prompt cell.
    """

    def __init__(self, why: str, shell: Any = None, *, prompt_count: int | None = None) -> None:
        self._why = why
        self._shell = shell if shell is not None else _shell()
        self._count = prompt_count if prompt_count is not None else execution_count(self._shell)
        self._queued = False

    def turn_started(self) -> None:
        self._count = execution_count(self._shell)
        self._queued = False

    @property
    def live(self) -> bool:
        return False

    @property
    def why_not_live(self) -> str:
        return self._why

    async def read(self) -> NotebookView:
        raise NotebookUnavailableError(f"nbacp cannot read the open notebook: {self._why}.")

    async def apply(self, edit: CellEdit) -> EditResult:
        def no(reason: str) -> EditResult:
            return EditResult("not_applied", None, None, f"{reason} ({self._why})")

        if edit.mode != "insert":
            return no(f"this front end offers nbacp no way to {edit.mode} a cell: {COPY}")
        if edit.cell_type != "code":
            return no(f"this front end can only be given a new code cell: {COPY}")
        if len(edit.source) > LIMITS.source:
            return no(f"the source is longer than {LIMITS.source} characters")
        if self._shell is None or getattr(self._shell, "payload_manager", None) is None:
            return no(f"not in an IPython kernel: {COPY}")
        if execution_count(self._shell) != self._count:
            return no(f"the prompt cell has finished, so the cell can no longer arrive below it: {COPY}")
        if self._queued:
            return no(f"one new cell per prompt can arrive this way, and one is queued already: {COPY}")
        self._shell.set_next_input(edit.source, replace=False)
        self._queued = True
        return EditResult(
            "not_applied",
            None,
            None,
            "queued as IPython's set_next_input: where the front end honours it (JupyterLab, Notebook 7, "
            "VS Code) the cell appears below the prompt cell when that cell finishes; it cannot be read back, "
            f"so nbacp does not know that it arrived ({self._why})",
        )


async def live_or_fallback(link: CommNotebookLink, *, prompt_count: int | None = None) -> NotebookLink:
    """``link`` when a page with the front-end piece answers (bounded wait), else the fallback,
    carrying the reason. Call it while the prompt cell runs (the fallback needs that cell), or
    pass the ``prompt_count`` noted while it ran."""
    if await link.connect():
        return link
    return NextInputLink(link.why_not_live, prompt_count=prompt_count)


def execution_count(shell: Any = None) -> int | None:
    """The IPython shell's execution count (``shell``, else the kernel's; None outside one):
    while a cell runs it is that cell's, and it moves on when the cell ends."""
    shell = shell if shell is not None else _shell()
    count = getattr(shell, "execution_count", None)
    return count if isinstance(count, int) else None


def _shell() -> Any:
    if not versions.running_in_kernel():
        return None
    from IPython import get_ipython

    return get_ipython()


__all__ = ["NextInputLink", "execution_count", "live_or_fallback"]
