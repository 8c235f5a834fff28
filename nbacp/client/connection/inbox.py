"""The connection's inbox: cards and notes that arrive outside any turn, in the cell that connected.

Shown live (a transcript with its display handle) while the connection is open; once it is
closed, that output becomes static text of what it received, or blank, so a saved notebook keeps
no widget.
"""

from __future__ import annotations

from typing import Any

from nbacp.client.notebook_client import NotebookClient
from nbacp.client.sessions.header import is_session_fact
from nbacp.display import Static, show
from nbacp.widgets.shared import close_tree
from nbacp.widgets.transcript import Transcript


def show_inbox(client: NotebookClient) -> Any:
    """Cards that arrive outside any turn are shown in the cell that connected (its display handle)."""
    inbox = Transcript(prompt="", session_facts=is_session_fact)  # facts belong to the session headers
    inbox.add_class("nbacp-inbox")
    client.surfaces.inbox = inbox
    return show(inbox, display_id=True)


def settle_inbox(client: NotebookClient, view: Any, agent: str) -> None:
    """The connection is closed: the inbox's output becomes static text of what it received, or blank."""
    inbox = client.surfaces.inbox
    if not isinstance(inbox, Transcript):
        return
    if view is not None:
        inbox.flush()
        notes = inbox.notes(f"Between turns, from {agent} (the connection is closed):")
        view.update(Static(*notes) if notes is not None else Static())
    close_tree([inbox])  # shown or not: nothing displays it any more
