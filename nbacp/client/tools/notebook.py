"""``notebook_read`` and ``notebook_edit``: the agent reads the prompt's notebook and proposes cells.

Cells are addressed by id, never by index (an index moves when the person edits meanwhile).
``notebook_edit`` takes the argument names of claude's ``NotebookEdit`` (``notebook_path``,
``cell_id``, ``new_source``, ``cell_type``, ``edit_mode``), so models use it without coaching.
Every proposal is a review card (``nbacp.widgets.review_card``); the call returns only once the
person acted, with the true outcome, and nothing is reported as applied until the notebook
link read it back (``nbacp.kernel.notebook_edits.EditResult``).

Per session, the tools keep the source of each cell as the agent last read it: a replace or
delete carries it as ``expected_source``, so an edit made from a stale copy is refused (before
the card when the cell already differs, by the page when it changes while the card is open).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, cast

from nbacp.errors import NbacpError
from nbacp.form.card_answer import CardAnswer
from nbacp.kernel.notebook_edits import Cell, CellEdit, CellType, EditMode, EditResult, NotebookLink, NotebookView
from nbacp.render.cells import MAX_SOURCE, diff_text, source_problem
from nbacp.widgets.review_card import Proposal, ReviewCard, ReviewGroup

if TYPE_CHECKING:
    from nbacp.client.notebook_client import NotebookClient

MAX_READ = 60_000
"""Characters ``notebook_read`` returns; past it, the remaining cells are listed without source."""
MAX_CELL_SOURCE = 8_000
"""Characters of one cell's source in ``notebook_read`` (the rest is counted)."""
MAX_CELL_OUTPUTS = 1_000
"""Characters of one cell's output summary in ``notebook_read``."""

READ_TOOL: dict[str, Any] = {
    "name": "notebook_read",
    "description": "Read the Jupyter notebook the person's prompt came from, as open in their browser "
    "(unsaved edits included): each cell's id, type, source, execution count and a short text summary "
    "of its outputs; the cell that holds the prompt is marked. Use the ids with notebook_edit.",
    "inputSchema": {"type": "object", "properties": {}},
}
EDIT_TOOL: dict[str, Any] = {
    "name": "notebook_edit",
    "description": "Propose a change to the open notebook the prompt came from; the person reviews it "
    "on a card and accepts (maybe after editing it) or rejects it. Returns what actually happened. "
    "edit_mode 'insert' puts a new cell after cell_id (at the top without cell_id), 'replace' "
    "replaces cell_id's source, 'delete' deletes cell_id. Read the notebook with notebook_read "
    f"first: cells are addressed by id. At most {MAX_SOURCE:,} characters of source.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "notebook_path": {"type": "string", "description": "the notebook's path (as notebook_read gives it)"},
            "cell_id": {"type": "string", "description": "the cell to replace or delete, or to insert after"},
            "new_source": {"type": "string", "description": "the new cell's source (not needed for delete)"},
            "cell_type": {
                "type": "string",
                "enum": ["code", "markdown"],
                "description": "the cell's type (insert: default code; replace: default unchanged)",
            },
            "edit_mode": {"type": "string", "enum": ["replace", "insert", "delete"], "description": "default replace"},
        },
        "required": ["notebook_path"],
    },
}


class _NotApplied(ValueError):
    """A proposal refused before any card: the tool result says why; nothing was applied."""


class NotebookTools:
    """One session's notebook tools over one ``NotebookLink``."""

    def __init__(self, link: NotebookLink, client: NotebookClient) -> None:
        self.link = link
        self.client = client
        self.session_id: str | None = None
        self.read_sources: dict[str, str] = {}
        """Each cell's source as the agent last read it (or as an accepted edit left it)."""
        self.group = ReviewGroup()
        self.outcomes: list[str] = []
        """Every notebook_edit's result text, in order."""

    async def read(self) -> str:
        view = await self._view()
        for cell in view.cells:
            self.read_sources[cell.id] = cell.source
        return render_view(view)

    async def edit(self, args: dict[str, Any]) -> tuple[str, bool]:
        """(the outcome text, whether it was applied)."""
        mode, cell_id, source, cell_type = _edit_args(args)
        try:
            view: NotebookView | None = await self._view()
        except _NotApplied:
            # A link that is not live may still take a new cell another way (IPython's
            # set_next_input): the card says so, and the link's result says what became of it.
            if mode != "insert" or self.link.live:
                raise
            view = None
        if view is not None and not same_notebook(str(args["notebook_path"]), view.path):
            raise _NotApplied(
                f"Edits go only to the notebook the prompt came from, {view.path!r}, not "
                f"{args['notebook_path']!r}. Nothing was applied."
            )
        target = _target(view, mode, cell_id) if view is not None else None
        if view is not None and mode != "insert" and cell_id == view.prompt_cell_id:
            raise _NotApplied(
                f"Cell {cell_id} holds the person's running prompt: it cannot be "
                f"{'deleted' if mode == 'delete' else 'replaced'}. Insert a new cell instead. Nothing was applied."
            )
        if view is None:  # the fallback places a new cell below the prompt cell, whatever was asked
            question = "notebook_edit: insert a new cell (below the prompt cell, where the front end allows)"
        else:
            question = f"notebook_edit: {mode} {'after ' if mode == 'insert' else ''}cell {cell_id or '(top)'}"
        expected: str | None = None
        if mode != "insert":
            assert target is not None and cell_id is not None
            if cell_id not in self.read_sources:
                raise _NotApplied(f"Read cell {cell_id} with notebook_read before changing it. Nothing was applied.")
            expected = self.read_sources[cell_id]
            if target.source != expected:
                value = {"outcome": "stale", "cell_id": cell_id, "diff": diff_text(expected, source)}
                return self._done(
                    stale_text(cell_id, "the person changed it"),
                    applied=False,
                    question=question,
                    action="decline",
                    value=value,
                )
        kind: CellType = cell_type or (target.cell_type if target is not None and mode == "replace" else "code")
        placement = "" if view is not None else "where this notebook's front end puts it (below)"
        proposal = Proposal(mode, kind, cell_id, expected or "", source if mode != "delete" else "", placement)
        path = view.path if view is not None else str(args["notebook_path"])
        card = ReviewCard(
            proposal,
            agent=self.client.questions.agent_name,
            path=path,
            live=self.link.live,
            why_not_live=self.link.why_not_live,
            group=self.group,
        )
        answer = await self.client.questions.ask_card(self.session_id, card, "review", question)
        if answer.action != "accept":
            why = (
                "Rejected by the person"
                if answer.action == "reject"
                else "Not applied: the review card closed without an answer (the turn ended)"
            )
            proposed: dict[str, Any] = {
                "outcome": answer.action,
                "cell_id": None,
                "diff": diff_text(expected or "", source),
            }
            return self._done(
                f"{why}; nothing was changed.",
                applied=False,
                card=card,
                question=question,
                action="decline" if answer.action == "reject" else "cancel",
                value=proposed,
            )
        edit = CellEdit(mode, cell_id, answer.source or "", kind, expected, run=answer.run)
        try:
            result = await self.link.apply(edit)
        except (NbacpError, OSError, LookupError, ValueError) as exc:
            result = EditResult("not_applied", None, None, str(exc) or type(exc).__name__)
        except asyncio.CancelledError:  # the request was withdrawn while the page applied it
            card.finish("Withdrawn while applying: whether the notebook changed is not known; look at it.")
            raise
        text, line = self._outcome(edit, result, edited=answer.edited)
        diff = diff_text(expected or "", result.source if result.source is not None else edit.source)
        if result.outcome != "applied" and mode != "delete":  # the person's version stays on the card to copy
            card.finish(line, copy=edit.source)
        return self._done(
            text,
            applied=result.outcome == "applied",
            card=card,
            question=question,
            line=line,
            action="accept",
            value={"outcome": result.outcome, "cell_id": result.cell_id, "edited": answer.edited, "diff": diff},
        )

    def _outcome(self, edit: CellEdit, result: EditResult, *, edited: bool) -> tuple[str, str]:
        """(the text the agent gets, the card's and the record's one line)."""
        kept = f"\nThe person's version, not applied:\n{edit.source}" if edited else ""
        if result.outcome == "stale":
            text = stale_text(edit.cell_id or "", result.reason or "it changed while the card was open")
            return text + kept, text
        if result.outcome != "applied":
            why = (result.reason or "the notebook did not apply it").rstrip(".")
            text = f"Not applied: {why}."
            return text + kept, text
        how = f" ({result.reason})" if result.reason else ""
        if edit.mode == "delete":
            self.read_sources.pop(edit.cell_id or "", None)
            text = f"Accepted: cell {edit.cell_id} was deleted{how}."
            return text, text
        new_id = result.cell_id or "?"
        if edit.mode == "replace" and edit.cell_id is not None and new_id != edit.cell_id:
            self.read_sources.pop(edit.cell_id, None)
        if result.source is not None and result.cell_id is not None:
            self.read_sources[result.cell_id] = result.source
        where = "" if edit.mode == "replace" else (f" after cell {edit.cell_id}" if edit.cell_id else " at the top")
        text = f"Accepted as cell {new_id}{where}{how}."
        line = f"Accepted{' (edited by the person)' if edited else ''} as cell {new_id}{where}{how}."
        if result.source is None:
            text += " The notebook did not report the cell's source back."
        elif edited or result.source != edit.source:
            who = "The person edited it" if edited else "The notebook holds a different source"
            text += f" {who}; the cell's source is now:\n{result.source}"
        if edit.run:
            text += "\nThe person chose to run it."
            line = line[:-1] + ", and run."
        return text, line

    def _done(
        self,
        text: str,
        *,
        applied: bool,
        card: ReviewCard | None = None,
        question: str = "",
        action: str = "",
        value: Any = None,
        line: str | None = None,
    ) -> tuple[str, bool]:
        """The outcome, once: on the card (its summary), in the record, to the agent."""
        self.outcomes.append(text)
        line = line if line is not None else text.split("\n", 1)[0]
        if card is not None:
            card.finish(line)
        if question:
            surface = self.client.surfaces.for_session(self.session_id)
            if surface is not None:
                surface.note_answers([CardAnswer("review", question, action, value, line=line)])
        return text, applied

    async def _view(self) -> NotebookView:
        try:
            return await self.link.read()
        except NbacpError as exc:
            reason = str(exc).rstrip()
            end = "" if reason.endswith((".", "!", "?")) else "."
            raise _NotApplied(f"The notebook cannot be reached: {reason}{end} Nothing was applied.") from None


def _edit_args(args: dict[str, Any]) -> tuple[EditMode, str | None, str, CellType | None]:
    for name in ("notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"):
        if args.get(name) is not None and not isinstance(args[name], str):
            raise _NotApplied(f"The argument {name!r} must be a string.")
    if not isinstance(args.get("notebook_path"), str):
        raise _NotApplied("The argument 'notebook_path' is required (the notebook notebook_read names).")
    unknown = sorted(set(args) - set(EDIT_TOOL["inputSchema"]["properties"]))
    if {"cell_number", "index", "cell_index"} & set(unknown):
        raise _NotApplied(
            "Cells are addressed by cell_id (from notebook_read), never by index: an index "
            "moves when the person edits meanwhile. Nothing was applied."
        )
    if unknown:
        raise _NotApplied(f"Unknown argument(s) {', '.join(map(repr, unknown))}; nothing was applied.")
    mode = args.get("edit_mode") or "replace"
    if mode not in ("insert", "replace", "delete"):
        raise _NotApplied(f"edit_mode must be insert, replace or delete, not {mode!r}.")
    cell_type = args.get("cell_type")
    if cell_type is not None and cell_type not in ("code", "markdown"):
        raise _NotApplied(f"cell_type must be code or markdown, not {cell_type!r}.")
    cell_id = args.get("cell_id") or None
    if mode != "insert" and cell_id is None:
        raise _NotApplied(f"edit_mode {mode!r} needs the cell_id of the cell to {mode}.")
    source = args.get("new_source")
    if mode != "delete":
        if source is None:
            raise _NotApplied(f"edit_mode {mode!r} needs new_source.")
        problem = source_problem(source)
        if problem is not None:
            raise _NotApplied(problem)
    return cast(EditMode, mode), cell_id, source or "", cast("CellType | None", cell_type)


def _target(view: NotebookView, mode: str, cell_id: str | None) -> Cell | None:
    """The cell ``cell_id`` names (None for an insert at the top); refused when unknown or not unique."""
    if cell_id is None:
        return None
    found = [cell for cell in view.cells if cell.id == cell_id]
    if not found:
        raise _NotApplied(
            f"No cell has the id {cell_id!r} in {view.path} (notebook_read lists the ids). Nothing was applied."
        )
    if len(found) > 1:
        raise _NotApplied(
            f"{len(found)} cells have the id {cell_id!r} in {view.path}: which one is meant is not sure. "
            "Nothing was applied."
        )
    return found[0]


def same_notebook(given: str, path: str) -> bool:
    """Whether the agent's ``notebook_path`` names ``path`` (server-relative): the same path, an
    absolute path ending in it, or a relative path it ends in (the agent's cwd may be deeper)."""
    given, path = given.replace("\\", "/").strip(), path.replace("\\", "/").strip("/")
    if not given.strip("/"):
        return False
    relative = not given.startswith("/") and not given.startswith("../")
    return (
        given.strip("/") == path
        or given.endswith("/" + path)
        or (relative and ("/" + path).endswith("/" + given.removeprefix("./")))
    )


def stale_text(cell_id: str, why: str) -> str:
    return (
        f"Stale: cell {cell_id} changed since you read it ({why}); nothing was applied. "
        "Read the notebook again with notebook_read and propose again."
    )


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
