"""What the real agents do with nbacp's ``fs`` / ``terminal`` capabilities and its display-terminal opt-in.

Measured facts (docs/files-and-terminals.md, 'What each agent does'), kept as tests so that an
agent release that changes them flips a test: claude-agent-acp 0.101.0 and codex-acp 2.6.0 never
call ``fs/*`` or ``terminal/*`` and stream their own commands' output as display terminals;
gemini-cli 0.61.0 writes through ``fs/write_text_file`` and never calls ``terminal/*``.
Every agent request nbacp receives is seen where it enters (``RawTap.incoming``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from agent_support import HANG, Recorder, claude_env
from fake_models import ECHO, AnthropicFake, Call, FakeModel, GeminiFake, Reply, Responder, ResponsesFake, Say
from test_codex_agent import codex_env
from test_gemini_agent import gemini_env

import nbacp
from nbacp.answers import Script
from nbacp.client.wire.raw_tap import RawTap

pytestmark = pytest.mark.real_agents

CLIENT_METHODS = ("fs/", "terminal/")


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The methods of every request and notification the agents send to nbacp, in order."""
    seen: list[str] = []
    incoming = RawTap.incoming

    def record(self: RawTap, message: Any) -> bool:
        if isinstance(message, dict) and isinstance(message.get("method"), str):
            seen.append(message["method"])
        return incoming(self, message)

    monkeypatch.setattr(RawTap, "incoming", record)
    return seen


def in_order(calls: Sequence[Call]) -> Responder:
    """Each call in turn once it is offered; then echo every result the agent handed back."""

    def respond(fake: FakeModel, body: dict[str, Any]) -> Reply:
        done = {result.call_id: result.text for result in fake.results_in(body)}
        for call in calls:
            if call.id not in done:
                return call if call.name in fake.offered_tools(body) else Say("ok")
        return Say(ECHO + " | ".join(done[call.id] for call in calls))

    return respond


def client_calls(wire: list[str]) -> list[str]:
    return [method for method in wire if method.startswith(CLIENT_METHODS)]


def display_terminal(session: Any, call_id: str) -> tuple[str, list[str]]:
    """What the turn showed of a tool call's display terminal, and the ``_meta`` keys that fed it, in order."""
    keys = [
        key
        for update in session.updates
        if getattr(update, "tool_call_id", None) == call_id
        for key in (update.field_meta or {})
        if key.startswith("terminal_")
    ]
    return session.turn.transcript.terminal_shown(call_id), keys


# --- claude-agent-acp ----------------------------------------------------------------------
async def test_claude_never_calls_fs_or_terminal_and_streams_bash_as_a_display_terminal(
    agents_bin: Path, tmp_path: Path, wire: list[str]
) -> None:
    """Issue item "claude reads, writes and runs Bash through nbacp" cannot be met by 0.101.0: it
    ignores ``fs`` / ``terminal`` (this test flips when a release starts routing them)."""
    (tmp_path / "data.txt").write_text("alpha\nbeta\n")
    calls = [
        Call("Read", {"file_path": str(tmp_path / "data.txt")}, id="toolu_read"),
        Call("Write", {"file_path": str(tmp_path / "new.txt"), "content": "hello\n"}, id="toolu_write"),
        Call(
            "Bash", {"command": "echo out-line; echo err-line >&2", "description": "Print two lines"}, id="toolu_bash"
        ),
    ]
    with AnthropicFake(in_order(calls)) as fake:
        env = claude_env(tmp_path, fake.url)
        async with nbacp.connect([str(agents_bin / "claude-agent-acp")], env=env, answers=Script([])) as conn:
            session = await conn.new_session(tmp_path)
            await session.set_mode("bypassPermissions")
            result = await asyncio.wait_for(session.prompt("Go ahead."), HANG)
            shown, keys = display_terminal(session, "toolu_bash")
    assert result.stop_reason == "end_turn"
    assert "alpha" in fake.result_for("toolu_read")
    assert (tmp_path / "new.txt").read_text() == "hello\n"  # written by claude itself
    assert client_calls(wire) == []
    assert "terminal_info" in keys and "terminal_output_delta" in keys and keys[-1] == "terminal_exit"
    assert shown == "out-line\nerr-line\n[exit code 0]"
    assert "fs/write_text_file" not in result.record.replace("\\", "")  # nothing went through nbacp's fs


async def test_claude_stop_button_ends_its_own_long_bash(agents_bin: Path, tmp_path: Path, wire: list[str]) -> None:
    """nbacp never owns claude's process: the stop button's ``session/cancel`` reaches it through claude,
    which kills the command itself."""
    started = tmp_path / "started.pid"
    command = f"echo $$ > {started}; sleep 60; touch {tmp_path / 'finished.marker'}"
    calls = [Call("Bash", {"command": command, "description": "Count slowly"}, id="toolu_long")]
    with AnthropicFake(in_order(calls)) as fake:
        env = claude_env(tmp_path, fake.url)
        async with nbacp.connect([str(agents_bin / "claude-agent-acp")], env=env, answers=Script([])) as conn:
            session = await conn.new_session(tmp_path)
            await session.set_mode("bypassPermissions")
            turn = session.start("Go ahead.")
            async with asyncio.timeout(HANG):
                while not (started.exists() and started.read_text().strip()):
                    await asyncio.sleep(0.05)
            pid = int(started.read_text())
            await session.cancel()  # what the stop button does
            result = await asyncio.wait_for(turn, HANG)
            async with asyncio.timeout(HANG):  # claude ends the command; bounded only against a hang
                while Path(f"/proc/{pid}").exists() and "State:\tZ" not in _status(pid):
                    await asyncio.sleep(0.05)
            shown, keys = display_terminal(session, "toolu_long")
    assert result.stop_reason == "cancelled"
    assert not (tmp_path / "finished.marker").exists()
    assert client_calls(wire) == []
    assert keys[-1] == "terminal_exit" and shown.endswith("[ended]")


def _status(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "State:\tZ"


# --- codex-acp -----------------------------------------------------------------------------
async def test_codex_never_calls_fs_or_terminal_and_streams_commands_live(
    agents_bin: Path, tmp_path: Path, wire: list[str]
) -> None:
    call = Call("exec_command", {"cmd": "for i in 1 2 3; do echo tick $i; sleep 1; done"}, id="call_ticks")
    with ResponsesFake(in_order([call])) as fake:
        async with nbacp.connect(
            [str(agents_bin / "codex-acp")], env=codex_env(tmp_path, fake), answers=Script([])
        ) as conn:
            await conn.authenticate("api-key")
            session = await conn.new_session(tmp_path)
            await session.set_mode("read-only")
            result = await asyncio.wait_for(session.prompt("Go ahead."), HANG)
            shown, keys = display_terminal(session, "call_ticks")
    assert result.stop_reason == "end_turn"
    assert "tick 3" in fake.result_for("call_ticks")
    assert client_calls(wire) == []
    # one delta per chunk while the command ran (live), then the exit
    assert keys.count("terminal_output_delta") >= 2 and keys[-1] == "terminal_exit", keys
    assert shown.endswith("tick 3\n[exit code 0]") and "tick 2" in shown


# --- gemini-cli ----------------------------------------------------------------------------
async def run_gemini(agents_bin: Path, home: Path, calls: Sequence[Call], *, fs: Any) -> tuple[GeminiFake, Any]:
    with GeminiFake(in_order(calls)) as fake:
        async with nbacp.connect(
            [str(agents_bin / "gemini"), "--acp"],
            cwd=str(home),
            env=gemini_env(home, fake),
            answers=Recorder(Script([])),
            fs=fs,
        ) as conn:
            session = await conn.new_session(home)
            await session.set_mode("yolo")
            result = await asyncio.wait_for(session.prompt("Go ahead."), HANG)
    return fake, result


async def test_gemini_writes_through_nbacp_and_runs_its_own_shell(
    agents_bin: Path, tmp_path: Path, wire: list[str]
) -> None:
    (tmp_path / "data.txt").write_text("alpha\nbeta\n")
    calls = [
        Call("write_file", {"file_path": "made-by-gemini.txt", "content": "hello\n"}, id="call_new"),
        Call(
            "replace",
            {
                "file_path": "data.txt",
                "old_string": "beta",
                "new_string": "gamma",
                "instruction": "Change beta to gamma",
            },
            id="call_edit",
        ),
        Call("run_shell_command", {"command": "echo from-shell"}, id="call_shell"),
    ]
    fake, result = await run_gemini(agents_bin, tmp_path, calls, fs="write")
    assert fake.result_for("call_new").startswith("Successfully created and wrote to new file")
    assert (tmp_path / "made-by-gemini.txt").read_text() == "hello\n"
    assert (tmp_path / "data.txt").read_text() == "alpha\ngamma\n", fake.result_for("call_edit")
    assert "from-shell" in fake.result_for("call_shell")
    assert client_calls(wire) == ["fs/write_text_file", "fs/write_text_file"]  # no read, no terminal
    record = result.record.replace("\\", "")  # the markdown's escapes
    assert "fs/write_text_file · edited · completed · made-by-gemini.txt +1 -0 (new)" in record, record
    assert "fs/write_text_file · edited · completed · data.txt +1 -1" in record, record
    assert not [a for a in result.answers if a.kind not in ("question", "permission", "url", "auth")]


async def test_gemini_write_to_the_running_notebook_is_refused(
    agents_bin: Path, tmp_path: Path, wire: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook = tmp_path / "analysis.ipynb"
    notebook.write_text(json.dumps({"cells": []}))
    monkeypatch.setenv("JPY_SESSION_NAME", str(notebook))  # the kernel's notebook, as jupyter_server sets it
    calls = [Call("write_file", {"file_path": "analysis.ipynb", "content": "{}"}, id="call_nb")]
    fake, result = await run_gemini(agents_bin, tmp_path, calls, fs="write")
    assert notebook.read_text() == json.dumps({"cells": []})
    assert client_calls(wire) == ["fs/write_text_file"]
    # gemini-cli 0.61.0 loses the refusal's text: its model learns only that the write failed
    assert fake.result_for("call_nb") == "Error writing to file: [object Object]"
    assert result.stop_reason == "end_turn"


async def test_gemini_with_read_advertised_cannot_create_a_file(
    agents_bin: Path, tmp_path: Path, wire: list[str]
) -> None:
    """gemini-cli 0.61.0 defect (why ``fs="write"`` exists): it reads before writing, and the
    "does not exist" error reaches its code as a plain object, which it does not recognise."""
    calls = [Call("write_file", {"file_path": "made-by-gemini.txt", "content": "hello\n"}, id="call_new")]
    fake, _result = await run_gemini(agents_bin, tmp_path, calls, fs=True)
    assert client_calls(wire) == ["fs/read_text_file"]
    assert fake.result_for("call_new").startswith("Error checking existing file")
    assert not (tmp_path / "made-by-gemini.txt").exists()
