"""What the kernel knows of the open notebook, and the edits it may ask the page to make.

The contract between the notebook tools (``notebook_read`` / ``notebook_edit``, the review card)
and whatever reaches the person's open notebook: the front-end piece nbacp ships (a comm to the
page, which edits the notebook's own document model) or a fallback for front ends without it.
Cells are addressed by id, never by index: an index moves when the person edits meanwhile.
Nothing here touches a comm or a widget, so the tools and the card are tested without a page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

CellType = Literal["code", "markdown", "raw"]
EditMode = Literal["insert", "replace", "delete"]
Outcome = Literal["applied", "stale", "not_applied"]


@dataclass(frozen=True)
class Cell:
    """One cell as the page holds it now (unsaved edits included)."""

    id: str
    cell_type: CellType
    source: str
    execution_count: int | None
    outputs: str
    """A bounded plain-text summary of the cell's outputs (never HTML)."""


@dataclass(frozen=True)
class NotebookView:
    """The notebook that holds the prompt cell, as read from the page."""

    path: str
    prompt_cell_id: str | None
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class CellEdit:
    """One edit, as the person accepted it (their version of the source, not the agent's).

    ``cell_id`` is the target: the cell to replace or delete, or the cell to insert after
    (``None`` inserts at the top). ``expected_source`` is the target's source as the agent read
    it: the page refuses the edit as stale when the cell holds anything else now.
    """

    mode: EditMode
    cell_id: str | None
    source: str
    cell_type: CellType
    expected_source: str | None
    run: bool = False
    """Run the cell once it is in (the person's choice on the card, never the agent's)."""


@dataclass(frozen=True)
class EditResult:
    """What the page reports after the edit, read back from its document model."""

    outcome: Outcome
    cell_id: str | None
    """The id of the inserted or replaced cell (``None`` for a delete or when nothing applied)."""
    source: str | None
    """The cell's source as read back after the edit (``None`` for a delete)."""
    reason: str
    """Why it was stale or not applied ("" when applied)."""


class NotebookLink(Protocol):
    """The way to the person's open notebook; one per kernel, whichever front end it has."""

    @property
    def live(self) -> bool:
        """True when edits reach the open notebook's document model (the front-end piece answered)."""
        ...

    @property
    def why_not_live(self) -> str:
        """Why not, for the card and the agent ("" when live)."""
        ...

    def turn_started(self) -> None:
        """A turn began: called in the prompt cell, synchronously, before its request is sent, so
        the link can note what it needs of that cell (its id, its execution count)."""
        ...

    async def read(self) -> NotebookView:
        """The notebook of the prompt cell.

        Raises ``NotebookUnavailableError`` (nbacp.errors) when it cannot be sure which.
        """
        ...

    async def apply(self, edit: CellEdit) -> EditResult:
        """Apply one accepted edit once (one page, however many tabs) and read it back."""
        ...
