"""One file of an agent's edit, as the record keeps it: lines added and removed, and a bounded diff.

Agents send a file's change in different shapes (docs/record.md, 'Where agents put what'): a
diff's ``oldText`` / ``newText`` are a whole file (gemini), a hunk region (codex) or the
replaced snippet (claude, whose ``_meta.claudeCode.toolResponse.structuredPatch`` has the real
hunks). ``file_diff`` makes one bounded ``FileDiff`` of either shape, preferring the real hunks.

Pure: no acp, no widgets; ``nbacp.render.tool_calls`` folds these into a tool call's record.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nbacp.render.safe_text import safe_text

DIFF_CHARS = 4096
"""One file's diff text kept for the folded view; longer diffs are cut with a note."""


@dataclass
class FileDiff:
    """One file of an edit: lines added and removed, and the diff text (bounded)."""

    path: str
    added: int = 0
    removed: int = 0
    new_file: bool = False
    text: str = ""

    @property
    def size(self) -> str:
        return f"+{self.added} -{self.removed}"


def structured_patches(meta: Mapping[str, Any]) -> dict[str, list[str]]:
    """claude's structuredPatch hunks by file (the real diff; its oldText/newText are snippets)."""
    claude = meta.get("claudeCode")
    response = claude.get("toolResponse") if isinstance(claude, Mapping) else None
    if not isinstance(response, Mapping):
        return {}
    hunks, path = response.get("structuredPatch"), response.get("filePath")
    if not isinstance(hunks, list) or not isinstance(path, str):
        return {}
    lines: list[str] = []
    for hunk in hunks:
        if isinstance(hunk, Mapping) and isinstance(hunk.get("lines"), list):
            lines.append(
                f"@@ -{hunk.get('oldStart')},{hunk.get('oldLines')} +{hunk.get('newStart')},{hunk.get('newLines')} @@"
            )
            lines.extend(str(line) for line in hunk["lines"])
    return {path: lines} if lines else {}


def file_diff(path: str, old: Any, new: Any, patch: list[str] | None) -> FileDiff:
    """The diff of ``path``: the hunks ``patch`` when the agent sent them, else ``old`` against ``new``."""
    new_file = old is None or (old == "" and isinstance(new, str) and new != "")
    if patch is not None:
        body = patch
    else:
        old_lines = old.splitlines() if isinstance(old, str) else []
        new_lines = new.splitlines() if isinstance(new, str) else []
        body = list(difflib.unified_diff(old_lines, new_lines, lineterm="", n=2))[2:]
    added = sum(1 for line in body if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in body if line.startswith("-") and not line.startswith("---"))
    text = safe_text("\n".join(body))
    if len(text) > DIFF_CHARS:
        text = text[:DIFF_CHARS] + f"\n… ({len(text) - DIFF_CHARS:,} more characters)"
    return FileDiff(path=path, added=added, removed=removed, new_file=new_file, text=text)
