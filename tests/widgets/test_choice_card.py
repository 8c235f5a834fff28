"""ChoiceCard: the trait contract, the composition rule, and the front-end comm path."""

from __future__ import annotations

from typing import Any

import pytest
from support.comm_support import RecordingComms

from nbacp.widgets.choice_card import ChoiceCard, card_code


def spec(multi: bool = False, **over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "question_0",
        "title": "Which ones?",
        "description": None,
        "required": False,
        "multi": multi,
        "options": [
            {"value": v, "label": v.title(), "description": None, "preview": None, "recommended": False}
            for v in ("alpha", "beta", "gamma")
        ],
        "custom": {"name": "question_0_custom", "title": "Other", "description": None, "placeholder": ""},
        "min_items": None,
        "max_items": None,
    }
    return base | over


# -- the trait contract -------------------------------------------------------------------
def test_traits_sync_and_defaults() -> None:
    card = ChoiceCard(spec=spec())
    for name in ("spec", "answer", "errors", "disabled"):
        assert card.trait_metadata(name, "sync") is True, name
    assert card.answer == {"picked": [], "custom": ""}
    assert card.errors == [] and card.disabled is False
    code = card_code()
    assert card.code == f"anywidget:{code.model_id}"  # the card renders through the shared module
    esm = str(code._esm)
    assert "as default" in esm and "function render" in esm and "initialize" in esm
    assert len(card._esm) < 1024 and "host.getWidget" in card._esm  # each card carries only a stub


def test_default_answer_is_not_shared_between_cards() -> None:
    one, two = ChoiceCard(spec=spec(multi=True)), ChoiceCard(spec=spec(multi=True))
    one.toggle("beta")
    assert two.answer == {"picked": [], "custom": ""}


def test_every_change_assigns_a_new_dict() -> None:
    card = ChoiceCard(spec=spec(multi=True))
    seen: list[dict[str, Any]] = []
    card.observe(lambda change: seen.append(change["new"]), names="answer")
    before = card.answer
    card.toggle("alpha")
    card.type_custom("x")
    card.pick_values(["gamma"])
    assert seen == [
        {"picked": ["alpha"], "custom": ""},
        {"picked": ["alpha"], "custom": "x"},
        {"picked": ["gamma"], "custom": "x"},
    ]
    assert before == {"picked": [], "custom": ""}
    assert len({id(d) for d in seen}) == 3


# -- the composition rule --------------------------------------------------------------
def test_multi_pick_then_type_keeps_both() -> None:
    card = ChoiceCard(spec=spec(multi=True))
    card.toggle("gamma")
    card.toggle("alpha")
    card.type_custom("delta")
    assert card.answer == {"picked": ["alpha", "gamma"], "custom": "delta"}
    assert card.overridden is False


def test_multi_type_then_pick_keeps_both() -> None:
    card = ChoiceCard(spec=spec(multi=True))
    card.type_custom("delta")
    card.pick_values(["beta", "alpha", "beta"])
    assert card.answer == {"picked": ["alpha", "beta"], "custom": "delta"}
    card.toggle("beta")
    assert card.answer == {"picked": ["alpha"], "custom": "delta"}


def test_single_select_toggle_selects_and_text_overrides_until_cleared() -> None:
    card = ChoiceCard(spec=spec())
    card.toggle("alpha")
    card.toggle("beta")
    card.toggle("beta")
    assert card.answer == {"picked": ["beta"], "custom": ""}
    card.type_custom("mine")
    assert card.answer == {"picked": ["beta"], "custom": "mine"} and card.overridden
    card.type_custom("  \n ")
    assert not card.overridden
    card.type_custom("")
    assert card.answer == {"picked": ["beta"], "custom": ""} and not card.overridden


def test_single_type_then_pick_keeps_text() -> None:
    card = ChoiceCard(spec=spec())
    card.type_custom("mine")
    card.pick_values(["gamma"])
    assert card.answer == {"picked": ["gamma"], "custom": "mine"} and card.overridden
    card.pick_values([])
    assert card.answer == {"picked": [], "custom": "mine"}


@pytest.mark.parametrize("multi", [False, True])
def test_unknown_values_raise_naming_the_value(multi: bool) -> None:
    card = ChoiceCard(spec=spec(multi=multi))
    with pytest.raises(ValueError, match="'Alpha'"):
        card.toggle("Alpha")  # a label is not a value
    with pytest.raises(ValueError, match="'nope'"):
        card.pick_values(["alpha", "nope"])
    assert card.answer == {"picked": [], "custom": ""}


def test_single_select_rejects_two_values_and_a_bare_string() -> None:
    card = ChoiceCard(spec=spec())
    with pytest.raises(ValueError, match="single-select"):
        card.pick_values(["alpha", "beta"])
    with pytest.raises(TypeError):
        card.pick_values("alpha")
    assert card.answer == {"picked": [], "custom": ""}


# -- through the comm, as the front end does it ---------------------------------------------
def test_front_end_updates_reach_the_trait_in_both_orders(comms: RecordingComms) -> None:
    card = ChoiceCard(spec=spec(multi=True))
    comms.update(card, answer={"picked": ["beta"], "custom": ""})
    comms.update(card, answer={"picked": ["beta"], "custom": "typed"})
    assert card.answer == {"picked": ["beta"], "custom": "typed"}
    card.toggle("alpha")  # Python continues from the front end's state
    assert card.answer == {"picked": ["alpha", "beta"], "custom": "typed"}
    comms.update(card, answer={"picked": [], "custom": "typed first"})
    comms.update(card, answer={"picked": ["gamma"], "custom": "typed first"})
    assert card.picked == ["gamma"] and card.custom == "typed first"


def test_single_override_via_front_end(comms: RecordingComms) -> None:
    card = ChoiceCard(spec=spec())
    comms.update(card, answer={"picked": ["alpha"], "custom": "own"})
    assert card.overridden
    comms.update(card, answer={"picked": ["alpha"], "custom": ""})
    assert not card.overridden and card.picked == ["alpha"]


def test_python_changes_are_pushed_to_the_front_end(comms: RecordingComms) -> None:
    card = ChoiceCard(spec=spec(multi=True))
    card.pick_values(["gamma"])
    card.type_custom("x")
    card.errors = ["Pick at most one."]
    updates = comms.state_updates(card)
    assert {"answer": {"picked": ["gamma"], "custom": ""}} in updates
    assert {"answer": {"picked": ["gamma"], "custom": "x"}} in updates
    assert {"errors": ["Pick at most one."]} in updates


def test_submit_and_cancel_messages_reach_on_event(comms: RecordingComms) -> None:
    card = ChoiceCard(spec=spec())
    events: list[str] = []
    card.on_event(events.append)
    comms.custom(card, {"event": "submit"})
    comms.custom(card, {"event": "cancel"})
    comms.custom(card, {"event": "explode"})
    comms.custom(card, "not a dict")
    assert events == ["submit", "cancel"]


def test_disabled_card_drops_late_events(comms: RecordingComms) -> None:
    card = ChoiceCard(spec=spec())
    events: list[str] = []
    card.on_event(events.append)
    card.disabled = True
    comms.custom(card, {"event": "submit"})
    assert events == []


def test_malformed_front_end_answer_reads_safely(comms: RecordingComms) -> None:
    card = ChoiceCard(spec=spec(multi=True))
    comms.update(card, answer={"picked": "alpha", "custom": None})
    assert card.picked == [] and card.custom == "" and not card.overridden
    card.toggle("alpha")
    assert card.answer == {"picked": ["alpha"], "custom": ""}


def test_a_closed_card_can_be_freed() -> None:
    """No hidden reference (anywidget's file-watch signal for a Path _esm) keeps a closed card alive."""
    import gc
    import weakref

    card = ChoiceCard(spec=spec(multi=True))
    ref = weakref.ref(card)
    card.close()
    del card
    gc.collect()
    assert ref() is None
