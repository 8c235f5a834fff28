"""A session's modes, config options and models: what the agent said, kept current.

The agent gives them in the session/new (load, resume) response and changes them with
``current_mode_update`` and ``config_option_update``; models (``{currentModelId,
availableModels}``) come only in the raw response on agents that still send them (the SDK's
models drop the field, see ``nbacp.client.wire.raw_tap``). Listeners (the toolbar) are told of
every change, whoever made it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp import schema


def select_values(option: Any) -> list[tuple[str, str]]:
    """(value, label) pairs of a select option, groups flattened, in the agent's order."""
    pairs: list[tuple[str, str]] = []
    for item in getattr(option, "options", None) or ():
        if isinstance(item, schema.SessionConfigSelectGroup):
            pairs.extend((o.value, f"{item.name}: {o.name}") for o in item.options)
        else:
            pairs.append((item.value, item.name))
    return pairs


class SessionSettings:
    """Modes, config options and models of one session."""

    def __init__(self) -> None:
        self.modes: schema.SessionModeState | None = None
        self.config_options: list[Any] = []
        self.models: dict[str, Any] | None = None
        self._listeners: list[Callable[[], None]] = []

    def on_change(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    def apply_response(self, response: Any, models: dict[str, Any] | None = None) -> None:
        """Take the initial state from a session/new, load, resume or fork response."""
        modes = getattr(response, "modes", None)
        if modes is not None:
            self.modes = modes
        options = getattr(response, "config_options", None)
        if options is not None:
            self.config_options = list(options)
        if models is not None:
            self.models = models
        self.changed()

    def apply_update(self, update: Any) -> bool:
        """Follow ``current_mode_update`` / ``config_option_update``; True when it was one of them."""
        if isinstance(update, schema.CurrentModeUpdate):
            self.set_current_mode(update.current_mode_id)
            return True
        if isinstance(update, schema.ConfigOptionUpdate):
            self.config_options = list(update.config_options)
            self.changed()
            return True
        return False

    def set_current_mode(self, mode_id: str) -> None:
        if self.modes is None:
            self.modes = schema.SessionModeState(current_mode_id=mode_id, available_modes=[])
        else:
            self.modes = self.modes.model_copy(update={"current_mode_id": mode_id})
        self.changed()

    def set_current_model(self, model_id: str) -> None:
        if self.models is not None:
            self.models = {**self.models, "currentModelId": model_id}
            self.changed()

    def option(self, option_id: str) -> Any:
        for option in self.config_options:
            if option.id == option_id:
                return option
        offered = ", ".join(repr(o.id) for o in self.config_options) or "none"
        raise ValueError(f"The agent has no config option {option_id!r} (it offers: {offered}).")

    def model_option(self) -> Any:
        """The select config option in the "model" category, if the agent gives one."""
        for option in self.config_options:
            if getattr(option, "category", None) == "model" and getattr(option, "type", None) == "select":
                return option
        return None

    def choices(self, option: Any) -> list[tuple[str, str]]:
        return select_values(option)

    def model_choices(self) -> list[tuple[str, str]]:
        """(model id, name) pairs from the models list."""
        if not self.models:
            return []
        pairs = []
        for model in self.models.get("availableModels") or ():
            if isinstance(model, dict) and isinstance(model.get("modelId"), str):
                pairs.append((model["modelId"], str(model.get("name") or model["modelId"])))
        return pairs
