"""What the notebook tools say: the read's JSON, and each outcome twice, once per reader.

The agent addresses cells by id, so its texts name ids ("Accepted as cell new-1 after cell
load."). The person knows a cell by its place, its execution count and its first line, so the
card's summary and the record's line name cells that way ("Accepted as cell 3 `df.plot()` after
cell 2 [1] `df = load()`.", ``nbacp.render.cell_names``); the card's details keep the id, to
match the agent's words.
"""

from __future__ import annotations

import json
from typing import Any

from nbacp.kernel.notebook_edits import CellEdit, EditResult, NotebookView
from nbacp.render.cell_names import CellName

MAX_READ = 60_000
"""Characters ``notebook_read`` returns; past it, the remaining cells are listed without source."""
MAX_CELL_SOURCE = 8_000
"""Characters of one cell's source in ``notebook_read`` (the rest is counted)."""
MAX_CELL_OUTPUTS = 1_000
"""Characters of one cell's output summary in ``notebook_read``."""


def name_in(view: NotebookView | None, cell_id: str | None) -> CellName | None:
    """``cell_id``'s name for the person in ``view`` (None when not there, or no view)."""
    if view is None or cell_id is None:
        return None
    for place, cell in enumerate(view.cells, 1):
        if cell.id == cell_id:
            return CellName.of(place, cell.execution_count, cell.source)
    return None


def shown(name: CellName | None, cell_id: str | None) -> str:
    """The person's name of a cell; its id only when the notebook could not be read."""
    return str(name) if name is not None else f"cell {cell_id}"


def question(mode: str, cell_id: str | None, name: CellName | None) -> str:
    """The record's "Cell edit:" line: what was proposed, the cell named as the person sees it."""
    if mode == "insert":
        return f"notebook_edit: insert {'after ' + shown(name, cell_id) if cell_id else 'at the top'}"
    return f"notebook_edit: {mode} {shown(name, cell_id)}"


def stale_text(cell_id: str, why: str) -> str:
    return (
        f"Stale: cell {cell_id} changed since you read it ({why}); nothing was applied. "
        "Read the notebook again with notebook_read and propose again."
    )


def stale_line(name: str, why: str) -> str:
    """``stale_text`` for the person: the card's summary and the record."""
    return f"Stale: {name} changed since the agent read it ({why}); nothing was applied."


def waiting_text(waiting: int) -> str:
    """The answer to a proposal over the session's bound of open proposals (no card was built)."""
    return (
        f"{waiting} proposals are already waiting for the person; this one was not shown to them and "
        "nothing was applied. Wait for the person's answers to those (each notebook_edit call returns "
        "once they answered), then propose it again."
    )


def outcome(edit: CellEdit, result: EditResult, *, edited: bool, target: str, made: str) -> tuple[str, str]:
    """(the text the agent gets, by ids; the card's and the record's line, by the person's names).

    ``target``: the person's name of the cell replaced, deleted or inserted after; ``made``: of
    the cell the edit left (inserted or replaced).
    """
    kept = f"\nThe person's version, not applied:\n{edit.source}" if edited else ""
    if result.outcome == "stale":
        why = result.reason or "it changed while the card was open"
        return stale_text(edit.cell_id or "", why) + kept, stale_line(target, why)
    if result.outcome != "applied":
        why = (result.reason or "the notebook did not apply it").rstrip(".")
        text = f"Not applied: {why}."
        return text + kept, text
    how = f" ({result.reason})" if result.reason else ""
    if edit.mode == "delete":
        return f"Accepted: cell {edit.cell_id} was deleted{how}.", f"Accepted: {target} was deleted{how}."
    new_id = result.cell_id or "?"
    where = "" if edit.mode == "replace" else (f" after cell {edit.cell_id}" if edit.cell_id else " at the top")
    place = "" if edit.mode == "replace" else (f" after {target}" if edit.cell_id else " at the top")
    text = f"Accepted as cell {new_id}{where}{how}."
    line = f"Accepted{' (edited by the person)' if edited else ''} as {made}{place}{how}."
    if result.source is None:
        text += " The notebook did not report the cell's source back."
    elif edited or result.source != edit.source:
        who = "The person edited it" if edited else "The notebook holds a different source"
        text += f" {who}; the cell's source is now:\n{result.source}"
    if edit.run:
        text += "\nThe person chose to run it."
        line = line[:-1] + ", and run."
    return text, line


def render_view(view: NotebookView, *, limit: int = MAX_READ) -> str:
    """``notebook_read``'s result: JSON, bounded (sources and outputs cut and counted)."""
    cells: list[dict[str, Any]] = []
    used = 0
    seen: dict[str, int] = {}
    for cell in view.cells:
        seen[cell.id] = seen.get(cell.id, 0) + 1
    for cell in view.cells:
        row: dict[str, Any] = {"id": cell.id, "cell_type": cell.cell_type, "execution_count": cell.execution_count}
        if cell.id == view.prompt_cell_id:
            row["prompt_cell"] = True
        if seen[cell.id] > 1:
            row["duplicate_id"] = True
        if used >= limit:
            row["source_omitted"] = f"{len(cell.source):,} characters (over the read's bound)"
        else:
            row["source"] = _cut(cell.source, MAX_CELL_SOURCE)
            if cell.outputs:
                row["outputs"] = _cut(cell.outputs, MAX_CELL_OUTPUTS)
            used += len(row["source"]) + len(row.get("outputs", ""))
        cells.append(row)
    return json.dumps(
        {"notebook_path": view.path, "prompt_cell_id": view.prompt_cell_id, "cells": cells},
        ensure_ascii=False,
        indent=1,
    )


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n... ({len(text) - limit:,} more characters)"
