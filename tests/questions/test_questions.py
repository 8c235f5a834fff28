"""nbacp.questions: question model and the wire encoding every client reads."""

from __future__ import annotations

import enum
import json
import subprocess
import sys
from typing import Any

import pytest
from acp.schema import ElicitationFormSessionMode
from acp.utils import serialize_params

from nbacp.questions import Option, Question, compile_questions


class Lang(enum.Enum):
    PY = "py"
    RS = "rs"


def wire(questions: list[Question[Any]], message: str | None = None) -> tuple[str, dict[str, Any]]:
    """The message and schema exactly as acp serializes them onto the connection."""
    compiled = compile_questions(questions, message)
    mode = ElicitationFormSessionMode(session_id="s", requested_schema=compiled.schema)
    return compiled.message, serialize_params(mode)["requestedSchema"]


def test_one_single_select_question_is_the_message_and_options_are_opaque_tokens() -> None:
    q: Question[object] = Question(
        "target",
        "Deploy where?",
        [
            Option(object(), "Production", description="Live traffic", recommended=True, preview="prod.yml"),
            Option(Lang.PY, "Preview"),
        ],
        header="Target",
    )
    message, schema = wire([q])
    assert message == "Deploy where?"
    assert schema == {
        "properties": {
            "target": {
                "type": "string",
                "title": "Target",
                "oneOf": [
                    {
                        "const": "target_0",
                        "title": "Production",
                        "description": "Live traffic",
                        "_meta": {"nbacp/recommended": True, "nbacp/preview": "prod.yml"},
                    },
                    {"const": "target_1", "title": "Preview"},
                ],
            }
        }
    }


def test_multi_select_with_custom_adds_a_companion_with_both_markers() -> None:
    q = Question(
        "langs",
        "Which languages?",
        [Option(Lang.PY, "Python"), Option(Lang.RS, "Rust")],
        multi_select=True,
        allow_custom=True,
    )
    message, schema = wire([q])
    assert message == "Which languages?"
    assert list(schema["properties"]) == ["langs", "langs_custom"]
    langs = schema["properties"]["langs"]
    assert langs["type"] == "array"
    assert langs["title"] == "Which languages?"
    assert langs["items"] == {"anyOf": [{"const": "langs_0", "title": "Python"}, {"const": "langs_1", "title": "Rust"}]}
    assert schema["properties"]["langs_custom"] == {
        "type": "string",
        "title": "Other",
        "description": "Your own answer",
        "_meta": {
            "nbacp/customFor": "langs",
            "jetbrains": {"air": {"customAnswer": {"questionId": "langs", "isCustomAnswer": True}}},
        },
    }
    assert "required" not in schema


def test_several_questions_carry_their_text_and_required_rules() -> None:
    questions: list[Question[Any]] = [
        Question("a", "Pick a?", [Option(1, "One")], required=True, header="A"),
        Question("b", "Pick b?", [Option(2, "Two")], multi_select=True, required=True),
        Question("c", "Pick c?", [Option(3, "Three")], required=True, allow_custom=True),
        Question("d", "Pick d?", [Option(4, "Four")]),
    ]
    message, schema = wire(questions)
    props = schema["properties"]
    assert message == "Please answer 4 questions"
    assert list(props) == ["a", "b", "c", "c_custom", "d"]
    assert (props["a"]["title"], props["a"]["description"]) == ("A", "Pick a?")
    # Without a header the title already is the text; it is not repeated as the description.
    assert props["b"]["title"] == "Pick b?" and "description" not in props["b"]
    assert props["b"]["minItems"] == 1  # an empty array would otherwise satisfy `required`
    assert props["c_custom"]["description"] == "Your own answer to: Pick c?"
    # c may be answered by custom text alone, so a strict client must not demand a pick.
    assert schema["required"] == ["a", "b"]
    assert props["c"]["_meta"] == {"nbacp/required": True}
    assert "_meta" not in props["d"]


def test_explicit_message_moves_a_lone_question_text_into_its_description() -> None:
    message, schema = wire([Question("a", "Pick a?", [Option(1, "One")], header="A")], message="Setup")
    assert message == "Setup"
    assert schema["properties"]["a"]["description"] == "Pick a?"


def test_labels_stay_clean_and_tokens_reveal_nothing_about_values() -> None:
    secret = {"api": "value-not-for-the-client"}
    _, schema = wire([Question("q", "Q?", [Option(secret, "Use it", recommended=True)])])
    text = json.dumps(schema)
    assert "value-not-for-the-client" not in text
    assert schema["properties"]["q"]["oneOf"][0]["title"] == "Use it"  # no " (Recommended)" suffix


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: Option(1, "  "), "label"),
        (lambda: Question("q", " ", [Option(1, "x")]), "text"),
        (lambda: Question("", "Q?", [Option(1, "x")]), "id"),
        (lambda: Question(" q", "Q?", [Option(1, "x")]), "id"),
        (lambda: Question("q", "Q?", []), "at least one option"),
        (lambda: Question("q", "Q?", [Option(1, "x"), Option(2, "x ")]), "distinct"),
        (
            lambda: Question("q", "Q?", [Option(1, "x", recommended=True), Option(2, "y", recommended=True)]),
            "at most one",
        ),
        (lambda: Question("q", "Q?", [Option(1, "x")], header=""), "header"),
    ],
)
def test_impossible_questions_are_rejected_when_built(build: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        build()


def test_multi_select_may_recommend_several() -> None:
    q = Question("q", "Q?", [Option(1, "x", recommended=True), Option(2, "y", recommended=True)], multi_select=True)
    assert [o.recommended for o in q.options] == [True, True]


@pytest.mark.parametrize(
    ("questions", "message", "match"),
    [
        ([], None, "at least one"),
        ([Question("a", "A?", [Option(1, "x")]), Question("a", "B?", [Option(1, "x")])], None, "'a'"),
        (
            [Question("a", "A?", [Option(1, "x")], allow_custom=True), Question("a_custom", "B?", [Option(1, "x")])],
            None,
            "'a_custom'",
        ),
        ([Question("a", "A?", [Option(1, "x")])], "  ", "message"),
    ],
)
def test_unaskable_question_sets_are_rejected(questions: list[Question[Any]], message: str | None, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        compile_questions(questions, message)


def test_a_question_whose_id_ends_in_custom_is_fine_without_a_clash() -> None:
    _, schema = wire([Question("a_custom", "A?", [Option(1, "x")]), Question("a", "B?", [Option(1, "y")])])
    assert list(schema["properties"]) == ["a_custom", "a"]


def test_imports_without_acp_kit_or_widgets() -> None:
    """pydantic-acp is only an optional dependency; agents elsewhere must still import this."""
    code = (
        "import sys\n"
        "for name in ('pydantic_acp', 'pydantic_ai', 'ipywidgets', 'anywidget'):\n"
        "    sys.modules[name] = None  # any import of them now raises ImportError\n"
        "import nbacp.questions\n"
        "print(issubclass(nbacp.questions.ElicitationNotSupportedError, RuntimeError))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
