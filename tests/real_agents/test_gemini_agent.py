"""gemini-cli (npm, pinned, ``--acp``) driven through nbacp.connect against a fake Gemini API.

gemini has no question tool over ACP (its model is offered none), so the question cases
(multi-select, single-select with Other, decline, cancel) cannot be run against it; the
permission, mode, authentication and load cases can.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from agent_support import HANG, Recorder, agent_env
from fake_models import ECHO, Call, GeminiFake, Say, call_then_echo

import nbacp
from nbacp.answers import Script
from nbacp.errors import AgentError

pytestmark = pytest.mark.real_agents

WRITE = Call("write_file", {"file_path": "made-by-gemini.txt", "content": "hello"}, id="call_write")


def gemini_env(home: Path, fake: GeminiFake, *, auth_selected: bool = True) -> dict[str, str | None]:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    chosen = {"security": {"auth": {"selectedType": "gemini-api-key"}}} if auth_selected else {}
    settings.write_text(json.dumps(chosen), encoding="utf-8")
    # gemini refuses yolo / autoEdit in a folder the person has not trusted
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(home): "TRUST_FOLDER"}), encoding="utf-8")
    return agent_env(home, {"GOOGLE_GEMINI_BASE_URL": fake.url, "GEMINI_API_KEY": "fake-gemini-key"})


def command(agents_bin: Path) -> list[str]:
    return [str(agents_bin / "gemini"), "--acp"]


async def run_gemini(
    agents_bin: Path, home: Path, call: Call, answers: Any, *, mode: str | None = None
) -> tuple[GeminiFake, Any, Recorder]:
    recorder = Recorder(answers)
    with GeminiFake(call_then_echo(call)) as fake:
        env = gemini_env(home, fake)
        # fs="write": with fs.readTextFile advertised gemini-cli 0.61.0 cannot create a new file
        # (docs/files-and-terminals.md, 'What each agent does'; tests/real_agents/test_client_methods.py)
        async with nbacp.connect(command(agents_bin), cwd=str(home), env=env, answers=recorder, fs="write") as conn:
            session = await conn.new_session(home)
            assert session.mode == "default"
            if mode is not None:
                await session.set_mode(mode)
            result = await asyncio.wait_for(session.prompt("Go ahead."), HANG)
    return fake, result, recorder


async def test_permission_allowed(agents_bin: Path, tmp_path: Path) -> None:
    fake, result, recorder = await run_gemini(agents_bin, tmp_path, WRITE, Script([{"choose": "allow_once"}]))
    assert recorder.kinds == ["permission"]
    assert [(o.option_id, o.kind) for o in recorder.cards[0].options] == [
        ("proceed_always", "allow_always"),
        ("proceed_once", "allow_once"),
        ("cancel", "reject_once"),
    ]
    seen = fake.result_for(WRITE.id)
    written = tmp_path / "made-by-gemini.txt"
    assert seen == f"Successfully created and wrote to new file: {written}. Here is the updated code:\nhello"
    assert ECHO + seen in result.text
    assert (tmp_path / "made-by-gemini.txt").read_text() == "hello"
    main = [body for _path, body in fake.snapshot() if WRITE.name in fake.offered_tools(body)]
    offered = fake.offered_tools(main[0])
    assert not [name for name in offered if "question" in name or name.startswith("ask")]  # nothing to ask with


async def test_permission_rejected(agents_bin: Path, tmp_path: Path) -> None:
    fake, result, recorder = await run_gemini(agents_bin, tmp_path, WRITE, Script([{"choose": "reject_once"}]))
    assert recorder.kinds == ["permission"]
    assert not (tmp_path / "made-by-gemini.txt").exists()
    assert result.stop_reason == "end_turn"
    assert fake.result_for(WRITE.id) == 'Tool "write_file" was canceled by the user.'


async def test_yolo_mode_sends_no_permission_card(agents_bin: Path, tmp_path: Path) -> None:
    fake, _result, recorder = await run_gemini(agents_bin, tmp_path, WRITE, Script([]), mode="yolo")
    assert recorder.kinds == []
    assert (tmp_path / "made-by-gemini.txt").exists()
    assert fake.result_for(WRITE.id).startswith("Successfully created and wrote to new file")


async def test_authenticate_from_code(agents_bin: Path, tmp_path: Path) -> None:
    """gemini needs no authenticate when GEMINI_API_KEY is set; an explicit one is accepted all the same."""
    recorder = Recorder(Script([]))
    with GeminiFake(lambda fake, body: Say("hello")) as fake:
        env = gemini_env(tmp_path, fake, auth_selected=False)
        async with nbacp.connect(command(agents_bin), cwd=str(tmp_path), env=env, answers=recorder) as conn:
            assert "gemini-api-key" in [m.id for m in conn.auth_methods]
            await conn.authenticate("gemini-api-key")
            session = await conn.new_session(tmp_path)
            result = await asyncio.wait_for(session.prompt("Hi."), HANG)
    assert recorder.kinds == []
    assert result.text == "hello"


async def test_session_load_on_a_new_connection_loses_the_conversation(agents_bin: Path, tmp_path: Path) -> None:
    """gemini-cli 0.61.0 defect, kept as a test so an upgrade that fixes it is noticed.

    session/load in a new process appends a fresh record for the session (only gemini's own
    context) to the session's file, racing its own read of that file: it either answers
    -32603 "No previous sessions found for this project." or loads and replays nothing.
    (claude and codex load the same conversation fine: see their tests.)
    """
    with GeminiFake(lambda fake, body: Say("Noted: teal.")) as fake:
        async with nbacp.connect(command(agents_bin), cwd=str(tmp_path), env=gemini_env(tmp_path, fake)) as conn:
            session = await conn.new_session(tmp_path)
            await asyncio.wait_for(session.prompt("Remember the word teal."), HANG)
            session_id = session.id
        async with nbacp.connect(command(agents_bin), cwd=str(tmp_path), env=gemini_env(tmp_path, fake)) as conn:
            try:
                loaded = await conn.load_session(session_id, tmp_path)
            except AgentError as exc:
                assert exc.code == -32603 and "No previous sessions found for this project." in str(exc)
            else:
                assert "Noted: teal." not in loaded.history.text
