"""Cards and transcript lines compute their state from per-class tables: the same state as ipywidgets'."""

from __future__ import annotations

import ipywidgets as widgets

from nbacp.widgets import shared
from nbacp.widgets.form_card import FormCard
from nbacp.widgets.transcript.blocks import text_label

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


def test_a_line_is_a_label_on_the_page() -> None:
    line = text_label("Accepted: A", "nbacp-answered")
    same = widgets.Label(
        value=line.value, _dom_classes=line._dom_classes, layout=shared.layout(), style=shared.label_style()
    )
    assert isinstance(line, widgets.Label) and line.keys == same.keys
    assert line.get_state() == same.get_state()
    assert line.get_state()["layout"] == "IPY_MODEL_" + shared.layout().model_id
    line.close()
    same.close()
