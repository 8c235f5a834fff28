"""``session/update``: each update is logged once per session, kept current in the session's
settings, and shown on the surface of its running turn, or, between turns, taken by the
session's header when it is a session-level fact (title, mode, commands, config). A subagent's
updates (its own session id, announced by ``subagent_update`` on its parent) go to its parent's
surface as the child's (``nbacp.client.subagents``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp.schema import SessionInfoUpdate

from nbacp.client.subagents import Subagents, announcement
from nbacp.client.surface import Surfaces
from nbacp.client.wire import extensions, raw_tap, sdk_compat
from nbacp.updates import UpdateLog
from nbacp.widgets.transcript.events import parent_tool_use


class Updates:
    """The update logs of one connection's sessions, and where each update goes."""

    def __init__(self, surfaces: Surfaces, subagents: Subagents | None = None) -> None:
        self.surfaces = surfaces
        self.subagents = subagents or Subagents()
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
        parent = self.subagents.parent_of(session_id)
        if parent is not None:  # a child's own traffic: shown in its parent's turn, never as the parent's
            announced = announcement(update)
            if announced is not None:
                self.subagents.announce(session_id, announced)
            child_surface = self.surfaces.for_session(parent)
            if child_surface is not None:
                child_surface.add_child(session_id, update)
            return
        announced = announcement(update)
        if announced is not None:
            self.subagents.announce(session_id, announced)
        # a child's update marked on the parent (claude without the capability) is never the parent's setting
        marked = parent_tool_use(update) is not None
        if self.on_update is not None and not marked:
            self.on_update(session_id, update)
        surface = self.surfaces.for_session(session_id)
        facts = None if self.surfaces.running(session_id) or marked else self.session_facts.get(session_id)
        if facts is not None and facts(update):
            pass  # between turns a session's facts go to its header, not the inbox
        elif surface is not None:
            surface.add(update)
        if isinstance(update, SessionInfoUpdate) and surface is not None:
            # codex keeps retry / error status only in _meta
            status = extensions.meta_status(update.field_meta) or extensions.meta_status(meta)
            if status:
                surface.note_line("agent-status", f"Agent status: {status}")
