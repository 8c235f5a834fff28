"""Headless answer policies act through the cards' own methods, and say clearly when a script is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp.schema import PermissionOption, ToolCallUpdate

from nbacp.answers import Script, cancel, decline, from_env, parse_policy
from nbacp.errors import ScriptError
from nbacp.widgets import FormCard, PermissionCard, UrlConsentCard

SCHEMA = {
    "type": "object",
    "properties": {
        "q": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "Alpha"}, {"const": "b", "title": "Beta"}]}},
        "q_custom": {"type": "string", "title": "Other"},
    },
}


def permission() -> PermissionCard:
    options = [
        PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
        PermissionOption(option_id="never", name="Never", kind="reject_always"),
        PermissionOption(option_id="no", name="Not now", kind="reject_once"),
    ]
    return PermissionCard(ToolCallUpdate(tool_call_id="t", title="Run"), options)


def test_script_answers_cards_in_order() -> None:
    script = Script(
        [
            {"expect": "form", "pick": {"q": ["Alpha", "Beta"]}, "fill": {"q_custom": "gamma"}},
            {"choose": "Not now"},
            {"press": "open"},
        ]
    )
    form, perm = FormCard("?", SCHEMA), permission()
    url = UrlConsentCard("Sign in", "https://example.com/x", "e1")
    for card in (form, perm, url):
        script(card)
    assert form.response is not None and form.response.content == {"q": ["a", "b"], "q_custom": "gamma"}
    assert perm.response is not None and perm.response.outcome.option_id == "no"
    assert url.response is not None and url.response.action == "accept"
    assert script.remaining == 0


def test_exhausted_script_leaves_cards_for_a_person() -> None:
    script = Script([])
    form = FormCard("?", SCHEMA)
    script(form)
    assert not form.done


def test_script_that_does_not_fit_the_card_says_so() -> None:
    with pytest.raises(ScriptError, match="expects a permission card"):
        Script([{"expect": "permission", "choose": "x"}])(FormCard("?", SCHEMA))
    with pytest.raises(ScriptError, match="needs 'choose'"):
        Script([{"press": "accept"}])(permission())
    with pytest.raises(ScriptError, match="'press' must be one of"):
        Script([{"press": "maybe"}])(FormCard("?", SCHEMA))
    with pytest.raises(ValueError, match="not an option"):
        Script([{"pick": {"q": ["Gamma"]}}])(FormCard("?", SCHEMA))
    with pytest.raises(ScriptError, match="must be an object"):
        Script(["accept"])  # type: ignore[list-item]


def test_decline_picks_the_reject_once_option_and_declines_forms() -> None:
    perm, form = permission(), FormCard("?", SCHEMA)
    decline(perm)
    decline(form)
    assert perm.response is not None and perm.response.outcome.option_id == "no"
    assert form.response is not None and form.response.action == "decline"


def test_cancel_dismisses_forms_but_never_answers_permissions() -> None:
    perm, form = permission(), FormCard("?", SCHEMA)
    cancel(perm)
    cancel(form)
    assert not perm.done
    assert form.response is not None and form.response.action == "cancel"


def test_from_env_reads_inline_json_files_folders_and_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NBACP_ANSWERS", raising=False)
    assert from_env() is None
    monkeypatch.setenv("NBACP_ANSWERS", '[{"press": "decline"}]')
    policy = from_env()
    assert isinstance(policy, Script) and policy.entries == [{"press": "decline"}]
    file = tmp_path / "a.json"
    file.write_text(json.dumps({"answers": [{"choose": "yes"}]}))
    monkeypatch.setenv("NBACP_ANSWERS", str(file))
    assert from_env().entries == [{"choose": "yes"}]  # type: ignore[union-attr]
    (tmp_path / "quickstart.json").write_text("[]")
    monkeypatch.setenv("NBACP_ANSWERS", str(tmp_path))
    assert isinstance(from_env("quickstart"), Script)
    assert from_env("other") is None
    with pytest.raises(ScriptError, match="is a folder"):
        from_env()
    assert parse_policy("decline") is decline and parse_policy("cancel") is cancel
    with pytest.raises(ScriptError, match="not valid JSON"):
        parse_policy("[nope")
    with pytest.raises(ScriptError, match="neither"):
        parse_policy("/no/such/file.json")
