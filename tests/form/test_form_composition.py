"""Questions (a choice plus its "Other" box) and the answer composition rule of design.md."""

from __future__ import annotations

from typing import Any

import pytest

from nbacp.form import Form, FormQuestion, FormValidationError

OPTIONS = {"enum": ["a", "b", "c"]}


def single(**extra: Any) -> dict[str, Any]:
    return {"type": "string", **OPTIONS, **extra}


def multi(**extra: Any) -> dict[str, Any]:
    return {"type": "array", "items": dict(OPTIONS), **extra}


def text(**extra: Any) -> dict[str, Any]:
    return {"type": "string", **extra}


def form_of(required: list[str] | None = None, **properties: dict[str, Any]) -> Form:
    return Form.from_schema({"type": "object", "properties": properties, "required": required or []})


# -- pairing -------------------------------------------------------------------------

AIR = {"jetbrains": {"air": {"customAnswer": {"questionId": "q", "isCustomAnswer": True}}}}
LEGACY = {"_askUserQuestionCustomAnswer": {"questionId": "q", "isCustomAnswer": True}}
OWN = {"nbacp/customFor": "q"}


@pytest.mark.parametrize("meta", [AIR, LEGACY, OWN], ids=["air", "legacy", "nbacp"])
def test_markers_pair_any_name(meta: dict[str, Any]) -> None:
    form = form_of(q=single(), free=text(_meta=meta))
    assert form.companions == {"free": "q"}
    (question,) = form.questions
    assert question.custom is form.fields["free"] and form.question("free") is question
    assert [item.name for item in form.items] == ["q"]


@pytest.mark.parametrize("suffix", ["_custom", "_other"])
def test_names_pair(suffix: str) -> None:
    properties = {"q": multi(), f"q{suffix}": text()}
    form = form_of(None, **properties)
    assert form.companions == {f"q{suffix}": "q"}


def test_is_custom_answer_false_is_not_a_marker() -> None:
    meta = {"jetbrains": {"air": {"customAnswer": {"questionId": "q", "isCustomAnswer": False}}}}
    assert form_of(q=single(), free=text(_meta=meta)).companions == {}


def test_markers_beat_names() -> None:
    form = form_of(q=single(), q_custom=text(), marked=text(_meta=OWN))
    assert form.companions == {"marked": "q"}
    assert [item.name for item in form.items] == ["q", "q_custom"]


@pytest.mark.parametrize("target", ["missing", "plain", "num"])
def test_a_marker_at_a_missing_or_non_choice_property_leaves_a_plain_field(target: str) -> None:
    # the field is also named like q's companion: its explicit marker still decides
    form = form_of(q=single(), plain=text(), num={"type": "number"}, q_custom=text(_meta={"nbacp/customFor": target}))
    assert form.companions == {}
    assert form.questions[0].custom is None and "q_custom" in [item.name for item in form.items]


def test_a_companion_must_be_a_plain_string() -> None:
    form = form_of(q=single(), q_custom=single(), q_other={"type": "number"}, z=single(), z_other={"type": "boolean"})
    assert form.companions == {}
    assert {q.name for q in form.questions} == {"q", "q_custom", "z"}


def test_one_companion_per_choice() -> None:
    form = form_of(q=single(), first=text(_meta=OWN), second=text(_meta=OWN), q_custom=text(), q_other=text())
    assert form.companions == {"first": "q"}
    assert [item.name for item in form.items] == ["q", "second", "q_custom", "q_other"]


def test_each_choice_gets_its_own_companion() -> None:
    form = form_of(a=single(), b=multi(), a_other=text(), b_custom=text())
    assert form.companions == {"a_other": "a", "b_custom": "b"}
    assert all(isinstance(item, FormQuestion) for item in form.items)


# -- composition: single-select is exclusive -----------------------------------------


def test_single_same_final_draft_same_content_in_both_orders() -> None:
    form = form_of(q=single(), q_custom=text())
    pick_then_type: dict[str, Any] = {}
    pick_then_type["q"] = "a"
    pick_then_type["q_custom"] = "mine"
    type_then_pick: dict[str, Any] = {}
    type_then_pick["q_custom"] = "mine"
    type_then_pick["q"] = "a"
    assert list(pick_then_type) != list(type_then_pick)
    assert form.content(pick_then_type) == form.content(type_then_pick) == {"q_custom": "mine"}


@pytest.mark.parametrize("cleared", ["", "   ", "\t\n", None])
def test_single_clearing_the_custom_restores_the_pick(cleared: str | None) -> None:
    form = form_of(q=single(), q_custom=text())
    assert form.content({"q": "b", "q_custom": cleared}) == {"q": "b"}


def test_single_custom_is_trimmed_and_alone() -> None:
    form = form_of(q=single(), q_custom=text())
    assert form.content({"q": "a", "q_custom": "  spaced out \n"}) == {"q_custom": "spaced out"}
    assert form.content({"q_custom": "x"}) == {"q_custom": "x"}


def test_single_never_sends_more_than_one_value() -> None:
    form = form_of(q=single(), q_custom=text())
    errors = form.validate({"q": ["a", "b"]})
    assert errors == {"q": ["Pick only one option."]}
    content = form.content({"q": ["c"]})
    assert content == {"q": "c"}


# -- composition: multi-select carries both ------------------------------------------


def test_multi_same_final_draft_same_content_in_both_orders() -> None:
    form = form_of(q=multi(), q_custom=text())
    pick_then_type = {"q": ["b", "a"], "q_custom": " more "}
    type_then_pick = {"q_custom": " more ", "q": ["b", "a"]}
    assert form.content(pick_then_type) == form.content(type_then_pick) == {"q": ["b", "a"], "q_custom": "more"}


def test_multi_either_part_alone() -> None:
    form = form_of(q=multi(), q_custom=text())
    assert form.content({"q": ["c"], "q_custom": "  "}) == {"q": ["c"]}
    assert form.content({"q": [], "q_custom": "only mine"}) == {"q_custom": "only mine"}


def test_multi_picks_unique_and_offered() -> None:
    form = form_of(q=multi(), q_custom=text())
    errors = form.validate({"q": ["a", "a", "zz"], "q_custom": "x"})
    assert list(errors) == ["q"] and len(errors["q"]) == 2
    assert any("more than once" in m for m in errors["q"]) and any("'zz'" in m for m in errors["q"])


def test_custom_text_is_never_encoded_as_a_pick() -> None:
    form = form_of(q=multi(), q_custom=text())
    assert "q" in form.validate({"q": ["a", "custom words"]})
    assert form.content({"q": ["a"], "q_custom": "a"}) == {"q": ["a"], "q_custom": "a"}


# -- required, constraints, and every error at once ---------------------------------


@pytest.mark.parametrize("choice", [single, multi])
@pytest.mark.parametrize("required", [["q"], ["q_custom"], ["q", "q_custom"]])
def test_required_is_satisfied_by_either_pick_or_custom(choice: Any, required: list[str]) -> None:
    form = form_of(required, q=choice(), q_custom=text())
    pick = ["a"] if choice is multi else "a"
    assert form.validate({"q": pick}) == {}
    assert form.validate({"q_custom": "mine"}) == {}
    assert form.validate({"q_custom": "   "}) == {"q": ["An answer is required: pick an option or type your own."]}
    assert form.validate({}) == {"q": ["An answer is required: pick an option or type your own."]}


def test_required_choice_without_companion() -> None:
    form = form_of(["s", "m"], s=single(), m=multi())
    assert form.validate({}) == {"s": ["Pick an option."], "m": ["Pick at least one option."]}


def test_the_custom_keeps_its_own_string_constraints() -> None:
    form = form_of(q=single(), q_custom=text(maxLength=3, pattern="^[a-z]+$"))
    assert form.content({"q_custom": "  abc  "}) == {"q_custom": "abc"}
    errors = form.validate({"q": "a", "q_custom": "ABCD"})
    assert list(errors) == ["q_custom"] and len(errors["q_custom"]) == 2
    assert form.validate({"q_custom": 5}) == {"q_custom": ["Must be text."]}


def test_every_error_for_every_field_at_once() -> None:
    form = form_of(
        ["need"],
        q=single(),
        q_custom=text(maxLength=2),
        n={"type": "integer", "minimum": 0},
        m=multi(maxItems=1),
        need=text(),
    )
    values = {"q": "zz", "q_custom": "too long", "n": -1.5, "m": ["a", "b"]}
    errors = form.validate(values)
    assert set(errors) == {"q", "q_custom", "n", "m", "need"}
    assert all(isinstance(m, str) and m for messages in errors.values() for m in messages)
    with pytest.raises(FormValidationError) as caught:
        form.content(values)
    assert caught.value.errors == errors


def test_three_bad_fields_three_keys() -> None:
    form = form_of(a=text(minLength=5), b={"type": "number"}, c={"type": "boolean"})
    assert set(form.validate({"a": "x", "b": "x", "c": "x"})) == {"a", "b", "c"}


def test_values_must_be_a_mapping() -> None:
    form = form_of(q=single())
    assert list(form.validate(["q"])) == [""]  # type: ignore[arg-type]
    with pytest.raises(FormValidationError):
        form.content("q")  # type: ignore[arg-type]
