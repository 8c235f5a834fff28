"""Every card gives typed answers for ``result.answers`` and the record (docs/record.md, 'Answers').

Real cards answered through the same methods a person's clicks call; ``recorded_answers`` is
what the client reads from each once it is resolved.
"""

from __future__ import annotations

import pytest
from acp.schema import PermissionOption, ToolCallUpdate

from nbacp.form.card_answer import CardAnswer
from nbacp.widgets.auth_card import AuthCard
from nbacp.widgets.form_card import FormCard
from nbacp.widgets.permission_card import PermissionCard
from nbacp.widgets.url_card import UrlConsentCard

SCHEMA = {
    "type": "object",
    "properties": {
        "datasets": {"type": "array", "title": "Datasets", "items": {"anyOf": [
            {"const": "o", "title": "Orders"}, {"const": "e", "title": "Events"}, {"const": "c", "title": "Customers"},
        ]}},
        "datasets_custom": {"type": "string", "title": "Other"},
        "schedule": {"type": "string", "title": "Schedule", "oneOf": [
            {"const": "now", "title": "Right now"}, {"const": "night", "title": "Tonight"},
        ]},
        "schedule_custom": {"type": "string", "title": "Other"},
        "workers": {"type": "integer", "title": "Workers"},
        "dry_run": {"type": "boolean", "title": "Dry run"},
        "note": {"type": "string", "title": "Note"},
    },
}  # fmt: skip


def test_a_form_gives_one_typed_answer_per_question_with_its_title() -> None:
    card = FormCard("Please answer 5 questions", SCHEMA)
    card.pick("datasets", "Orders", "Events")
    card.fill("datasets_custom", " clickstream ")
    card.pick("schedule", "Tonight")
    card.fill("workers", 8)
    card.fill("dry_run", True)
    card.fill("note", "after the backup")
    assert card.accept()
    answers = card.recorded_answers("question", card.message)
    assert [(a.question, a.action, a.value, a.custom) for a in answers] == [
        ("Datasets", "accept", ["o", "e"], "clickstream"),
        ("Schedule", "accept", "night", None),
        ("Workers", "accept", 8, None),
        ("Dry run", "accept", True, None),
        ("Note", "accept", "after the backup", None),
    ]
    assert [str(a) for a in answers][:3] == ["Accepted: Orders, Events + “clickstream”", "Accepted: Tonight",
                                             "Accepted: 8"]  # fmt: skip
    kind, question, line = answers[1]
    assert (kind, question, line) == ("question", "Schedule", "Accepted: Tonight") == answers[1]


def test_a_single_selects_other_text_is_its_value() -> None:
    card = FormCard(
        "When?",
        {
            "type": "object",
            "properties": {
                k: SCHEMA["properties"][k]  # type: ignore[index]
                for k in ("schedule", "schedule_custom")
            },
        },
    )
    card.pick("schedule", "Right now")
    card.fill("schedule_custom", "after the backup")
    assert card.accept()
    (answer,) = card.recorded_answers("question", card.message)
    assert (answer.question, answer.value, answer.custom) == ("When?", "after the backup", "after the backup")


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_decline_and_cancel_are_one_answer_for_the_card_with_no_value(action: str) -> None:
    card = FormCard("Please answer 5 questions", SCHEMA)
    getattr(card, action)()
    assert card.recorded_answers("question", card.message) == [
        CardAnswer("question", "Please answer 5 questions", action, None, line=card.summary)
    ]


def permission() -> PermissionCard:
    call = ToolCallUpdate(tool_call_id="c", title="Write notes.txt", kind="edit", status="pending")
    return PermissionCard(call, [PermissionOption(option_id="allow", name="Allow once", kind="allow_once"),
                                 PermissionOption(option_id="deny", name="Reject", kind="reject_once")])  # fmt: skip


@pytest.mark.parametrize(("choice", "action", "value"), [("allow", "accept", "allow"), ("deny", "decline", None)])
def test_a_permissions_allow_is_an_accept_and_its_reject_a_decline(choice: str, action: str, value: object) -> None:
    card = permission()
    card.choose(choice)
    (answer,) = card.recorded_answers("permission", "Write notes.txt")
    assert (answer.kind, answer.action, answer.value) == ("permission", action, value)
    assert str(answer).startswith("Chose: ")


def test_a_cancelled_permission_and_url_consent() -> None:
    card = permission()
    card.cancel_pending("the turn ended")
    assert card.recorded_answers("permission", "q")[0].action == "cancel"
    url = UrlConsentCard("Sign in", "https://example.com/login", "e1")
    url.consent()
    (answer,) = url.recorded_answers("url", "Sign in")
    assert (answer.action, answer.value) == ("accept", "https://example.com/login")


def test_an_auth_card_gives_the_method_or_a_cancel() -> None:
    methods = [{"id": "chat-gpt", "name": "Sign in with ChatGPT"}]
    chosen = AuthCard(methods)
    chosen.choose("chat-gpt")
    assert chosen.recorded_answers("auth", "Authentication required")[0].value == "chat-gpt"
    cancelled = AuthCard(methods)
    cancelled.cancel()
    assert cancelled.recorded_answers("auth", "Authentication required")[0].action == "cancel"
