"""``session/update``: each update is logged once per session, kept current in the session's
settings, and shown on the surface of its running turn, or, between turns, taken by the
session's header when it is a session-level fact (title, mode, commands, config)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp.schema import SessionInfoUpdate

from nbacp.client.surface import Surfaces
from nbacp.client.wire import extensions, raw_tap, sdk_compat
from nbacp.updates import UpdateLog


class Updates:
    """The update logs of one connection's sessions, and where each update goes."""

    def __init__(self, surfaces: Surfaces) -> None:
        self.surfaces = surfaces
        self.logs: dict[str, UpdateLog] = {}  # per session, each update held once (nbacp.updates)
        self.on_update: Callable[[str, Any], None] | None = None  # the connection keeps session settings current
        # per session: its header's taker of session-level facts (title, mode, commands, config)
        self.session_facts: dict[str, Callable[[Any], bool]] = {}

    def session_log(self, session_id: str) -> UpdateLog:
        """The update log of one session (made on first use)."""
        log = self.logs.get(session_id)
        if log is None:
            log = self.logs[session_id] = UpdateLog()
        return log

    def session_update(self, session_id: str, update: Any, meta: Any = None) -> None:
        update = sdk_compat.with_tool_name(update, raw_tap.current_tool_name())  # SDK 0.12 drops it
        self.session_log(session_id).append(update)
        if self.on_update is not None:
            self.on_update(session_id, update)
        surface = self.surfaces.for_session(session_id)
        facts = None if self.surfaces.running(session_id) else self.session_facts.get(session_id)
        if facts is not None and facts(update):
            pass  # between turns a session's facts go to its header, not the inbox
        elif surface is not None:
            surface.add(update)
        if isinstance(update, SessionInfoUpdate) and surface is not None:
            # codex keeps retry / error status only in _meta
            status = extensions.meta_status(update.field_meta) or extensions.meta_status(meta)
            if status:
                surface.note_line("agent-status", f"Agent status: {status}")
