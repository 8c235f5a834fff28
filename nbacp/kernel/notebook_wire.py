"""The messages of the ``nbacp:notebook`` comm, checked on the kernel's side.

The page (labextension/src/protocol.ts) checks what it receives with the same limits; here an
edit is checked before it is sent and every reply before it is believed: a malformed reply is a
clear error, never a result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

from nbacp.kernel.notebook_edits import Cell, CellEdit, CellType, EditMode, EditResult, Outcome


@dataclass(frozen=True)
class Limits:
    """What crosses the comm (labextension/src/protocol.ts's ``LIMITS`` holds the same numbers)."""

    id: int = 128
    source: int = 200_000
    outputs: int = 2_000
    cells: int = 5_000
    read_chars: int = 4_000_000


LIMITS = Limits()
_CELL_TYPES: tuple[str, ...] = get_args(CellType)
_MODES: tuple[str, ...] = get_args(EditMode)
_OUTCOMES: tuple[str, ...] = get_args(Outcome)


def _is_id(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= LIMITS.id


def edit_message(edit: CellEdit) -> dict[str, Any] | str:
    """The ``edit`` message for ``edit``, or why it cannot be sent (nothing is sent then)."""
    if edit.mode not in _MODES:
        return f"unknown edit mode {edit.mode!r}"
    if edit.cell_type not in _CELL_TYPES:
        return f"unknown cell type {edit.cell_type!r}"
    if edit.cell_id is not None and not _is_id(edit.cell_id):
        return "the cell id is not a short string"
    if edit.mode != "insert" and edit.cell_id is None:
        return f"a {edit.mode} needs a cell id"
    for name, text in (("source", edit.source), ("expected source", edit.expected_source)):
        if text is not None and (not isinstance(text, str) or len(text) > LIMITS.source):
            return f"the {name} is not a string of at most {LIMITS.source} characters"
    return {
        "type": "edit",
        "mode": edit.mode,
        "cell_id": edit.cell_id,
        "source": edit.source,
        "cell_type": edit.cell_type,
        "expected_source": edit.expected_source,
        "run": bool(edit.run),
    }


def _cell(raw: object) -> Cell | str:
    if not isinstance(raw, dict):
        return "a cell is not an object"
    cell_id, kind, source, count, outputs = (
        raw.get("id"),
        raw.get("cell_type"),
        raw.get("source"),
        raw.get("execution_count"),
        raw.get("outputs", ""),
    )
    if not isinstance(cell_id, str) or not _is_id(cell_id):
        return "a cell has no valid id"
    if kind not in _CELL_TYPES:
        return f"cell {cell_id} has an unknown type"
    if not isinstance(source, str) or not isinstance(outputs, str) or len(outputs) > LIMITS.outputs + 40:
        return f"cell {cell_id} has no text source or an unbounded outputs summary"
    if count is not None and (not isinstance(count, int) or isinstance(count, bool)):
        return f"cell {cell_id} has a malformed execution count"
    return Cell(id=cell_id, cell_type=kind, source=source, execution_count=count, outputs=outputs)


def cells_of(raw: object) -> tuple[Cell, ...] | str:
    """The cells of a ``read_reply``, or what is wrong with them."""
    if not isinstance(raw, list) or len(raw) > LIMITS.cells:
        return f"the cells are not a list of at most {LIMITS.cells}"
    cells: list[Cell] = []
    for item in raw:
        cell = _cell(item)
        if isinstance(cell, str):
            return cell
        cells.append(cell)
    if len({c.id for c in cells}) != len(cells):
        return "two cells share an id"
    if sum(len(c.source) + len(c.outputs) for c in cells) > LIMITS.read_chars:
        return f"the notebook holds more than {LIMITS.read_chars} characters"
    return tuple(cells)


def edit_result(reply: dict[str, Any]) -> EditResult:
    """The page's ``edit_reply`` as an EditResult; a malformed one is reported as not applied."""
    outcome, cell_id, source, reason = (reply.get(k) for k in ("outcome", "cell_id", "source", "reason"))
    malformed = EditResult(
        "not_applied",
        None,
        None,
        "the page's answer to the edit is malformed; the edit may or may not be in the notebook: read it again",
    )
    if reply.get("type") != "edit_reply" or outcome not in _OUTCOMES or not isinstance(reason, str):
        return malformed
    if cell_id is not None and not _is_id(cell_id):
        return malformed
    if source is not None and (not isinstance(source, str) or len(source) > LIMITS.source):
        return malformed
    if outcome == "applied" and reason:
        return malformed
    return EditResult(outcome, cell_id, source, reason[:500])
