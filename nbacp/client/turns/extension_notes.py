"""Extension notifications (``_auth/status_update``, ...): one line where the person looks.

A notification that names a session goes to that session's turn (or the inbox); one that names
none goes to the one running turn, else the inbox. Each line is also kept for ``Connection``.
"""

from __future__ import annotations

from typing import Any

from nbacp.client.surface import Surfaces
from nbacp.client.wire import extensions


class ExtensionNotes:
    def __init__(self, surfaces: Surfaces) -> None:
        self.surfaces = surfaces
        self.lines: list[str] = []

    def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        named = isinstance(session_id, str)
        surface = self.surfaces.for_session(session_id) if named else self.surfaces.for_unnamed()
        line = extensions.notification_line(method, params)
        self.lines.append(line)
        if surface is not None:
            surface.note_line(f"ext:{method}", line)
