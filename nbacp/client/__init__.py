"""The client side of nbacp: the ACP client that answers through widgets, sessions and turns, ``connect()``.

One package for everything that speaks the protocol as a client, above ``nbacp.form``,
``nbacp.render``, ``nbacp.kernel`` and ``nbacp.widgets`` and below nothing but the magics.

Laid out by capability, a folder each (docs/layout.md): ``connection/`` (``connect()``, the
live connection, its sessions' life), ``sessions/``, ``turns/``, ``questions/`` (what the agent
asks the person), ``workspace/`` (files and terminals), ``tools/`` (the kernel as MCP tools) and
``wire/`` (what stands between the agent's bytes and the client object). At the top of the
folder, what they share: the ACP client object and its table of incoming methods
(``notebook_client``), the protocol they show things through (``surface``), what sessions and
turns use of a connection (``connection_view``), authentication (``auth``) and the subagents an
agent announced (``subagents``).

Rule: run-time imports go one way, from the top down: ``connection``, ``notebook_client``,
``sessions`` / ``tools``, ``turns``, ``questions``, ``auth`` / ``workspace``, ``surface`` /
``subagents`` / ``connection_view``, ``wire`` (``tests/test_layout.py``, ``CLIENT_RANKS``).
``nbacp.client.wire`` imports nothing of the rest of this package nor the widgets.

Exports are lazy, like the package root's: importing ``nbacp.client.wire`` (the agent-side
helpers of ``nbacp.questions`` send raw requests through it) pulls in no widgets.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nbacp.client.connection.connect import connect
    from nbacp.client.connection.live import Connection
    from nbacp.client.notebook_client import NotebookClient
    from nbacp.client.questions.handler import AnswerPolicy
    from nbacp.client.sessions.session import Session
    from nbacp.client.turns.turn import PromptResult, Turn

_EXPORTS = {
    "AnswerPolicy": "nbacp.client.questions.handler",
    "Connection": "nbacp.client.connection.live",
    "NotebookClient": "nbacp.client.notebook_client",
    "PromptResult": "nbacp.client.turns.turn",
    "Session": "nbacp.client.sessions.session",
    "Turn": "nbacp.client.turns.turn",
    "connect": "nbacp.client.connection.connect",
}
__all__ = ["AnswerPolicy", "Connection", "NotebookClient", "PromptResult", "Session", "Turn", "connect"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nbacp.client' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
