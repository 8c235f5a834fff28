"""One compact row per session: mode, model and the other config options as dropdowns / toggles.

A change made here calls the agent (``set_mode``, ``set_config``, ``set_model``) between turns;
while a turn runs the row is disabled, since agents apply settings to the next prompt. What
the agent changes itself (``current_mode_update``, ``config_option_update``) moves the
controls without calling the agent back. A refused change puts the control back and shows
the agent's message in the row.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Protocol

import ipywidgets as widgets

from nbacp.widgets.text import no_typeset, text_label, visible_controls

log = logging.getLogger(__name__)


class Settings(Protocol):
    modes: Any
    config_options: list[Any]
    models: dict[str, Any] | None

    def on_change(self, listener: Any) -> None: ...

    def model_option(self) -> Any: ...

    def model_choices(self) -> list[tuple[str, str]]: ...

    def choices(self, option: Any) -> list[tuple[str, str]]: ...


class Controlled(Protocol):
    """What the toolbar drives: a Session (duck-typed, so this layer never imports the client)."""

    settings: Any

    async def set_mode(self, mode_id: str) -> None: ...

    async def set_config(self, option_id: str, value: str | bool) -> None: ...

    async def set_model(self, model_id: str) -> None: ...


@dataclass(frozen=True)
class Entry:
    """One control: its key (``select``/``toggle``), what it sets, and what it shows."""

    key: str
    target: tuple[str, str]  # ("mode", ""), ("model", "") or ("option", the option's id)
    kind: str  # "select" or "boolean"
    label: str
    choices: list[tuple[str, str]]
    value: Any


def _with_current(choices: list[tuple[str, str]], value: Any) -> list[tuple[str, Any]]:
    """The choices, plus the agent's current value when it is not among them (shown anyway)."""
    if value in [v for _, v in choices]:
        return list(choices)
    return [*choices, (visible_controls(str(value)), value)]


class SessionToolbar(widgets.HBox):  # type: ignore[misc]  # ipywidgets is untyped
    """``select(key, value)`` / ``toggle(key, on)`` act as a person would.

    Keys: "mode", "model", and each config option's id; an option whose id is already a key (a
    config option called "mode") is ``"option:<id>"``, so every setting keeps its own control.
    """

    def __init__(self, session: Controlled) -> None:
        super().__init__(layout=widgets.Layout(flex_flow="row wrap", align_items="center"))
        self.add_class("nbacp-toolbar")
        self.session = session
        self.controls: dict[str, widgets.ValueWidget] = {}
        self.status = text_label("", "nbacp-toolbar-status")
        self.pending: set[asyncio.Task[Any]] = set()
        self._busy = False
        self._updating = False
        self._targets: dict[str, tuple[str, str]] = {}  # key -> ("mode" | "model" | "option", option id)
        session.settings.on_change(self.refresh)
        self.refresh()

    def __repr__(self) -> str:
        # the cell's text/plain: short and stable (ipywidgets' default repr lists the whole tree)
        shown = ", ".join(f"{key}={control.value!r}" for key, control in self.controls.items())
        return f"<nbacp session settings: {shown or 'none'}>"

    def facts(self) -> dict[str, str]:
        """What the controls show, as text: {label: the chosen value's label} (the static form)."""
        shown: dict[str, str] = {}
        for control in self.controls.values():
            if isinstance(control, widgets.Checkbox):
                shown[str(control.description)] = "on" if control.value else "off"
            else:
                labels = {value: label for label, value in control.options}
                shown[str(control.description)] = str(labels.get(control.value, control.value))
        return shown

    # -- what a person (or a test) does ------------------------------------------------
    def select(self, key: str, value: str) -> None:
        """Pick ``value`` (a value or its label) in the dropdown ``key``, as the person would."""
        control = self._control(key)
        if not isinstance(control, widgets.Dropdown):
            raise TypeError(f"{key!r} is a toggle; use toggle().")
        labels = {label: v for label, v in control.options}
        control.value = labels.get(value, value)

    def toggle(self, option_id: str, on: bool) -> None:
        control = self._control(option_id)
        if not isinstance(control, widgets.Checkbox):
            raise TypeError(f"{option_id!r} is a dropdown; use select().")
        control.value = bool(on)

    async def settled(self) -> None:
        """Wait until every change sent to the agent has been answered."""
        while self.pending:
            await asyncio.gather(*list(self.pending), return_exceptions=True)

    @property
    def busy(self) -> bool:
        return self._busy

    @busy.setter
    def busy(self, value: bool) -> None:
        self._busy = value
        for control in self.controls.values():
            control.disabled = value

    # -- following the agent -----------------------------------------------------------
    def refresh(self) -> None:
        """Show the session's current settings, in place.

        Each control is updated where it stands (its label, choices and value, only what
        changed); controls are made or closed only for settings that appeared or went away, so
        an agent's burst of ``config_option_update`` costs a few trait changes, not a new row.
        """
        entries = self._entries()
        self._updating = True
        try:
            controls: dict[str, Any] = {}
            for entry in entries:
                control = self.controls.get(entry.key)
                if (
                    control is None
                    or self._targets.get(entry.key, (None,))[0] != entry.target[0]
                    or (isinstance(control, widgets.Checkbox) != (entry.kind == "boolean"))
                ):
                    control = self._build(entry)
                else:
                    self._update(control, entry)
                controls[entry.key] = control
            gone = [c for key, c in self.controls.items() if controls.get(key) is not c]
            changed = list(controls.values()) != list(self.controls.values())
            self.controls = controls
            self._targets = {entry.key: entry.target for entry in entries}
            if changed:
                self.children = (*controls.values(), self.status)
                self.layout.display = None if controls else "none"
            for control in gone:
                control.close()
        finally:
            self._updating = False

    def _entries(self) -> list[Entry]:
        """One entry per control: the mode, the model list, then every config option, each with its own key."""
        settings: Settings = self.session.settings
        entries: list[Entry] = []
        modes = settings.modes
        if modes is not None and modes.available_modes:
            choices = [(visible_controls(m.name), m.id) for m in modes.available_modes]
            entries.append(Entry("mode", ("mode", ""), "select", "Mode", choices, modes.current_mode_id))
        if settings.model_option() is None and settings.models:
            choices = [(visible_controls(name), mid) for mid, name in settings.model_choices()]
            if choices:
                current = settings.models.get("currentModelId")
                entries.append(Entry("model", ("model", ""), "select", "Model", choices, current))
        taken = {entry.key for entry in entries}
        for option in settings.config_options:
            # an option whose id is "mode" or "model" (or repeats one) keeps its own control
            key = option.id if option.id not in taken else f"option:{option.id}"
            taken.add(key)
            label = visible_controls(option.name)
            if getattr(option, "type", "") == "boolean":
                entries.append(Entry(key, ("option", option.id), "boolean", label, [], bool(option.current_value)))
            else:
                choices = [(visible_controls(lab), v) for v, lab in settings.choices(option)]
                entries.append(Entry(key, ("option", option.id), "select", label, choices, option.current_value))
        return entries

    def _build(self, entry: Entry) -> Any:
        control: Any
        if entry.kind == "boolean":
            control = widgets.Checkbox(
                value=entry.value, description=entry.label, indent=False, layout=widgets.Layout(width="auto")
            )
        else:
            control = widgets.Dropdown(
                options=_with_current(entry.choices, entry.value),
                value=entry.value,
                description=entry.label,
                layout=widgets.Layout(width="auto"),
            )
            control.style.description_width = "initial"
        no_typeset(control)
        control.add_class(f"nbacp-toolbar-{'toggle' if entry.kind == 'boolean' else 'select'}")
        control.disabled = self._busy
        control.observe(lambda change, k=entry.key: self._changed(k, change), names="value")
        return control

    def _update(self, control: Any, entry: Entry) -> None:
        if control.description != entry.label:
            control.description = entry.label
        if entry.kind != "boolean":
            choices = tuple(_with_current(entry.choices, entry.value))
            if tuple(control.options) != choices:
                control.options = choices
        if control.value != entry.value:
            control.value = entry.value

    def _control(self, key: str) -> Any:
        if key not in self.controls:
            raise KeyError(f"No {key!r} control; the toolbar has: {', '.join(self.controls) or 'none'}.")
        return self.controls[key]

    # -- calling the agent -------------------------------------------------------------
    def _changed(self, key: str, change: dict[str, Any]) -> None:
        if self._updating or change["new"] == change["old"]:
            return
        if self._busy:
            self.status.value = "Settings change between turns; wait for the turn to end."
            self._revert()
            return
        try:
            task = asyncio.get_running_loop().create_task(self._apply(key, change["new"]))
        except RuntimeError:  # no loop (plain Python): nothing could send the request
            self.status.value = "No event loop is running to send the change."
            self._revert()
            return
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def _apply(self, key: str, value: Any) -> None:
        self.status.value = "…"
        kind, option_id = self._targets[key]
        try:
            if kind == "mode":
                await self.session.set_mode(value)
            elif kind == "model":
                await self.session.set_model(value)
            else:
                await self.session.set_config(option_id, value)
        except Exception as exc:  # the agent refused or went away: show why, keep what it has
            log.debug("toolbar change refused: %r", exc)
            self.status.value = visible_controls(f"Not changed: {exc}")[:300]
            self._revert()
            return
        self.status.value = ""

    def _revert(self) -> None:
        self.refresh()  # back to the session's state as the agent last reported it
