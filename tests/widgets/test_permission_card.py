"""PermissionCard: one button per option, choose by id or label, tool content as plain text."""

from __future__ import annotations

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
from support.comm_support import RecordingComms, assert_shown_as_text, texts, walk

from nbacp.widgets.permission_card import PermissionCard, unified_diff

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


# -- outcomes -------------------------------------------------------------------------------
@pytest.mark.parametrize("option_id", ["allow", "always", "reject", "never"])
async def test_each_button_answers_its_option(comms: RecordingComms, option_id: str) -> None:
    card = PermissionCard(tool_call(), options(), agent="coder")
    comms.click(card.buttons[option_id])
    assert await card == selected(option_id)
    assert all(button.comm is None for button in card.buttons.values())  # closed: nothing to click
    assert card.children == (card.summary,)


async def test_a_persons_no_is_the_reject_option_not_cancelled(comms: RecordingComms) -> None:
    card = PermissionCard(tool_call(), options())
    comms.click(card.buttons["reject"])
    response = await card
    assert isinstance(response.outcome, AllowedOutcome) and response.outcome.option_id == "reject"
    assert card.summary.value == "Chose: Reject (reject_once)"


async def test_double_click_resolves_once(comms: RecordingComms) -> None:
    card = PermissionCard(tool_call(), options())
    seen: list[RequestPermissionResponse] = []
    card.on_resolve(seen.append)
    comms.click(card.buttons["allow"])
    assert card.buttons["never"].comm is None  # the other buttons are closed with the card's controls
    assert seen == [selected("allow")]
    assert card.choose("never") is False
    assert await card == await card == selected("allow")


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
    assert card.summary.value == "Cancelled: turn cancelled"
    assert card.cancel_pending("again") is False
    assert card.choose("allow") is False


# -- rendering ------------------------------------------------------------------------------
def test_option_kinds_style_the_buttons() -> None:
    card = PermissionCard(tool_call(), options())
    styles = {option_id: button.button_style for option_id, button in card.buttons.items()}
    assert styles == {"allow": "success", "always": "success", "reject": "warning", "never": "danger"}
    assert [b.description for b in card.buttons.values()] == ["Allow once", "Always allow", "Reject", "Never"]
    assert "(allow_always)" in card.buttons["always"].tooltip
    assert "nbacp-option-reject-always" in card.buttons["never"]._dom_classes


def test_header_title_kind_status_and_location() -> None:
    shown = texts(PermissionCard(tool_call(), options(), agent="coder"))
    assert "coder asks permission to run a tool" in shown
    assert "Edit src/app.py" in shown
    assert "kind: edit · status: pending · id: call-7" in shown
    assert "Location: src/app.py:2" in shown


def test_diff_is_rendered_as_a_unified_diff() -> None:
    card = PermissionCard(tool_call(), options())
    diffs = [w for w in walk(card) if "nbacp-diff" in getattr(w, "_dom_classes", ())]
    assert len(diffs) == 1
    lines = diffs[0].value.splitlines()
    assert lines[:3] == ["--- a/src/app.py", "+++ b/src/app.py", "@@ -1,2 +1,2 @@"]
    assert lines[3:] == [" a = 1", "-b = 2", "+b = 3"]
    assert diffs[0].disabled
    assert "Edit: src/app.py" in texts(card)


def test_new_file_and_missing_newline_diffs() -> None:
    new = unified_diff("n.txt", None, "one\ntwo")
    assert new.splitlines() == [
        "--- /dev/null", "+++ b/n.txt", "@@ -0,0 +1,2 @@", "+one", "+two", "\\ No newline at end of file"
    ]
    assert unified_diff("same.txt", "x\n", "x\n") == "(no changes)"


def test_text_terminal_and_raw_input_content() -> None:
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
    card = PermissionCard(call, options())
    shown = texts(card)
    assert "pytest -q\nok" in shown
    assert "Terminal: term-3" in shown
    raw = [w for w in walk(card) if "nbacp-raw-input" in getattr(w, "_dom_classes", ())]
    assert raw and raw[0].value == '{\n  "command": [\n    "pytest",\n    "-q"\n  ],\n  "cwd": "/repo"\n}'
    accordion = [w for w in walk(card) if w.has_trait("selected_index") and w.has_trait("titles")]
    assert accordion[0].selected_index is None  # collapsed until asked for


def test_no_title_falls_back_to_the_tool_call_id() -> None:
    assert "call-9" in texts(PermissionCard(ToolCallUpdate(tool_call_id="call-9"), options()))


# -- safety ---------------------------------------------------------------------------------
def test_agent_strings_are_only_text(comms: RecordingComms) -> None:
    call = tool_call(
        title=XSS,
        content=[
            FileEditToolCallContent(type="diff", path=XSS, old_text=f"{XSS}\n", new_text="safe\n"),
            ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=XSS)),
            TerminalToolCallContent(type="terminal", terminal_id=XSS),
        ],
        locations=[ToolCallLocation(path=XSS, line=1)],
        raw_input={"payload": XSS},
    )
    opts = [PermissionOption(option_id=XSS, name=XSS, kind="allow_once")]
    card = PermissionCard(call, opts, agent=XSS)
    assert_shown_as_text(card, XSS, comms)
    assert card.buttons[XSS].description == XSS
    card.choose(XSS)
    assert_shown_as_text(card, XSS, comms)
    assert XSS in card.summary.value


def test_direction_overrides_in_titles_are_made_visible() -> None:
    card = PermissionCard(tool_call(title="read notes\u202etxt.exe"), options())
    assert "read notes<U+202E>txt.exe" in texts(card)


def test_the_answer_line_is_as_safe_as_the_button() -> None:
    option = PermissionOption(option_id="ok", name="\u202ePERM\ud800allow", kind="allow_once")
    card = PermissionCard(tool_call(), [option])
    assert card.buttons["ok"].description == "<U+202E>PERM\ufffdallow"
    card.choose("ok")
    assert card.summary.value == "Chose: <U+202E>PERM\ufffdallow (allow_once)"
    assert card.response is not None and card.response.outcome.option_id == "ok"
