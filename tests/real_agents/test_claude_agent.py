"""claude-agent-acp (npm, pinned) driven through nbacp.connect against a fake Anthropic Messages API.

Each test scripts the model (first response: a tool call; then a text echoing the tool's
result) and asserts the exact tool result claude handed back to its model.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agent_support import HANG, Recorder, claude_env, stop_while_a_question_is_open
from fake_models import ECHO, AnthropicFake, Call, Say, call_then_echo

import nbacp
from nbacp.answers import Script

pytestmark = pytest.mark.real_agents

FORMATS = Call(
    "AskUserQuestion",
    {
        "questions": [
            {
                "question": "Which formats should the export write?",
                "header": "Formats",
                "multiSelect": True,
                "options": [
                    {"label": "CSV", "description": "Plain text"},
                    {"label": "Parquet", "description": "Columnar"},
                ],
            }
        ]
    },
    id="toolu_formats",
)
DATABASE = Call(
    "AskUserQuestion",
    {
        "questions": [
            {
                "question": "Which database?",
                "header": "Database",
                "multiSelect": False,
                "options": [
                    {"label": "SQLite", "description": "A file"},
                    {"label": "Postgres", "description": "A server"},
                ],
            }
        ]
    },
    id="toolu_database",
)
TOUCH = Call("Bash", {"command": "touch made-by-claude.txt", "description": "Create a marker file"}, id="toolu_touch")


READ_CAREFULLY = (
    ". Read the answers carefully — they may request clarification, changes, or that you not proceed"
    " — and follow what they actually say."
)


async def run_claude(
    agents_bin: Path, home: Path, call: Call, answers: Any, *, mode: str | None = None
) -> tuple[AnthropicFake, Any, Recorder]:
    recorder = Recorder(answers)
    with AnthropicFake(call_then_echo(call)) as fake:
        command = [str(agents_bin / "claude-agent-acp")]
        async with nbacp.connect(command, env=claude_env(home, fake.url), answers=recorder) as conn:
            session = await conn.new_session(home)
            assert session.mode == "auto"
            if mode is not None:
                await session.set_mode(mode)
            result = await asyncio.wait_for(session.prompt("Go ahead."), HANG)
    return fake, result, recorder


async def test_multi_select_with_other(agents_bin: Path, tmp_path: Path) -> None:
    entry = {"pick": {"question_0": ["CSV", "Parquet"]}, "fill": {"question_0_custom": "Avro"}}
    fake, result, recorder = await run_claude(agents_bin, tmp_path, FORMATS, Script([entry]))
    assert recorder.kinds == ["form"]
    seen = fake.result_for(FORMATS.id)
    assert seen == 'The user answered: "Which formats should the export write?"="CSV, Parquet, Avro"' + READ_CAREFULLY
    assert ECHO + seen in result.text


async def test_single_select_with_note(agents_bin: Path, tmp_path: Path) -> None:
    entry = {"pick": {"question_0": "SQLite"}, "fill": {"question_0_custom": "ClickHouse"}}
    fake, _result, _ = await run_claude(agents_bin, tmp_path, DATABASE, Script([entry]))
    seen = fake.result_for(DATABASE.id)
    assert seen == 'The user answered: "Which database?"="SQLite" notes: ClickHouse' + READ_CAREFULLY


async def test_single_select_other_text_only(agents_bin: Path, tmp_path: Path) -> None:
    entry = {"fill": {"question_0_custom": "DuckDB"}}
    fake, _result, _ = await run_claude(agents_bin, tmp_path, DATABASE, Script([entry]))
    assert fake.result_for(DATABASE.id) == 'The user answered: "Which database?"="DuckDB"' + READ_CAREFULLY


async def test_decline(agents_bin: Path, tmp_path: Path) -> None:
    fake, _result, _ = await run_claude(agents_bin, tmp_path, DATABASE, Script([{"press": "decline"}]))
    assert fake.result_for(DATABASE.id) == "The user did not answer the questions."


async def test_cancel(agents_bin: Path, tmp_path: Path) -> None:
    fake, result, _ = await run_claude(agents_bin, tmp_path, DATABASE, Script([{"press": "cancel"}]))
    assert result.stop_reason == "end_turn"  # the tool fails; the turn goes on
    assert fake.result_for(DATABASE.id) == "Tool permission request failed: Error: Tool use aborted"


async def test_auto_mode_sends_no_permission_card(agents_bin: Path, tmp_path: Path) -> None:
    fake, _result, recorder = await run_claude(agents_bin, tmp_path, TOUCH, Script([]))
    assert recorder.kinds == []
    assert fake.result_for(TOUCH.id) == "(Bash completed with no output)"
    assert (tmp_path / "made-by-claude.txt").exists()


async def test_permission_allowed_after_mode_change(agents_bin: Path, tmp_path: Path) -> None:
    script = Script([{"choose": "allow_once"}])
    fake, _result, recorder = await run_claude(agents_bin, tmp_path, TOUCH, script, mode="default")
    assert recorder.kinds == ["permission"]
    assert [(o.option_id, o.kind) for o in recorder.cards[0].options] == [
        ("allow-once", "allow_once"),
        ("reject", "reject_once"),
    ]
    assert fake.result_for(TOUCH.id) == "(Bash completed with no output)"
    assert (tmp_path / "made-by-claude.txt").exists()


async def test_permission_rejected_after_mode_change(agents_bin: Path, tmp_path: Path) -> None:
    script = Script([{"choose": "reject_once"}])
    fake, _result, recorder = await run_claude(agents_bin, tmp_path, TOUCH, script, mode="default")
    assert recorder.kinds == ["permission"]
    assert fake.result_for(TOUCH.id) == "User refused permission to run tool"
    assert not (tmp_path / "made-by-claude.txt").exists()


async def test_session_loads_on_a_new_connection(agents_bin: Path, tmp_path: Path) -> None:
    with AnthropicFake(lambda fake, body: Say("Noted: teal.")) as fake:
        command = [str(agents_bin / "claude-agent-acp")]
        async with nbacp.connect(command, env=claude_env(tmp_path, fake.url)) as conn:
            session = await conn.new_session(tmp_path)
            await asyncio.wait_for(session.prompt("Remember the word teal."), HANG)
            session_id = session.id
        async with nbacp.connect(command, env=claude_env(tmp_path, fake.url)) as conn:
            listed = [s.session_id for s in await conn.list_sessions(tmp_path)]
            loaded = await conn.load_session(session_id, tmp_path)
            assert session_id in listed
            assert "Noted: teal." in loaded.history.text
            await asyncio.wait_for(loaded.prompt("Which word?"), HANG)
        last = fake.snapshot()[-1][1]
        said = [block.get("text") for m in last["messages"] for block in m["content"] if isinstance(block, dict)]
        assert "Remember the word teal." in said and "Noted: teal." in said and "Which word?" in said


async def test_stop_while_a_question_is_open(agents_bin: Path, tmp_path: Path) -> None:
    """The stop button (session.cancel) while the question card is open: the turn ends cancelled."""
    with AnthropicFake(call_then_echo(DATABASE)) as fake:
        command = [str(agents_bin / "claude-agent-acp")]
        await stop_while_a_question_is_open(command, claude_env(tmp_path, fake.url), tmp_path)
    # Two messages, depending on which of nbacp's two steps claude handles first: the card's cancel
    # reply (as for the card's Cancel button) or session/cancel (the SDK's interrupt).
    assert fake.result_for(DATABASE.id) in (
        "Tool permission request failed: Error: Tool use aborted",
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit,"
        " the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how"
        " to proceed.",
    )
