"""Permission requests whose tool call would write a notebook the person has open.

claude-agent-acp runs Write / Edit / NotebookEdit inside itself (never through ``fs/*``), so the
notebook guard (``nbacp.client.workspace.open_notebooks``) cannot refuse them; what nbacp can do is say so
on the permission card before the person allows it (docs/consent-cards.md, 'Permission card').
A call is a write when its kind is not one of the reading kinds; its targets are its
``locations``, its diffs' paths and the path arguments agents use (claude's ``file_path`` /
``notebook_path``, gemini's ``path`` / ``absolute_path``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

READING_KINDS = frozenset({"read", "search", "fetch", "think"})
PATH_ARGUMENTS = ("notebook_path", "file_path", "path", "absolute_path", "filePath")
MAX_PATHS = 64
NOTEBOOK_TOOLS = "notebook_read and notebook_edit"


def targets(tool_call: Mapping[str, Any]) -> list[str]:
    """The ``.ipynb`` paths a tool call names (at most ``MAX_PATHS``), as the agent wrote them."""
    found: list[Any] = []
    locations = tool_call.get("locations")
    for loc in locations if isinstance(locations, list) else ():
        if isinstance(loc, Mapping):
            found.append(loc.get("path"))
    content = tool_call.get("content")
    for item in content if isinstance(content, list) else ():
        if isinstance(item, Mapping) and item.get("type") == "diff":
            found.append(item.get("path"))
    raw_input = tool_call.get("rawInput")
    if isinstance(raw_input, Mapping):
        found.extend(raw_input.get(key) for key in PATH_ARGUMENTS)
    paths = [p for p in found[:MAX_PATHS] if isinstance(p, str) and p.lower().endswith(".ipynb")]
    return list(dict.fromkeys(paths))


def open_notebook_writes(tool_call: Mapping[str, Any], protected: Iterable[Path], cwd: str | None = None) -> list[str]:
    """The paths among ``targets`` that are open notebooks, when the call is a write; else []."""
    kind = tool_call.get("kind")
    if isinstance(kind, str) and kind in READING_KINDS:
        return []
    shielded = {Path(os.path.realpath(p)) for p in protected}
    if not shielded:
        return []
    base = cwd or os.getcwd()
    return [p for p in targets(tool_call) if Path(os.path.realpath(os.path.join(base, p))) in shielded]


def warning(paths: list[str], *, notebook_tools: bool) -> str:
    """The card's line for a write to an open notebook."""
    if not paths:
        return ""
    names = ", ".join(os.path.basename(p) for p in paths[:4]) + (f" (+{len(paths) - 4} more)" if len(paths) > 4 else "")
    instead = (
        f"The agent has the notebook tools ({NOTEBOOK_TOOLS}) for changing cells; ask it to use them."
        if notebook_tools
        else "Ask the agent to show the cells in its answer instead."
    )
    return (
        f"Warning: this writes {names}, which is open in Jupyter. The file would change behind the open "
        f"notebook, and the next save overwrites one side's work. {instead}"
    )
