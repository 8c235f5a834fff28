"""Real agents' encodings: ACP Kit ``ask_choice`` (built by pydantic-acp itself), claude-agent-acp's
AskUserQuestion, and a JetBrains AIR-marked form."""

from __future__ import annotations

from typing import Any

import pytest
from acp.schema import (
    AcceptElicitationResponse,
    CreateElicitationResponse,
    ElicitationFormSessionMode,
    ElicitationMode,
    ElicitationSchema,
)
from pydantic_acp import ChoiceElicitationAccepted, ElicitationChoice
from pydantic_acp.elicitation import _ask_choice, _choice_form_mode

from nbacp.form import ChoiceField, Form, FormValidationError

CHOICES: list[ElicitationChoice[Any]] = [
    ElicitationChoice(value="preview", label="Preview"),
    ElicitationChoice(value="production", label="Production", description="Deploy to prod.", default=True),
    ElicitationChoice(value=("any", "object"), label="Staging (Recommended)"),
]


def acpkit_schema() -> ElicitationSchema:
    schema = _choice_form_mode("session-1", CHOICES).requested_schema
    assert isinstance(schema, ElicitationSchema)
    return schema


@pytest.mark.parametrize("as_dict", [False, True], ids=["pydantic", "dict"])
def test_acpkit_ask_choice_schema_reads_as_one_required_choice(as_dict: bool) -> None:
    schema: Any = acpkit_schema()
    if as_dict:
        schema = schema.model_dump(by_alias=True, exclude_none=True, mode="json")
    form = Form.from_schema(schema)
    (question,) = form.questions
    choice = question.choice
    assert (choice.name, choice.title, choice.required, choice.multi, question.custom) == (
        "choice",
        "Choice",
        True,
        False,
        None,
    )
    assert [(o.value, o.label, o.description, o.recommended) for o in choice.options] == [
        ("choice_0", "Preview", None, False),
        ("choice_1", "Production", "Deploy to prod.", False),
        ("choice_2", "Staging", None, True),
    ]
    assert form.defaults() == {"choice": "choice_1"}
    assert form.content(form.defaults()) == {"choice": "choice_1"}
    assert form.validate({}) == {"choice": ["Pick an option."]}
    assert "choice" in form.validate({"choice": "Production"})  # the label is not the token
    assert "choice" in form.validate({"choice": "choice_9"})


class AnsweringSession:
    """The session surface ``ask_choice`` talks to, answered by nbacp's form as a client would."""

    session_id = "s-1"

    def __init__(self, pick_label: str) -> None:
        self.pick_label = pick_label
        self.modes: list[ElicitationMode] = []

    def supports_elicitation(self, mode: ElicitationMode) -> bool:
        return True

    async def create_elicitation(self, message: str, mode: ElicitationMode) -> CreateElicitationResponse:
        assert isinstance(mode, ElicitationFormSessionMode)
        self.modes.append(mode)
        form = Form.from_schema(mode.requested_schema)
        option = form.questions[0].choice.option_by_label(self.pick_label)
        assert option is not None
        return AcceptElicitationResponse(action="accept", content=form.content({"choice": option.value}))


@pytest.mark.parametrize(
    ("label", "value"), [("Preview", "preview"), ("Production", "production"), ("Staging", ("any", "object"))]
)
async def test_acpkit_accepts_exactly_the_content_nbacp_composes(label: str, value: Any) -> None:
    session = AnsweringSession(label)
    result: Any = await _ask_choice(session, "Choose a deployment target", CHOICES, fallback=None)
    assert isinstance(result, ChoiceElicitationAccepted) and result.value == value
    assert len(session.modes) == 1


# -- claude-agent-acp AskUserQuestion ------------------------------------------------


def claude_question(n: int, *, multi: bool, several: bool) -> dict[str, dict[str, Any]]:
    options = [
        {
            "const": "Tabs",
            "title": "Tabs",
            "description": "One tab per level",
            "_meta": {"_claude/askUserQuestionOption": {"preview": "\tx = 1"}},
        },
        {"const": "Spaces (Recommended)", "title": "Spaces (Recommended)", "description": "Four spaces"},
    ]
    choice: dict[str, Any] = (
        {"type": "array", "title": "Indent", "items": {"anyOf": options}}
        if multi
        else {"type": "string", "title": "Indent", "oneOf": options}
    )
    if several:
        choice["description"] = f"Question {n}: how do you indent?"
    return {f"question_{n}": choice, f"question_{n}_custom": {"type": "string", "title": "Other"}}


@pytest.mark.parametrize("multi", [False, True], ids=["single", "multi"])
@pytest.mark.parametrize("count", [1, 3])
@pytest.mark.parametrize("as_model", [False, True], ids=["dict", "pydantic"])
def test_claude_ask_user_question(multi: bool, count: int, as_model: bool) -> None:
    properties: dict[str, Any] = {}
    for n in range(count):
        properties.update(claude_question(n, multi=multi, several=count > 1))
    schema: Any = {"type": "object", "properties": properties}
    form = Form.from_schema(ElicitationSchema.model_validate(schema) if as_model else schema)
    assert [q.name for q in form.questions] == [f"question_{n}" for n in range(count)]
    assert form.companions == {f"question_{n}_custom": f"question_{n}" for n in range(count)}
    tabs, spaces = form.questions[0].choice.options
    assert (tabs.value, tabs.description, tabs.preview) == ("Tabs", "One tab per level", "\tx = 1")
    assert (spaces.value, spaces.label, spaces.recommended) == ("Spaces (Recommended)", "Spaces", True)
    assert form.validate({}) == {}  # nothing is required
    assert form.questions[0].custom is not None and form.questions[0].custom.title == "Other"
    if count > 1:
        assert form.questions[2].choice.description == "Question 2: how do you indent?"

    pick = ["Spaces (Recommended)", "Tabs"] if multi else "Spaces (Recommended)"
    values: dict[str, Any] = {"question_0": pick, "question_0_custom": " two spaces "}
    expected: dict[str, Any] = {"question_0_custom": "two spaces"}
    if multi:
        expected["question_0"] = pick  # multi carries both; single lets the custom text win
    if count > 1:
        values["question_2"] = expected["question_2"] = pick
    assert form.content(values) == expected


def test_claude_labels_are_consts_so_a_title_is_not_a_wire_value() -> None:
    form = Form.from_schema({"properties": claude_question(0, multi=False, several=False)})
    with pytest.raises(FormValidationError) as caught:
        form.content({"question_0": "Spaces"})  # the shown label, not the const
    assert list(caught.value.errors) == ["question_0"]
    option = form.questions[0].choice.option_by_label("Spaces")
    assert option is not None and form.content({"question_0": option.value}) == {"question_0": "Spaces (Recommended)"}


# -- JetBrains AIR -------------------------------------------------------------------


def test_air_marked_form_pairs_by_marker_not_by_name() -> None:
    marker = {"questionId": "question_0", "isCustomAnswer": True}
    schema = ElicitationSchema.model_validate(
        {
            "type": "object",
            "properties": {
                "question_0": {
                    "type": "array",
                    "items": {"anyOf": [{"const": "A", "title": "A"}, {"const": "B", "title": "B"}]},
                },
                "answer_text": {
                    "type": "string",
                    "title": "Something else",
                    "_meta": {"jetbrains": {"air": {"customAnswer": marker}}},
                },
                "legacy_text": {"type": "string", "_meta": {"_askUserQuestionCustomAnswer": marker}},
            },
            "required": ["question_0"],
        }
    )
    form = Form.from_schema(schema)
    assert form.companions == {"answer_text": "question_0"}  # one companion per choice: the first marker
    question = form.questions[0]
    assert isinstance(question.choice, ChoiceField) and question.multi and question.required
    assert form.validate({"answer_text": "mine"}) == {}
    assert form.content({"question_0": ["B"], "answer_text": "mine", "legacy_text": "kept apart"}) == {
        "question_0": ["B"],
        "answer_text": "mine",
        "legacy_text": "kept apart",
    }
