"""What the agent may send the notebook tools: their schemas and the checks of its arguments.

``notebook_edit`` takes the argument names of claude's ``NotebookEdit`` (``notebook_path``,
``cell_id``, ``new_source``, ``cell_type``, ``edit_mode``), so models use it without coaching.
Cells are addressed by id, never by index (an index moves when the person edits meanwhile).
Every check here runs before the notebook is read or a card is built; a refusal is a
``ValueError`` whose text the agent gets (the tool server answers it as a tool error).
"""

from __future__ import annotations

from typing import Any, cast

from nbacp.kernel.notebook_edits import Cell, CellType, EditMode, NotebookView
from nbacp.render.cells import MAX_SOURCE, source_problem

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


def edit_args(args: dict[str, Any]) -> tuple[EditMode, str | None, str, CellType | None]:
    """(mode, cell_id, source, cell_type) of a ``notebook_edit`` call, or ``ValueError``."""
    for name in ("notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"):
        if args.get(name) is not None and not isinstance(args[name], str):
            raise ValueError(f"The argument {name!r} must be a string.")
    if not isinstance(args.get("notebook_path"), str):
        raise ValueError("The argument 'notebook_path' is required (the notebook notebook_read names).")
    unknown = sorted(set(args) - set(EDIT_TOOL["inputSchema"]["properties"]))
    if {"cell_number", "index", "cell_index"} & set(unknown):
        raise ValueError(
            "Cells are addressed by cell_id (from notebook_read), never by index: an index "
            "moves when the person edits meanwhile. Nothing was applied."
        )
    if unknown:
        raise ValueError(f"Unknown argument(s) {', '.join(map(repr, unknown))}; nothing was applied.")
    mode = args.get("edit_mode") or "replace"
    if mode not in ("insert", "replace", "delete"):
        raise ValueError(f"edit_mode must be insert, replace or delete, not {mode!r}.")
    cell_type = args.get("cell_type")
    if cell_type is not None and cell_type not in ("code", "markdown"):
        raise ValueError(f"cell_type must be code or markdown, not {cell_type!r}.")
    cell_id = args.get("cell_id") or None
    if mode != "insert" and cell_id is None:
        raise ValueError(f"edit_mode {mode!r} needs the cell_id of the cell to {mode}.")
    source = args.get("new_source")
    if mode != "delete":
        if source is None:
            raise ValueError(f"edit_mode {mode!r} needs new_source.")
        problem = source_problem(source)
        if problem is not None:
            raise ValueError(problem)
    return cast(EditMode, mode), cell_id, source or "", cast("CellType | None", cell_type)


def target_cell(view: NotebookView, cell_id: str | None) -> Cell | None:
    """The cell ``cell_id`` names (None for an insert at the top); refused when unknown or not unique."""
    if cell_id is None:
        return None
    found = [cell for cell in view.cells if cell.id == cell_id]
    if not found:
        raise ValueError(
            f"No cell has the id {cell_id!r} in {view.path} (notebook_read lists the ids). Nothing was applied."
        )
    if len(found) > 1:
        raise ValueError(
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
