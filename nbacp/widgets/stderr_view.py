"""The agent's stderr under a failed turn: collapsed, plain text, the last lines only."""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets

from nbacp.widgets.text import text_block


def stderr_panel(lines: Sequence[str], total_bytes: int, exit_code: int | None) -> widgets.Accordion:
    """An Accordion, closed, titled with how much the agent wrote and how it exited."""
    exited = "" if exit_code is None else f", exited with code {exit_code}"
    title = f"Agent stderr (last {len(lines)} lines of {total_bytes:,} bytes{exited})"
    area = text_block("\n".join(lines), max_rows=20, layout=widgets.Layout(width="100%"))
    area.add_class("nbacp-stderr")
    panel = widgets.Accordion(children=[area], titles=(title,))
    panel.selected_index = None
    panel.add_class("nbacp-stderr-panel")
    return panel
