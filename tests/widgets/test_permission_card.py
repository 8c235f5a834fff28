"""PermissionCard: one model, one action per option, choose by id or label, what runs shown as text.

Clicks are the messages the page sends (docs/consent-cards.md, 'Permission card'):
``{"event": "option", "option_id", "seq"}`` on the card's own comm.
"""

from __future__ import annotations

import json

import pytest
from acp.schema import (
    AllowedOutcome,
    ContentToolCallContent,
    DeniedOutcome,
    FileEditToolCallContent,
    PermissionOption,
    RequestPermissionResponse,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallLocation,
    ToolCallUpdate,
)
from support.comm_support import RecordingComms

from nbacp.widgets.permission_card import PermissionCard

XSS = "<img src=x onerror=alert(1)>"


def options() -> list[PermissionOption]:
    return [
        PermissionOption(option_id="allow", name="Allow once", kind="allow_once"),
        PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
        PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
        PermissionOption(option_id="never", name="Never", kind="reject_always"),
    ]


def tool_call(**over: object) -> ToolCallUpdate:
    fields: dict[str, object] = {
        "tool_call_id": "call-7",
        "title": "Edit src/app.py",
        "kind": "edit",
        "status": "pending",
        "content": [
            FileEditToolCallContent(
                type="diff", path="src/app.py", old_text="a = 1\nb = 2\n", new_text="a = 1\nb = 3\n"
            )
        ],
        "locations": [ToolCallLocation(path="src/app.py", line=2)],
    }
    return ToolCallUpdate.model_validate(fields | over)


def selected(option_id: str) -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=AllowedOutcome(option_id=option_id, outcome="selected"))


_seq = iter(range(1, 1_000_000))


def click(comms: RecordingComms, card: PermissionCard, option_id: str) -> None:
    """What the page sends when a person clicks the option's button."""
    comms.custom(card, {"option_id": option_id, "event": "option", "seq": next(_seq)})


# -- outcomes -------------------------------------------------------------------------------
@pytest.mark.parametrize("option_id", ["allow", "always", "reject", "never"])
async def test_each_button_answers_its_option(comms: RecordingComms, option_id: str) -> None:
    card = PermissionCard(tool_call(), options(), agent="coder")
    click(comms, card, option_id)
    assert await card == selected(option_id)
    assert card.settled and card.phase == "answered" and "actions" not in card.spec  # only the summary is left


async def test_a_persons_no_is_the_reject_option_not_cancelled(comms: RecordingComms) -> None:
    card = PermissionCard(tool_call(), options())
    click(comms, card, "reject")
    response = await card
    assert isinstance(response.outcome, AllowedOutcome) and response.outcome.option_id == "reject"
    assert card.summary == "Chose: Reject (reject_once)"


async def test_double_click_resolves_once(comms: RecordingComms) -> None:
    card = PermissionCard(tool_call(), options())
    seen: list[RequestPermissionResponse] = []
    card.on_resolve(seen.append)
    click(comms, card, "allow")
    click(comms, card, "never")  # a second click that was already on its way
    assert seen == [selected("allow")]
    assert card.choose("never") is False
    assert await card == await card == selected("allow")


async def test_the_page_is_told_which_click_was_handled(comms: RecordingComms) -> None:
    card = PermissionCard(tool_call(), options())
    comms.custom(card, {"option_id": "gone", "event": "option", "seq": 5})  # a stale page's option
    assert not card.done and card.handled == 5
    assert "Not an action of this card" in card.errors[""][0]
    comms.custom(card, {"event": "accept", "seq": 6})  # not a permission card's action
    assert not card.done and card.handled == 6


async def test_choose_by_id_and_by_label() -> None:
    by_id = PermissionCard(tool_call(), options())
    assert by_id.choose("always") is True
    assert await by_id == selected("always")
    by_label = PermissionCard(tool_call(), options())
    by_label.choose("Never")
    assert await by_label == selected("never")


def test_choose_prefers_id_over_a_matching_label() -> None:
    opts = [
        PermissionOption(option_id="reject", name="Allow", kind="allow_once"),
        PermissionOption(option_id="x", name="reject", kind="reject_once"),
    ]
    card = PermissionCard(tool_call(), opts)
    card.choose("reject")
    assert card.response == selected("reject")


def test_unknown_option_names_the_choices() -> None:
    card = PermissionCard(tool_call(), options())
    with pytest.raises(ValueError, match="not an option") as info:
        card.choose("maybe")
    for option in options():
        assert option.option_id in str(info.value) and option.name in str(info.value)
    assert not card.done


def test_ambiguous_label_is_refused() -> None:
    opts = [
        PermissionOption(option_id="a", name="Yes", kind="allow_once"),
        PermissionOption(option_id="b", name="Yes", kind="allow_always"),
    ]
    with pytest.raises(ValueError, match="ambiguous"):
        PermissionCard(tool_call(), opts).choose("Yes")


async def test_cancel_pending_is_the_cancelled_outcome() -> None:
    card = PermissionCard(tool_call(), options())
    assert card.cancel_pending("turn cancelled") is True
    assert await card == RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
    assert card.summary == "Cancelled: turn cancelled"
    assert card.cancel_pending("again") is False
    assert card.choose("allow") is False


# -- what the card shows ----------------------------------------------------------------------
def test_one_action_per_option_in_the_agents_order() -> None:
    card = PermissionCard(tool_call(), options())
    actions = card.spec["actions"]
    assert [(a["event"], a["data"], a["label"]) for a in actions] == [
        ("option", {"option_id": "allow"}, "Allow once"),
        ("option", {"option_id": "always"}, "Always allow"),
        ("option", {"option_id": "reject"}, "Reject"),
        ("option", {"option_id": "never"}, "Never"),
    ]
    assert [a["style"] for a in actions] == ["primary", "default", "default", "default"]
    assert actions[1]["hint"] == "Allow, and do not ask again (allow_always)"
    assert not any(a.get("default") for a in actions)  # Enter never allows by itself
    assert "options" not in card.spec  # the actions are the options


def test_header_says_what_the_tool_does_and_ids_are_only_details() -> None:
    spec = PermissionCard(tool_call(), options(), agent="coder").spec
    assert spec["kind"] == "permission"
    assert spec["header"] == "coder asks permission to edit a file"
    assert spec["title"] == "Edit src/app.py"
    assert spec["locations"] == ["src/app.py:2"]
    assert spec["details"] == [["id", "call-7"], ["status", "pending"], ["kind", "edit"]]
    shown_outside_details = json.dumps({k: v for k, v in spec.items() if k != "details"})
    assert "call-7" not in shown_outside_details and "pending" not in shown_outside_details


def test_a_diff_is_lines_with_its_size() -> None:
    (diff,) = PermissionCard(tool_call(), options()).spec["diffs"]
    assert diff["path"] == "src/app.py" and not diff["new_file"]
    assert diff["lines"] == [["@", "@@ -1,2 +1,2 @@"], [" ", "a = 1"], ["-", "b = 2"], ["+", "b = 3"]]
    assert (diff["added"], diff["removed"]) == (1, 1)


def test_execute_shows_the_command_text_terminal_and_arguments() -> None:
    call = tool_call(
        kind="execute",
        title="Run tests",
        content=[
            ContentToolCallContent(type="content", content=TextContentBlock(type="text", text="pytest -q\nok")),
            TerminalToolCallContent(type="terminal", terminal_id="term-3"),
        ],
        locations=None,
        raw_input={"command": ["pytest", "-q"], "cwd": "/repo"},
    )
    spec = PermissionCard(call, options()).spec
    assert spec["header"] == "The agent asks permission to run a command"
    assert spec["command"] == {"text": "pytest -q", "cwd": "/repo"}
    assert spec["content"] == [{"kind": "text", "text": "pytest -q\nok"}, {"kind": "note", "text": "Terminal: term-3"}]
    assert [row["key"] for row in spec["args"]] == ["command", "cwd"]
    assert json.loads(spec["raw_json"]) == {"command": ["pytest", "-q"], "cwd": "/repo"}


def test_no_title_falls_back_to_the_tool_call_id_and_no_options_says_so() -> None:
    spec = PermissionCard(ToolCallUpdate(tool_call_id="call-9"), []).spec
    assert spec["title"] == "call-9" and spec["actions"] == []
    assert "only cancelling the turn can close this" in spec["message"]


def test_one_model_per_card(comms: RecordingComms) -> None:
    before = {s.comm_id for s in comms.sent if s.msg_type == "comm_open"}
    card = PermissionCard(tool_call(), options())
    opened = [s for s in comms.sent if s.msg_type == "comm_open" and s.comm_id not in before]
    mine = [s for s in opened if s.data["state"].get("_model_name") == "AnyModel" and s.data["state"].get("spec")]
    assert [s.comm_id for s in mine] == [card.model_id]
    assert len(opened) <= 3  # the card, and once per kernel the shared code model and layout


# -- safety ---------------------------------------------------------------------------------
def test_agent_strings_are_only_text_and_never_obeyed(comms: RecordingComms) -> None:
    call = tool_call(
        title=XSS + "\u202e",
        content=[
            FileEditToolCallContent(type="diff", path=XSS, old_text=f"{XSS}\n", new_text="safe\n"),
            ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=XSS)),
            TerminalToolCallContent(type="terminal", terminal_id=XSS),
        ],
        locations=[ToolCallLocation(path=XSS, line=1)],
        raw_input={"payload": XSS},
    )
    card = PermissionCard(call, [PermissionOption(option_id=XSS, name=XSS, kind="allow_once")], agent=XSS)
    sent = json.dumps([s.data for s in comms.sent_to(card)], ensure_ascii=False)
    assert XSS in sent and "\u202e" not in sent and "<U+202E>" in sent
    assert card.spec["actions"][0]["label"] == XSS  # the page writes it with textContent (js tests)
    card.choose(XSS)
    assert XSS in card.summary


def test_direction_overrides_in_titles_are_made_visible() -> None:
    card = PermissionCard(tool_call(title="read notes\u202etxt.exe"), options())
    shown = json.dumps(card.spec, ensure_ascii=False)
    assert "read notes<U+202E>txt.exe" in shown and "\u202e" not in shown


def test_the_answer_line_is_as_safe_as_the_button() -> None:
    option = PermissionOption(option_id="ok", name="\u202ePERM\ud800allow", kind="allow_once")
    card = PermissionCard(tool_call(), [option])
    assert card.spec["actions"][0]["label"] == "<U+202E>PERM\ufffdallow"  # the button's label
    card.choose("ok")
    assert card.summary == "Chose: <U+202E>PERM\ufffdallow (allow_once)"
    assert card.response is not None and card.response.outcome.option_id == "ok"
