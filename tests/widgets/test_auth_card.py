"""AuthCard: one model listing the agent's methods; a click and ``choose()`` run the same handler.

A method's click is ``{"event": "authenticate", "method_id", "seq"}`` on the card's comm,
Cancel is ``{"event": "cancel", "seq"}`` (docs/consent-cards.md, 'Authentication card').
"""

from __future__ import annotations

import json

import pytest
from acp import schema
from support.comm_support import RecordingComms
from support.feature_agents import auth_methods

from nbacp.answers import Script, cancel, decline
from nbacp.errors import ScriptError
from nbacp.widgets.auth_card import AuthCard


def press(comms: RecordingComms, card: AuthCard, event: str, **data: str) -> None:
    comms.custom(card, {**data, "event": event, "seq": 1})


def test_methods_with_descriptions_and_variables_never_a_secret_box() -> None:
    card = AuthCard(auth_methods(), agent="Codex", reason="The agent answered: Authentication required")
    spec = card.spec
    assert spec["kind"] == "auth" and spec["header"] == "Codex needs you to sign in before it can go on"
    assert spec["message"] == "The agent answered: Authentication required"
    key, chat, login = spec["methods"]
    assert key["description"] == "Use an API key from the environment"
    assert key["vars"] == [{"name": "FEATURE_API_KEY", "optional": False}, {"name": "FEATURE_ORG", "optional": True}]
    assert chat["vars"] == [] and chat["usable"]
    assert not login["usable"] and login["note"] == "Terminal sign-in is not supported in the notebook."
    assert [a["event"] for a in spec["actions"]] == ["cancel"]
    assert "secret" not in spec and card.draft == {}  # nothing typed, nothing synced or saved


def test_a_click_on_a_method_answers_its_id(comms: RecordingComms) -> None:
    card = AuthCard(auth_methods())
    press(comms, card, "authenticate", method_id="api-key")  # what the browser sends on a click
    assert card.done and card.response == "api-key"
    assert card.summary == "Authenticating with: API key" and card.settled


def test_a_terminal_method_cannot_be_chosen(comms: RecordingComms) -> None:
    card = AuthCard(auth_methods())
    with pytest.raises(ValueError, match="terminal"):
        card.choose("login")
    press(comms, card, "authenticate", method_id="login")  # a forged click is refused on the card
    assert not card.done and "Not an action of this card" in card.errors[""][0]


def test_the_cancel_button(comms: RecordingComms) -> None:
    card = AuthCard([{"id": "a", "name": "A"}])
    press(comms, card, "cancel")
    assert card.done and card.response is None and card.summary == "Cancelled: did not authenticate"


@pytest.mark.skipif(
    not hasattr(schema, "EnvVarAuthMethod"),
    reason="SDK 1.x removed EnvVarAuthMethod "
    "(docs/protocol.md, 'Two SDK lines'); raw auth methods are tested on both lines",
)
def test_schema_objects_and_dicts_are_both_methods() -> None:
    methods = [
        schema.EnvVarAuthMethod(
            id="k", name="Key", type="env_var", vars=[{"name": "K_API"}], link="https://example.com/keys"
        ),
        schema.AuthMethodAgent(id="a", name="Agent sign-in", description="In the agent"),
    ]
    spec = AuthCard(methods).spec
    assert spec["methods"][0]["vars"] == [{"name": "K_API", "optional": False}]
    assert spec["methods"][0]["link"] == "https://example.com/keys"
    assert spec["methods"][1]["description"] == "In the agent"
    card = AuthCard(methods)
    assert card.choose("Agent sign-in") and card.response == "a"


def test_policies_answer_authentication_cards() -> None:
    methods = [{"id": "api-key", "name": "API key"}]
    for policy in (decline, cancel, Script([{"authenticate": "cancel"}])):
        card = AuthCard(methods)
        policy(card)
        assert card.done and card.response is None
    card = AuthCard(methods)
    Script([{"expect": "auth", "authenticate": "API key"}])(card)
    assert card.response == "api-key"
    with pytest.raises(ScriptError, match="needs 'authenticate'"):
        Script([{"press": "accept"}])(AuthCard(methods))
    with pytest.raises(ValueError, match="'other' is not one of the agent's authentication methods"):
        Script([{"authenticate": "other"}])(AuthCard(methods))


def test_agent_text_is_made_visible(comms: RecordingComms) -> None:
    card = AuthCard([{"id": "x", "name": "Key\u202e", "description": "<b>hi</b>"}], agent="a\u200b")
    sent = json.dumps([s.data for s in comms.sent_to(card)], ensure_ascii=False)
    assert "\u202e" not in sent and "\u200b" not in sent
    assert card.spec["methods"][0]["name"] == "Key<U+202E>"
    assert card.spec["methods"][0]["description"] == "<b>hi</b>"  # text: the page writes it with textContent
