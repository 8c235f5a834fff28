"""The agent's stderr under a failed turn: collapsed, plain text, the last lines only."""

from __future__ import annotations

from collections.abc import Sequence

from nbacp.widgets.transcript.nodes import Fold, text_line


def stderr_panel(lines: Sequence[str], total_bytes: int, exit_code: int | None) -> Fold:
    """A collapsed part of the turn's view, titled with how much the agent wrote and how it exited;
    the lines are one text node (plain text, kept as lines by its class's CSS)."""
    exited = "" if exit_code is None else f", exited with code {exit_code}"
    title = f"Agent stderr (last {len(lines)} lines of {total_bytes:,} bytes{exited})"
    return Fold((text_line("\n".join(lines), "nbacp-stderr"),), title, classes=("nbacp-stderr-panel",))
