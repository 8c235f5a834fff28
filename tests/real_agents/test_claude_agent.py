"""claude-agent-acp (npm, pinned) driven through nbacp.connect against a fake Anthropic Messages API.

Each test scripts the model (first response: a tool call; then a text echoing the tool's
result) and asserts the exact tool result claude handed back to its model.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agent_support import HANG, Recorder, agent_env
from fake_models import ECHO, AnthropicFake, Call, call_then_echo

import nbacp
from nbacp.answers import Script

pytestmark = pytest.mark.real_agents

FORMATS = Call("AskUserQuestion", {"questions": [{
    "question": "Which formats should the export write?", "header": "Formats", "multiSelect": True,
    "options": [{"label": "CSV", "description": "Plain text"}, {"label": "Parquet", "description": "Columnar"}],
}]}, id="toolu_formats")
DATABASE = Call("AskUserQuestion", {"questions": [{
    "question": "Which database?", "header": "Database", "multiSelect": False,
    "options": [{"label": "SQLite", "description": "A file"}, {"label": "Postgres", "description": "A server"}],
}]}, id="toolu_database")
TOUCH = Call("Bash", {"command": "touch made-by-claude.txt", "description": "Create a marker file"}, id="toolu_touch")


def claude_env(home: Path, fake: AnthropicFake) -> dict[str, str]:
    return agent_env(home, {
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": "sk-ant-fake",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    })


async def run_claude(agents_bin: Path, home: Path, call: Call, answers: Any, *, mode: str | None = None) -> tuple[
    AnthropicFake, Any, Recorder
]:
    recorder = Recorder(answers)
    with AnthropicFake(call_then_echo(call)) as fake:
        command = [str(agents_bin / "claude-agent-acp")]
        async with nbacp.connect(command, env=claude_env(home, fake), answers=recorder) as conn:
            session = await conn.new_session(home)
            if mode is not None:
                await conn.agent.set_session_mode(session_id=session.id, mode_id=mode)
            result = await asyncio.wait_for(session.prompt("Go ahead."), HANG)
    return fake, result, recorder


async def test_multi_select_with_other(agents_bin: Path, tmp_path: Path) -> None:
    entry = {"pick": {"question_0": ["CSV", "Parquet"]}, "fill": {"question_0_custom": "Avro"}}
    fake, result, recorder = await run_claude(agents_bin, tmp_path, FORMATS, Script([entry]))
    assert recorder.kinds == ["form"]
    seen = fake.result_for(FORMATS.id)
    assert seen == ""
    assert ECHO + seen in result.text


async def test_single_select_with_other(agents_bin: Path, tmp_path: Path) -> None:
    entry = {"pick": {"question_0": "SQLite"}, "fill": {"question_0_custom": "ClickHouse"}}
    fake, _result, _ = await run_claude(agents_bin, tmp_path, DATABASE, Script([entry]))
    assert fake.result_for(DATABASE.id) == ""


async def test_other_text_only(agents_bin: Path, tmp_path: Path) -> None:
    entry = {"fill": {"question_0_custom": "DuckDB"}}
    fake, _result, _ = await run_claude(agents_bin, tmp_path, DATABASE, Script([entry]))
    assert fake.result_for(DATABASE.id) == ""


async def test_decline(agents_bin: Path, tmp_path: Path) -> None:
    fake, _result, _ = await run_claude(agents_bin, tmp_path, DATABASE, Script([{"press": "decline"}]))
    assert fake.result_for(DATABASE.id) == ""


async def test_cancel(agents_bin: Path, tmp_path: Path) -> None:
    fake, result, _ = await run_claude(agents_bin, tmp_path, DATABASE, Script([{"press": "cancel"}]))
    assert result.stop_reason == ""
    assert fake.result_for(DATABASE.id) == ""


async def test_auto_mode_sends_no_permission_card(agents_bin: Path, tmp_path: Path) -> None:
    fake, _result, recorder = await run_claude(agents_bin, tmp_path, TOUCH, Script([]))
    assert recorder.kinds == []
    assert fake.result_for(TOUCH.id) == ""


async def test_permission_allowed_in_default_mode(agents_bin: Path, tmp_path: Path) -> None:
    fake, _result, recorder = await run_claude(agents_bin, tmp_path, TOUCH, Script([{"choose": "allow-once"}]),
                                               mode="default")
    assert recorder.kinds == ["permission"]
    assert [(o.option_id, o.kind) for o in recorder.cards[0].options] == []
    assert (tmp_path / "made-by-claude.txt").exists()
    assert fake.result_for(TOUCH.id) == ""


async def test_permission_rejected_in_default_mode(agents_bin: Path, tmp_path: Path) -> None:
    fake, _result, recorder = await run_claude(agents_bin, tmp_path, TOUCH, Script([{"choose": "reject"}]),
                                               mode="default")
    assert recorder.kinds == ["permission"]
    assert not (tmp_path / "made-by-claude.txt").exists()
    assert fake.result_for(TOUCH.id) == ""
