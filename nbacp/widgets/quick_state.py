"""A widget's state as ipywidgets computes it, with each trait's serializer looked up once per class.

ipywidgets' ``Widget.get_state`` calls ``self.traits()`` and ``trait_metadata`` per key on every
call; it runs for every comm open and every state update, so for a turn of 1,000 answered
cards it was a tenth of the card's cost (measured in benchmarks/README.md). The state sent is
the same; anything unusual (dropped defaults, a trait added to one instance, legacy
``_<name>_metadata``) goes through ipywidgets' own code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import traitlets

Serializer = Callable[[Any, Any], Any]
_TABLES: dict[type, dict[str, Serializer]] = {}
_KEYS: dict[type, list[str]] = {}


def serializers(cls: type[widgets.Widget]) -> dict[str, Serializer]:
    """Each synced class trait's ``to_json`` (the class's default where it has none), per class;
    ``_AS_IS`` for ipywidgets' own default, which returns the value itself (no call needed)."""
    table = _TABLES.get(cls)
    if table is None:
        default = cls._trait_to_json
        if default is widgets.Widget._trait_to_json:
            default = _AS_IS
        table = {
            name: trait.metadata.get("to_json", default)
            for name, trait in cls.class_traits(sync=True).items()
            if not hasattr(cls, f"_{name}_metadata")
        }
        _TABLES[cls] = table
    return table


def _as_is(value: Any, _widget: Any) -> Any:
    return value


_AS_IS: Serializer = _as_is


def synced_names(cls: type[widgets.Widget]) -> list[str]:
    """The names of a class's synced traits, in ipywidgets' order (its default ``keys``)."""
    names = _KEYS.get(cls)
    if names is None:
        names = _KEYS[cls] = list(cls.class_traits(sync=True))
    return names


class QuickState(widgets.Widget):  # type: ignore[misc]  # ipywidgets is untyped
    """Mixin (before the widget class in the bases): ``keys`` and ``get_state`` from per-class tables."""

    @traitlets.default("keys")
    def _quick_keys(self) -> list[str]:
        return list(synced_names(type(self)))  # a copy: ipywidgets may extend an instance's keys

    def get_state(self, key: Any = None, drop_defaults: bool = False) -> dict[str, Any]:
        if drop_defaults or not (key is None or isinstance(key, str | list | tuple | set)):
            return dict(super().get_state(key, drop_defaults))
        table = serializers(type(self))
        names = self.keys if key is None else [key] if isinstance(key, str) else key
        values = self._trait_values  # what a trait's get returns once it has a value (most have one by now)
        state: dict[str, Any] = {}
        for name in names:
            to_json = table.get(name)
            if to_json is None:  # a trait this class does not declare (added to one instance)
                return dict(super().get_state(key, drop_defaults))
            value = values[name] if name in values else getattr(self, name)
            state[name] = value if to_json is _AS_IS else to_json(value, self)
        return state
