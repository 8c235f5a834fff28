"""The client side of nbacp: the ACP client that answers through widgets, sessions and turns, ``connect()``.

One package for everything that speaks the protocol as a client, above ``nbacp.form``,
``nbacp.render``, ``nbacp.kernel`` and ``nbacp.widgets`` and below nothing but the magics.

Rule: two layers. ``nbacp.client.wire`` (what stands between the agent's bytes and the client
object) imports nothing of the rest of this package nor the widgets. The session layer on top
(``notebook_client``, ``connection`` with its ``lifecycle`` mixin, ``session`` with its
``session_controls`` mixin, ``turn``, ``session_header``, ``auth``, ``settings``,
``attachments``, ``namespace``, ``tools``) imports one way: connection, then sessions, then
turns, which know the connection only as ``connection_view.ConnectionView``.

Exports are lazy, like the package root's: importing ``nbacp.client.wire`` (the agent-side
helpers of ``nbacp.questions`` send raw requests through it) pulls in no widgets.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nbacp.client.connection import Connection, connect
    from nbacp.client.handlers.questions import AnswerPolicy
    from nbacp.client.notebook_client import NotebookClient
    from nbacp.client.session import Session
    from nbacp.client.turn import PromptResult, Turn

_EXPORTS = {
    "AnswerPolicy": "nbacp.client.handlers.questions",
    "Connection": "nbacp.client.connection",
    "NotebookClient": "nbacp.client.notebook_client",
    "PromptResult": "nbacp.client.turn",
    "Session": "nbacp.client.session",
    "Turn": "nbacp.client.turn",
    "connect": "nbacp.client.connection",
}
__all__ = ["AnswerPolicy", "Connection", "NotebookClient", "PromptResult", "Session", "Turn", "connect"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nbacp.client' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
