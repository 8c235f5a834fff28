"""What a person sets on a session between turns: mode, config options, model; and closing it.

``Session`` inherits these (a mixin that knows the connection only as ``ConnectionView``);
they live here so that ``session.py`` stays about sessions and turns. Every setter checks the
value against what the agent offered before calling it, so a typo is a clear error naming the
choices rather than the agent's -32602.
"""

from __future__ import annotations

from typing import Any

from ipywidgets import Widget

from nbacp.client.connection_view import ConnectionView
from nbacp.client.sessions.settings import SessionSettings, select_values
from nbacp.client.wire import replies, sdk_connection
from nbacp.client.wire.rpc_errors import agent_errors
from nbacp.display import Static, show
from nbacp.errors import NotSupportedByAgentError
from nbacp.render.turn_record_html import header_html, header_text
from nbacp.widgets.shared import close_tree
from nbacp.widgets.toolbar import SessionToolbar

ENDED_VIEWS = 16
"""Ended turns' views a session keeps open for pages that re-read them (docs/reload.md): a page
needs one only while the notebook it shows holds that turn as a widget view, i.e. it was saved
during the turn and not since (the page that started the turn saves the static record; JupyterLab
autosaves every 120 s). The kernel is never told what a file holds, so it keeps the last 16: more
than a person's turns between two saves, and each is one model (its record is built when a view
asks). An
older view is closed, and a page still showing it hides that output (the record stays in the
page that started the turn)."""


class SessionControls:
    """Mixin for Session: ``modes``, ``set_mode``, ``config_options``, ``set_config``, ``models``, ``set_model``."""

    connection: ConnectionView
    id: str
    settings: SessionSettings
    _toolbar: SessionToolbar | None = None
    _toolbar_view: Any = None  # its output's display handle, while the connection is open
    _ended: list[Widget]  # ended turns' views (keep_ended), set per instance by Session
    _settled = False

    @property
    def modes(self) -> Any:
        """The agent's ``SessionModeState`` (``current_mode_id``, ``available_modes``), or None."""
        return self.settings.modes

    @property
    def mode(self) -> str | None:
        return self.settings.modes.current_mode_id if self.settings.modes is not None else None

    @property
    def config_options(self) -> list[Any]:
        """The agent's config options (select and boolean), with their current values."""
        return list(self.settings.config_options)

    @property
    def models(self) -> dict[str, Any] | None:
        """``{"currentModelId", "availableModels"}`` when the agent gives a models list, else None."""
        return self.settings.models

    async def set_mode(self, mode_id: str) -> None:
        modes = self.settings.modes
        if modes is None:
            raise NotSupportedByAgentError("The agent offers no session modes for this session.")
        ids = [m.id for m in modes.available_modes]
        if ids and mode_id not in ids:
            names = [m.name for m in modes.available_modes]
            if names.count(mode_id) == 1:
                mode_id = ids[names.index(mode_id)]
            else:
                raise ValueError(f"{mode_id!r} is not one of the agent's modes: {', '.join(map(repr, ids))}.")
        with agent_errors(f"setting mode {mode_id!r}"):
            await self.connection.agent.set_session_mode(session_id=self.id, mode_id=mode_id)
        self.settings.set_current_mode(mode_id)

    async def set_config(self, option_id: str, value: str | bool) -> None:
        option = self.settings.option(option_id)
        kind = getattr(option, "type", "select")
        if kind == "boolean":
            if not isinstance(value, bool):
                raise TypeError(f"Config option {option_id!r} is a boolean; give True or False, not {value!r}.")
        else:
            if isinstance(value, bool) or not isinstance(value, str):
                raise TypeError(f"Config option {option_id!r} takes one of its values as a string, not {value!r}.")
            pairs = select_values(option)
            values = [v for v, _ in pairs]
            if value not in values:
                labels = [label for _, label in pairs]
                if labels.count(value) == 1:
                    value = values[labels.index(value)]
                else:
                    raise ValueError(f"{value!r} is not a value of {option_id!r}: {', '.join(map(repr, values))}.")
        with agent_errors(f"setting {option_id!r} to {value!r}"):
            response = await self.connection.agent.set_config_option(
                config_id=option_id, session_id=self.id, value=value
            )
        self.settings.config_options = list(response.config_options)
        self.settings.changed()

    async def set_model(self, model_id: str) -> None:
        """Through the "model" config option when there is one, else the agent's models list."""
        option = self.settings.model_option()
        if option is not None:
            await self.set_config(option.id, model_id)
            return
        choices = [m for m, _ in self.settings.model_choices()]
        if not choices:
            raise NotSupportedByAgentError("The agent offers no models list or model option for this session.")
        if model_id not in choices:
            raise ValueError(f"{model_id!r} is not one of the agent's models: {', '.join(map(repr, choices))}.")
        params = replies.set_model_params(self.id, model_id)
        # the fallback: session/set_model left the stable schema (v1.23) and neither SDK line types it
        with agent_errors(f"setting model {model_id!r}"):
            await sdk_connection.send_request(self.connection.agent, "session/set_model", params)
        self.settings.set_current_model(model_id)

    def turn_started(self) -> None:
        """A turn of this session began: the toolbar shows it busy."""
        if self._toolbar is not None:
            self._toolbar.busy = True

    def turn_ended(self) -> None:
        if self._toolbar is not None:
            self._toolbar.busy = False

    @property
    def toolbar(self) -> SessionToolbar:
        """The compact row of dropdowns / toggles for this session (built on first use)."""
        if self._toolbar is None:
            self._toolbar = SessionToolbar(self)
        return self._toolbar

    def show_toolbar(self) -> None:
        """Show the toolbar in the running cell, to be replaced by its static form when the session ends."""
        self._toolbar_view = show(self.toolbar, display_id=True)

    def keep_ended(self, view: Widget) -> None:
        """An ended turn's view, still showing its record to pages that re-read the model
        (docs/reload.md): the last ``ENDED_VIEWS`` are kept until the session is settled, an
        older one is closed; at once if the session already is settled."""
        if self._settled:
            close_tree([view])
            return
        self._ended.append(view)
        if len(self._ended) > ENDED_VIEWS:
            oldest = self._ended[:-ENDED_VIEWS]
            del self._ended[:-ENDED_VIEWS]
            close_tree(oldest)

    def settle_toolbar(self) -> None:
        """The session is over: its toolbar's output becomes one static line of the last settings
        (no widget left for a saved notebook to miss: docs/record.md, 'Saved notebooks'), and its
        ended turns' views are closed."""
        self._settled = True
        ended, self._ended = self._ended, []
        close_tree(ended)
        view, self._toolbar_view = self._toolbar_view, None
        if self._toolbar is None:
            return
        if view is not None:
            facts = self._toolbar.facts()
            view.update(Static(f"[session settings] {header_text(facts)}", header_html(facts)) if facts else Static())
        close_tree([self._toolbar])  # shown or not: nothing displays it any more
        self._toolbar = None

    async def close(self) -> None:
        """``session/close``: the agent frees the session (where it advertises close)."""
        await self.connection.close_session(self.id)
