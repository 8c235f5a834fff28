"""Notes vs. Other: a companion box either replaces a single-select's pick or annotates it.

Measured with the real agents (docs/agents.md): codex-acp asks each question as a required
single-select with "None of the above" plus ``<id>_note`` marked ``_meta.codex.role =
"user_note"`` (older builds: ``<id>__other``); claude-agent-acp >= 0.78 keeps the pick and passes
the companion's text as a note on single-selects, and says so in the companion's description.
A person who means "SQLite, and a note" must not silently lose SQLite.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.agents import SchemaAgent

import nbacp
from nbacp.answers import Script
from nbacp.form import Form
from nbacp.widgets import FormCard
from nbacp.widgets.form_spec import question_spec

CLAUDE_SINGLE_078 = "Type your own answer, or add a note to the option you chose above (optional)."
CLAUDE_SINGLE_LEGACY = "Type your own answer instead of choosing an option above (optional)."
CLAUDE_MULTI = "Type your own answer to add to your selection above (optional)."
DATABASES = [{"const": c, "title": c} for c in ("SQLite", "Postgres", "DuckDB")]


def claude_schema(description: str, *, multi: bool = False) -> dict[str, Any]:
    """claude-agent-acp's AskUserQuestion form for one question (as its elicitation.ts builds it)."""
    marker = {"questionId": "question_0", "isCustomAnswer": True}
    choice: dict[str, Any] = {"title": "Database"}
    choice |= {"type": "array", "items": {"anyOf": DATABASES}} if multi else {"type": "string", "oneOf": DATABASES}
    return {
        "type": "object",
        "properties": {
            "question_0": choice,
            "question_0_custom": {
                "type": "string",
                "title": "Other",
                "description": description,
                "_meta": {"_askUserQuestionCustomAnswer": marker},
            },
        },
    }


def codex_schema(*, legacy_name: bool = False) -> dict[str, Any]:
    """codex-acp's request_user_input form: required single-select + "None of the above" + a note box."""
    note_name = "db__other" if legacy_name else "db_note"
    note: dict[str, Any] = {"type": "string", "title": "Additional answer or note"}
    if not legacy_name:
        note["_meta"] = {"codex": {"questionId": "db", "role": "user_note", "isSecret": False}}
    options = [
        *DATABASES,
        {
            "const": "None of the above",
            "title": "None of the above",
            "description": "Provide a different answer in the note field.",
        },
    ]
    return {
        "type": "object",
        "properties": {
            "db": {
                "type": "string",
                "title": "Which database?",
                "description": "Database",
                "oneOf": options,
                "_meta": {"codex": {"isOther": True, "isSecret": False}},
            },
            note_name: note,
        },
        "required": ["db"],
    }


# -- pairing and roles -------------------------------------------------------------------


def test_codex_note_pairs_by_its_meta_and_is_a_note() -> None:
    form = Form.from_schema(codex_schema())
    (question,) = form.questions
    assert question.custom is not None and question.custom.name == "db_note"
    assert question.role == "note" and question.is_note and not question.exclusive
    assert form.question("db_note") is question


def test_codex_older_double_underscore_other_pairs_with_its_id() -> None:
    form = Form.from_schema(codex_schema(legacy_name=True))
    (question,) = form.questions
    assert question.custom is not None and question.custom.name == "db__other"
    assert question.role == "other"  # nothing declares it a note: the seed rule
    assert form.content({"db": "SQLite", "db__other": "Redis"}) == {"db__other": "Redis"}


def test_a_note_suffix_alone_names_a_note() -> None:
    form = Form.from_schema({"properties": {"x": {"type": "string", "enum": ["a", "b"]}, "x_note": {"type": "string"}}})
    assert form.questions[0].role == "note"
    assert form.content({"x": "a", "x_note": "why"}) == {"x": "a", "x_note": "why"}


def test_explicit_markers_win_over_names() -> None:
    schema = {
        "properties": {
            "a": {"type": "string", "enum": ["1", "2"]},
            "b": {"type": "string", "enum": ["3", "4"]},
            # named like a's note, marked as b's note: the marker decides
            "a_note": {"type": "string", "_meta": {"codex": {"questionId": "b", "role": "user_note"}}},
            # named like a's Other, marked as a's note: the marker decides the role too
            "a__other": {"type": "string", "_meta": {"codex": {"questionId": "a", "role": "user_note"}}},
        }
    }
    form = Form.from_schema(schema)
    pairs = {q.name: (q.custom.name if q.custom else None, q.role) for q in form.questions}
    assert pairs == {"a": ("a__other", "note"), "b": ("a_note", "note")}


def test_a_jetbrains_marker_on_a_note_named_box_is_an_other() -> None:
    marker = {"jetbrains": {"air": {"customAnswer": {"questionId": "x", "isCustomAnswer": True}}}}
    schema = {"properties": {"x": {"type": "string", "enum": ["a"]}, "x_note": {"type": "string", "_meta": marker}}}
    assert Form.from_schema(schema).questions[0].role == "other"


@pytest.mark.parametrize(
    ("description", "multi", "role"),
    [
        (CLAUDE_SINGLE_078, False, "note"),
        (CLAUDE_SINGLE_078.upper().replace(".", ""), False, "note"),
        (CLAUDE_SINGLE_LEGACY, False, "other"),
        (None, False, "other"),
        (CLAUDE_MULTI, True, "other"),
        (CLAUDE_SINGLE_078, True, "other"),  # the phrase only speaks of a single choice
    ],
)
def test_claude_companion_role_follows_what_its_release_says(description: str | None, multi: bool, role: str) -> None:
    schema = claude_schema(description or "", multi=multi)
    if description is None:
        del schema["properties"]["question_0_custom"]["description"]
    assert Form.from_schema(schema).questions[0].role == role


# -- what goes on the wire -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "content"),
    [
        (
            {"question_0": "SQLite", "question_0_custom": "ClickHouse later"},
            {"question_0": "SQLite", "question_0_custom": "ClickHouse later"},
        ),  # pick + note: both
        ({"question_0_custom": " ClickHouse "}, {"question_0_custom": "ClickHouse"}),  # text only: the answer
        ({"question_0": "SQLite"}, {"question_0": "SQLite"}),
        ({"question_0": "SQLite", "question_0_custom": "   "}, {"question_0": "SQLite"}),
    ],
)
def test_claude_078_single_select_keeps_the_pick_with_a_note(values: dict[str, Any], content: dict[str, Any]) -> None:
    assert Form.from_schema(claude_schema(CLAUDE_SINGLE_078)).content(values) == content


def test_claude_legacy_single_select_is_exclusive() -> None:
    form = Form.from_schema(claude_schema(CLAUDE_SINGLE_LEGACY))
    assert form.content({"question_0": "SQLite", "question_0_custom": "ClickHouse"}) == {
        "question_0_custom": "ClickHouse"
    }


def test_claude_multi_select_keeps_picks_and_text_as_before() -> None:
    form = Form.from_schema(claude_schema(CLAUDE_MULTI, multi=True))
    assert form.content({"question_0": ["SQLite", "DuckDB"], "question_0_custom": "Avro"}) == {
        "question_0": ["SQLite", "DuckDB"],
        "question_0_custom": "Avro",
    }


def test_codex_sends_the_pick_and_the_note_and_needs_a_pick() -> None:
    form = Form.from_schema(codex_schema())
    assert form.content({"db": "DuckDB", "db_note": "in-process"}) == {"db": "DuckDB", "db_note": "in-process"}
    assert form.content({"db": "None of the above", "db_note": "Redis"}) == {
        "db": "None of the above",
        "db_note": "Redis",
    }
    assert form.validate({"db_note": "Redis"}) == {
        "db": ["Pick an option: the note is sent with your choice, not instead of it."]
    }
    assert form.validate({}) == {"db": ["Pick an option."]}


# -- the card says which it is ---------------------------------------------------------------


def test_the_card_labels_the_box_by_what_its_text_does() -> None:
    note = question_spec(Form.from_schema(codex_schema()).questions[0])["custom"]
    other = question_spec(Form.from_schema(claude_schema(CLAUDE_SINGLE_LEGACY)).questions[0])["custom"]
    multi = question_spec(Form.from_schema(claude_schema(CLAUDE_MULTI, multi=True)).questions[0])["custom"]
    assert (note["title"], note["mode"]) == ("Note on your choice", "note")
    assert note["description"] == "Additional answer or note"  # codex's own name for the box is kept
    assert (other["title"], other["mode"]) == ("Other (replaces your choice)", "other")
    assert other["description"] is None and other["placeholder"] == CLAUDE_SINGLE_LEGACY  # one line, not three
    assert (multi["title"], multi["mode"]) == ("Other", "add")


def test_a_note_never_shows_the_pick_as_overridden() -> None:
    view = FormCard("Which database?", claude_schema(CLAUDE_SINGLE_078))
    view.pick("question_0", "SQLite")
    view.fill("question_0_custom", "ClickHouse later")
    assert view.spec["fields"][0]["custom"]["mode"] == "note"  # the page never strikes the pick through
    view.accept()
    assert view.response is not None
    assert view.response.content == {"question_0": "SQLite", "question_0_custom": "ClickHouse later"}


# -- over ACP, from real peers -------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "entry", "content"),
    [
        (
            claude_schema(CLAUDE_SINGLE_078),
            {"pick": {"question_0": "SQLite"}, "fill": {"question_0_custom": "notes"}},
            {"question_0": "SQLite", "question_0_custom": "notes"},
        ),
        (
            claude_schema(CLAUDE_SINGLE_LEGACY),
            {"pick": {"question_0": "SQLite"}, "fill": {"question_0_custom": "x"}},
            {"question_0_custom": "x"},
        ),
        (
            codex_schema(),
            {"pick": {"db": "None of the above"}, "fill": {"db_note": "Redis"}},
            {"db": "None of the above", "db_note": "Redis"},
        ),
    ],
    ids=["claude-0.78-note", "claude-legacy-other", "codex-note"],
)
async def test_the_agent_receives_what_its_encoding_means(
    schema: dict[str, Any], entry: dict[str, Any], content: dict[str, Any]
) -> None:
    agent = SchemaAgent("Which database?", schema)
    async with nbacp.connect(agent, answers=Script([entry])) as conn:
        await (await conn.new_session(".")).prompt("go")
    (reply,) = agent.replies
    assert reply.action == "accept" and reply.content == content


def test_an_uncheckable_pattern_on_a_text_box_is_shown_on_the_card() -> None:
    schema = claude_schema(CLAUDE_SINGLE_LEGACY)
    schema["properties"]["question_0_custom"]["pattern"] = "(?x) a"  # Python syntax, not ECMAScript
    spec = question_spec(Form.from_schema(schema).questions[0])["custom"]
    assert spec["placeholder"] == CLAUDE_SINGLE_LEGACY and "could not be checked" in spec["description"]
