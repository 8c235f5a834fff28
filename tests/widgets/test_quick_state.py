"""Cards compute their state from per-class tables: the same state as ipywidgets'."""

from __future__ import annotations

import ipywidgets as widgets

from nbacp.widgets.form_card import FormCard

SCHEMA = {
    "type": "object",
    "properties": {
        "pick": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b"}]}},
        "x": {"type": "string"},
    },
}


def test_a_cards_state_and_keys_are_ipywidgets_own_through_its_life() -> None:
    card = FormCard("Which?", SCHEMA)
    assert card.keys == card._default_keys()
    for key in (None, "draft", ["spec", "layout"]):
        assert card.get_state(key) == widgets.Widget.get_state(card, key)
    assert card.get_state(drop_defaults=True) == widgets.Widget.get_state(card, drop_defaults=True)
    card.pick("pick", "A")
    assert card.get_state() == widgets.Widget.get_state(card)
    assert card.accept()
    assert card.get_state() == widgets.Widget.get_state(card)
    card.close()
