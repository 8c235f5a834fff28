"""The client side of nbacp: the ACP client that answers through widgets, sessions and turns, ``connect()``.

One package for everything that speaks the protocol as a client (connection, sessions, and the
features that grow on them), above ``nbacp.form`` and ``nbacp.widgets`` and below nothing.
"""

from __future__ import annotations

from nbacp.client.connection import Connection, connect
from nbacp.client.notebook_client import AnswerPolicy, NotebookClient
from nbacp.client.session import Session
from nbacp.client.turn import PromptResult, Turn

__all__ = ["AnswerPolicy", "Connection", "NotebookClient", "PromptResult", "Session", "Turn", "connect"]
