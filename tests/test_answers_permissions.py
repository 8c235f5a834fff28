"""Permission scripts name an ACP option kind, so one script works with every agent.

Option ids differ per agent for the same meaning (measured with the real agents, see the
docs/agents.md): claude-agent-acp ``allow-once`` / ``reject``, codex-acp ``allow_once`` /
``accept_execpolicy_amendment`` / ``cancel``, gemini-cli ``proceed_always`` /
``proceed_once`` / ``cancel``. ``{"choose": "allow_once"}`` must pick the allow-once option
of each, and a script that names nothing or several options must leave the card for a person.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp.schema import PermissionOption, PromptResponse, ToolCallUpdate
from support.agents import RawAgent
from support.builders import text_block, update_agent_message

import nbacp
from nbacp.answers import Script, permission_option
from nbacp.errors import ScriptError
from nbacp.widgets import PermissionCard

AGENT_OPTIONS: dict[str, list[tuple[str, str, str]]] = {
    "claude-agent-acp": [("allow-once", "Allow", "allow_once"), ("reject", "Reject", "reject_once")],
    "codex-acp": [
        ("allow_once", "Yes", "allow_once"),
        ("accept_execpolicy_amendment", "Yes, and don't ask again for this command", "allow_always"),
        ("cancel", "No, and tell Codex what to do differently", "reject_once"),
    ],
    "gemini-cli": [
        ("proceed_always", "Allow All Edits", "allow_always"),
        ("proceed_once", "Allow", "allow_once"),
        ("cancel", "Reject", "reject_once"),
    ],
}


def options_of(agent: str) -> list[PermissionOption]:
    return [PermissionOption(option_id=i, name=n, kind=k) for i, n, k in AGENT_OPTIONS[agent]]  # type: ignore[arg-type]


def card_for(options: list[PermissionOption]) -> PermissionCard:
    return PermissionCard(ToolCallUpdate(tool_call_id="t", title="Run ls"), options)


@pytest.mark.parametrize(
    ("agent", "wanted", "chosen"),
    [
        ("claude-agent-acp", "allow_once", "allow-once"),
        ("claude-agent-acp", "reject_once", "reject"),
        ("codex-acp", "allow_once", "allow_once"),
        ("codex-acp", "allow_always", "accept_execpolicy_amendment"),
        ("codex-acp", "reject_once", "cancel"),
        ("gemini-cli", "allow_once", "proceed_once"),
        ("gemini-cli", "allow_always", "proceed_always"),
        ("gemini-cli", "reject_once", "cancel"),
    ],
)
def test_a_kind_picks_each_agents_own_option(agent: str, wanted: str, chosen: str) -> None:
    card = card_for(options_of(agent))
    Script([{"choose": wanted}])(card)
    assert card.response is not None and card.response.outcome.option_id == chosen  # type: ignore[union-attr]


def test_kind_comes_before_id_and_label() -> None:
    # An option whose id is another option's kind: the kind decides.
    options = [
        PermissionOption(option_id="allow_always", name="Once", kind="allow_once"),
        PermissionOption(option_id="forever", name="allow_once", kind="allow_always"),
    ]
    assert permission_option(card_for(options), "allow_once") == "allow_always"
    assert permission_option(card_for(options), "allow_always") == "forever"


def test_id_then_label_when_no_kind_matches() -> None:
    card = card_for(options_of("gemini-cli"))
    assert permission_option(card, "proceed_once") == "proceed_once"
    assert permission_option(card, "Allow All Edits") == "proceed_always"


def test_a_kind_offered_twice_is_ambiguous_and_names_the_options() -> None:
    options = [
        PermissionOption(option_id="always-cmd", name="Always for this command", kind="allow_always"),
        PermissionOption(option_id="always-dir", name="Always in this folder", kind="allow_always"),
        PermissionOption(option_id="no", name="No", kind="reject_once"),
    ]
    card = card_for(options)
    with pytest.raises(ScriptError, match="matches 2 options by kind") as info:
        Script([{"choose": "allow_always"}])(card)
    assert "'always-cmd'" in str(info.value) and "'always-dir'" in str(info.value)
    assert not card.done
    # an id is unique, so naming one still works where the kind is ambiguous
    assert permission_option(card, "always-dir") == "always-dir"


def test_nothing_matching_is_an_error_naming_the_offered_options() -> None:
    card = card_for(options_of("claude-agent-acp"))
    with pytest.raises(ScriptError, match="matches no option's kind, id or label") as info:
        Script([{"choose": "allow_always"}])(card)
    assert "'allow-once' ('Allow', allow_once)" in str(info.value)
    assert not card.done


def test_a_label_shared_by_two_options_is_ambiguous() -> None:
    options = [
        PermissionOption(option_id="a", name="Allow", kind="allow_once"),
        PermissionOption(option_id="b", name="Allow", kind="allow_always"),
    ]
    with pytest.raises(ScriptError, match="matches 2 options by label"):
        permission_option(card_for(options), "Allow")


class OptionsAgent(RawAgent):
    """A real ACP peer asking for permission with a given agent's options; says the chosen id."""

    def __init__(self, options: list[PermissionOption]) -> None:
        super().__init__()
        self.options = options

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        tool_call = ToolCallUpdate(tool_call_id="call-1", title="Run ls", kind="execute", status="pending")
        response = await self.conn.request_permission(session_id=session_id, tool_call=tool_call, options=self.options)
        outcome = response.outcome
        said = outcome.option_id if outcome.outcome == "selected" else outcome.outcome
        await self.conn.session_update(session_id=session_id, update=update_agent_message(text_block(said)))
        return PromptResponse(stop_reason="end_turn")


@pytest.mark.parametrize("agent", sorted(AGENT_OPTIONS))
async def test_the_readme_script_answers_every_agent_over_acp(agent: str) -> None:
    policy = Script([{"choose": "allow_once"}])
    async with nbacp.connect(OptionsAgent(options_of(agent)), answers=policy) as conn:
        result = await (await conn.new_session(".")).prompt("list files")
    expected = {"claude-agent-acp": "allow-once", "codex-acp": "allow_once", "gemini-cli": "proceed_once"}
    assert result.text == expected[agent]


async def test_an_ambiguous_script_leaves_the_card_for_a_person_with_the_error_on_it() -> None:
    options = [
        PermissionOption(option_id="always-cmd", name="Always for this command", kind="allow_always"),
        PermissionOption(option_id="always-dir", name="Always in this folder", kind="allow_always"),
    ]
    async with nbacp.connect(OptionsAgent(options), answers=Script([{"choose": "allow_always"}])) as conn:
        session = await conn.new_session(".")
        turn = session.start("list files")
        async with asyncio.timeout(10):
            while not conn.client.open_cards(session.id):
                await asyncio.sleep(0.01)
        (card,) = conn.client.open_cards(session.id)
        assert not card.done
        shown = " ".join(card.errors.get("", []))  # the card-level message the page shows
        assert "matches 2 options by kind" in shown and "always-dir" in shown
        card.choose("always-dir")  # the person answers
        result = await turn
    assert result.text == "always-dir"
