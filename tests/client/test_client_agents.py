"""Environment, authentication, sessions that survive, agent output, small defects.

Every test talks to ``FeatureAgent`` (tests/support/feature_agents.py), a raw ``acp`` agent, in
process, over stdio (a real subprocess) or through acpremote on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import pytest
from support import SUPPORT
from support.comm_support import answered_lines, walk
from support.feature_agents import FeatureAgent
from support.loopback import loopback_server
from support.peers import PermissionAgent

import nbacp
import nbacp.errors as nbacp_errors
from nbacp.answers import Script
from nbacp.errors import AgentError, AuthenticationError, ConnectionLostError, NotSupportedByAgentError
from nbacp.widgets.auth_card import AuthCard
from nbacp.widgets.transcript import nodes

AGENT = SUPPORT / "feature_agents.py"
HANG_GUARD = 60  # seconds: only so that a regression fails instead of hanging the run


def command(*args: str) -> list[str]:
    return [sys.executable, str(AGENT), *args]


def texts(root: widgets.Widget) -> list[str]:
    return [str(w.value) for w in walk(root) if isinstance(w, nodes.Text | widgets.Textarea)]


# ------------------------------------------------------------------ 1. environment


async def test_command_agent_sees_a_variable_exported_in_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NBACP_KERNEL_ONLY", "from-the-kernel")
    async with nbacp.connect(command()) as conn:
        result = await (await conn.new_session()).prompt("env NBACP_KERNEL_ONLY")
    assert result.text == "NBACP_KERNEL_ONLY=from-the-kernel"


async def test_env_adds_and_overrides_without_losing_the_kernel_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NBACP_KERNEL_ONLY", "from-the-kernel")
    monkeypatch.setenv("NBACP_OVERRIDDEN", "old")
    env = {"NBACP_ADDED": "added", "NBACP_OVERRIDDEN": "new"}
    async with nbacp.connect(command(), env=env) as conn:
        session = await conn.new_session()
        names = ("NBACP_KERNEL_ONLY", "NBACP_ADDED", "NBACP_OVERRIDDEN")
        said = [(await session.prompt(f"env {name}")).text for name in names]
    assert said == ["NBACP_KERNEL_ONLY=from-the-kernel", "NBACP_ADDED=added", "NBACP_OVERRIDDEN=new"]


async def test_env_none_drops_a_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NBACP_SECRET", "do-not-pass")
    async with nbacp.connect(command(), env={"NBACP_SECRET": None}) as conn:
        result = await (await conn.new_session()).prompt("env NBACP_SECRET")
    assert result.text == "NBACP_SECRET=<unset>"


async def test_an_agent_that_dies_at_start_says_why() -> None:
    script = "import sys; sys.stderr.write('FATAL: ANTHROPIC_API_KEY is not set\\n'); sys.exit(3)"
    with pytest.raises(nbacp_errors.ConnectError, match="stderr ends with: FATAL: ANTHROPIC_API_KEY is not set"):
        await nbacp.connect([sys.executable, "-c", script])


# ------------------------------------------------------------------ 2. authentication


def test_client_advertises_boolean_options_and_no_terminal_auth() -> None:
    caps = nbacp.NotebookClient().capabilities().model_dump(by_alias=True, exclude_none=True)
    assert caps["auth"] == {"terminal": False}
    assert caps["session"] == {"configOptions": {"boolean": {}}}


async def test_session_new_auth_required_shows_card_and_retries_once() -> None:
    agent = FeatureAgent(require_auth="new")
    script = Script([{"expect": "auth", "authenticate": "chat-gpt"}])
    async with nbacp.connect(agent, answers=script) as conn:
        assert [m.id for m in conn.auth_methods] == ["api-key", "chat-gpt", "login"]
        session = await conn.new_session()
        assert session.id in agent.sessions
    assert agent.authenticated == ["chat-gpt"]
    assert script.remaining == 0


async def test_prompt_auth_required_puts_the_card_in_the_turn() -> None:
    agent = FeatureAgent(require_auth="prompt")
    async with nbacp.connect(agent, answers=Script([{"authenticate": "Sign in with ChatGPT"}])) as conn:
        session = await conn.new_session()
        result = await session.prompt("hello")
    assert result.text == "echo hello"
    assert agent.authenticated == ["chat-gpt"]
    assert [(kind, answer) for kind, _, answer in result.answers] == [
        ("auth", "Authenticating with: Sign in with ChatGPT")
    ]
    assert session.turn is not None
    # answered: the card's place holds its summary line, and no card is left (docs/turn-view.md)
    assert not [w for w in walk(session.turn.transcript) if isinstance(w, AuthCard)]
    lines = answered_lines(session.turn.transcript)
    assert lines == [(("nbacp-card", "nbacp-kind-auth", "nbacp-auth-card", "nbacp-answered"), result.answers[0].line)]
    assert result.answers[0].line == "Authenticating with: Sign in with ChatGPT"


async def test_refusing_to_authenticate_fails_with_the_agents_message() -> None:
    agent = FeatureAgent(require_auth="new")
    async with nbacp.connect(agent, answers=Script([{"authenticate": "cancel"}])) as conn:
        with pytest.raises(AgentError, match="Authentication required.*no authentication method was chosen"):
            await conn.new_session()
    assert agent.authenticated == []


async def test_authenticate_from_code_names_method_and_agent_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FEATURE_API_KEY", raising=False)
    async with nbacp.connect(FeatureAgent()) as conn:
        with pytest.raises(AuthenticationError, match=r"'api-key' failed.*FEATURE_API_KEY is not set") as info:
            await conn.authenticate("api-key")
        assert info.value.method_id == "api-key"
        with pytest.raises(AuthenticationError, match=r"'nope'.*offers: 'api-key', 'chat-gpt', 'login'"):
            await conn.authenticate("nope")
        await conn.authenticate("chat-gpt")


async def test_stdio_agent_authenticates_with_a_key_given_through_env() -> None:
    script = Script([{"authenticate": "api-key"}])
    async with nbacp.connect(command("--auth", "new"), answers=script, env={"FEATURE_API_KEY": "k-1"}) as conn:
        session = await conn.new_session()
        result = await session.prompt("env FEATURE_API_KEY")
    assert result.text == "FEATURE_API_KEY=k-1"


async def test_failed_authenticate_in_the_retry_names_the_method(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FEATURE_API_KEY", raising=False)
    agent = FeatureAgent(require_auth="new")
    async with nbacp.connect(agent, answers=Script([{"authenticate": "api-key"}])) as conn:
        with pytest.raises(AuthenticationError, match="'api-key' failed.*FEATURE_API_KEY is not set"):
            await conn.new_session()


# ------------------------------------------------------------------ 4. sessions that survive


async def test_list_follows_pages_and_load_replays_history_in_a_new_connection() -> None:
    agent = FeatureAgent()
    async with nbacp.connect(agent) as first:
        sessions = [await first.new_session() for _ in range(3)]
        await sessions[1].prompt("remember the milk")
    async with nbacp.connect(agent) as second:
        listed = await second.list_sessions()
        assert sorted(info.session_id for info in listed) == sorted(s.id for s in sessions)
        loaded = await second.load_session(sessions[1].id)
        assert loaded.history is not None
        assert loaded.history.text == "echo remember the milk"
        kinds = [u.session_update for u in loaded.history.updates]
        assert kinds == ["user_message_chunk", "agent_message_chunk"]
        assert loaded.modes.current_mode_id == "auto"
        result = await loaded.prompt("and eggs")
    assert result.text == "echo and eggs"


async def test_resume_fork_and_close() -> None:
    agent = FeatureAgent()
    async with nbacp.connect(agent) as conn:
        original = await conn.new_session()
        await original.prompt("one")
        resumed = await conn.resume_session(original.id)
        assert resumed.history is None and resumed.mode == "auto"
        fork = await conn.fork_session(original.id)
        assert agent.sessions[fork.id].history == agent.sessions[original.id].history
        await fork.close()
        assert fork.id not in agent.sessions and fork not in conn.sessions
        assert ("close", fork.id) in agent.calls


async def test_missing_capabilities_are_named() -> None:
    async with nbacp.connect(PermissionAgent()) as conn:
        with pytest.raises(NotSupportedByAgentError, match=r"session/list.*sessionCapabilities\.list"):
            await conn.list_sessions()
        with pytest.raises(NotSupportedByAgentError, match=r"session/load.*agentCapabilities\.loadSession"):
            await conn.load_session("x")
        with pytest.raises(NotSupportedByAgentError, match=r"sessionCapabilities\.resume"):
            await conn.resume_session("x")
        with pytest.raises(NotSupportedByAgentError, match=r"sessionCapabilities\.close"):
            await conn.close_session("x")
        session = await conn.new_session()
        assert session.modes is None and session.config_options == [] and session.models is None
        with pytest.raises(NotSupportedByAgentError, match="no session modes"):
            await session.set_mode("default")


async def test_load_over_stdio_after_the_history_was_made() -> None:
    async with nbacp.connect(command()) as conn:
        session = await conn.new_session()
        await session.prompt("first words")
        listed = await conn.list_sessions(".")
        assert [info.session_id for info in listed] == [session.id]
        loaded = await conn.load_session(session.id)
    assert loaded.history is not None and loaded.history.text == "echo first words"


@pytest.fixture
async def remote_agent() -> AsyncIterator[tuple[str, str, FeatureAgent]]:
    agent = FeatureAgent()
    async with loopback_server(agent) as server:
        yield server.url, server.token, agent


async def test_load_and_settings_over_acpremote(remote_agent: tuple[str, str, FeatureAgent]) -> None:
    url, token, agent = remote_agent
    async with nbacp.connect(url, token=token) as conn:
        session = await conn.new_session()
        await session.prompt("over the wire")
        await session.set_mode("default")
        await session.set_config("fast", True)
        assert session.models is not None and session.models["currentModelId"] == "opus"
        await session.set_model("haiku")
    async with nbacp.connect(url, token=token) as conn:
        loaded = await conn.load_session(session.id)
        assert loaded.history is not None and loaded.history.text == "echo over the wire"
        assert loaded.mode == "default"
        assert {o.id: o.current_value for o in loaded.config_options}["fast"] is True
        assert loaded.models is not None and loaded.models["currentModelId"] == "haiku"


# ------------------------------------------------------------------ 5. agent output the person can see


async def test_two_megabytes_of_stderr_neither_hang_nor_grow_past_the_bound() -> None:
    size = 20_000 * 100  # 2 MB in 100-byte lines
    async with nbacp.connect(command()) as conn:
        session = await conn.new_session()
        result = await asyncio.wait_for(session.prompt(f"stderr {size}"), HANG_GUARD)
        assert result.text == "wrote stderr"
        after = await asyncio.wait_for(session.prompt("still alive"), HANG_GUARD)
        assert after.text == "echo still alive"
        assert conn.process is not None
        tail = conn.process.stderr
        await conn.process.stderr_settled(0.2)
        assert tail.total_bytes == size
        assert len(conn.stderr_lines) == 200
        assert conn.stderr_lines[-1] == "x" * 99
        assert sum(len(line) for line in conn.stderr_lines) <= 200 * tail.max_line_chars


def test_stderr_tail_bounds_lines_and_line_length() -> None:
    from nbacp.client.wire.transports.stderr import StderrTail

    tail = StderrTail(max_lines=3, max_line_chars=10)
    tail.feed(b"one\ntwo\nthr")
    assert tail.lines == ["one", "two", "thr"]
    tail.feed(b"ee\r\n" + b"y" * 10_000 + b"\nlast")
    assert tail.lines == ["two", "three", "y" * 10 + " [line clipped]", "last"]  # kept 3 + the open line
    assert len(tail._partial) <= 40 and tail.dropped_lines == 1
    tail.feed("é€\n".encode()[:3])  # a character split across reads is decoded once whole
    tail.feed("é€\n".encode()[3:])
    assert tail.lines == ["three", "y" * 10 + " [line clipped]", "lasté€"]
    assert str(tail) == "\n".join(tail.lines)


async def test_failed_turn_shows_the_agents_stderr_collapsed() -> None:
    async with nbacp.connect(command()) as conn:
        session = await conn.new_session()
        with pytest.raises(AgentError, match="the model call failed"):
            await session.prompt("fail")
        assert session.turn is not None
        panels = [w for w in walk(session.turn.transcript) if isinstance(w, nodes.Fold)]
        panel = next(p for p in panels if "nbacp-stderr-panel" in p._dom_classes)
        assert panel.selected_index is None  # collapsed
        assert "FATAL: the model API key is not set" in panel.children[0].value
        assert "FATAL: the model API key is not set" in conn.stderr


async def test_agent_exit_shows_stderr_and_exit_code() -> None:
    async with nbacp.connect(command()) as conn:
        session = await conn.new_session()
        with pytest.raises(ConnectionLostError, match="exited with code 7; its stderr ends with: FATAL: crashing"):
            await session.prompt("exit")
        assert session.turn is not None
        titles = [
            p.titles[0]
            for p in walk(session.turn.transcript)
            if isinstance(p, nodes.Fold) and "nbacp-stderr-panel" in p._dom_classes
        ]
        assert titles and "exited with code 7" in titles[0]
        assert "FATAL: crashing on purpose" in conn.stderr


async def test_extension_notification_and_meta_status_are_one_line_each() -> None:
    async with nbacp.connect(FeatureAgent()) as conn:
        session = await conn.new_session()
        await session.prompt("ext")
        assert session.turn is not None
        assert "auth/status_update: status authenticated, account a@b.c" in texts(session.turn.transcript)
        await session.prompt("status")
        assert session.turn is not None
        assert "Agent status: codex: retrying (attempt 2): rate limited (429)" in texts(session.turn.transcript)
    assert conn.client.notes.lines == ["auth/status_update: status authenticated, account a@b.c"]


async def test_extension_notification_between_turns_goes_to_the_inbox() -> None:
    agent = FeatureAgent()
    async with nbacp.connect(agent) as conn:
        await conn.new_session()
        await agent.conn.ext_notification("codex/rate_limits", {"primary": {"usedPercent": 12}})
        for _ in range(100):  # the notification crosses the in-memory transport in a task of its own
            if conn.client.notes.lines:
                break
            await asyncio.sleep(0.01)
        assert conn.client.surfaces.inbox is not None
        conn.client.surfaces.inbox.flush()  # the view renders in frames; show what is pending now
        assert 'codex/rate_limits: primary {"usedPercent": 12}' in texts(conn.client.surfaces.inbox)


# ------------------------------------------------------------------ 6. small defects


def test_importing_the_connection_module_first_leaves_connect_callable() -> None:
    code = "import nbacp.client.connection.connect\nimport nbacp\n"
    code += "assert callable(nbacp.connect), nbacp.connect\nprint('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout == "ok\n"


@pytest.mark.parametrize("over", ["in-process", "stdio", "acpremote"])
async def test_cancel_request_closes_the_matching_card_as_cancelled(over: str) -> None:
    async with contextlib.AsyncExitStack() as stack:
        target: Any = FeatureAgent() if over == "in-process" else command()
        token = None
        if over == "acpremote":
            server = await stack.enter_async_context(loopback_server(FeatureAgent()))
            target, token = server.url, server.token
        conn = await stack.enter_async_context(nbacp.connect(target, token=token))
        # no policy: only the agent's withdrawal can close the card
        result = await asyncio.wait_for((await conn.new_session()).prompt("withdraw"), HANG_GUARD)
    assert result.text == "withdrawn: cancel"
    [(kind, question, answer)] = result.answers
    assert (kind, question) == ("question", "Still there?")
    assert re.fullmatch(r"Withdrawn by the agent after \d+ s\.", answer), answer  # the record keeps it
    assert "Withdrawn by the agent after" in result.record


async def test_result_text_separates_agent_messages() -> None:
    async with nbacp.connect(FeatureAgent()) as conn:
        result = await (await conn.new_session()).prompt("two")
    assert result.text == "Calling Bash.\n\nMODEL SAW"


def test_message_breaks_count_the_newlines_the_agent_already_sent() -> None:
    from acp.schema import ToolCallStart
    from support.builders import text_block, update_agent_message

    from nbacp.widgets.transcript import Transcript

    t = Transcript(prompt="p")
    for text in ("Let's plan. ", "Questions first."):
        t.add(update_agent_message(text_block(text)))
    t.add(ToolCallStart(session_update="tool_call", tool_call_id="c1", title="ask"))
    t.add(update_agent_message(text_block("\n")))  # the agent makes its own blank line, in two chunks
    t.add(update_agent_message(text_block("\nHere is what I received")))
    t.add(ToolCallStart(session_update="tool_call", tool_call_id="c2", title="launch"))
    t.add(update_agent_message(text_block("Done.")))
    assert t.text == "Let's plan. Questions first.\n\nHere is what I received\n\nDone."


@pytest.mark.parametrize("how", ["failed", "timed out", "started"])
async def test_close_after_a_failed_or_timed_out_prompt_logs_nothing(
    how: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="asyncio")
    conn = await nbacp.connect(command())
    session = await conn.new_session()
    if how == "failed":
        with pytest.raises(AgentError):
            await session.prompt("fail")
    elif how == "timed out":
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(session.prompt("hang"), 0.5)
    else:
        session.start("fail")
        await asyncio.sleep(0.5)
    turn = session.turn
    assert turn is not None
    await conn.close()
    assert turn.done
    # what asyncio logs "Task exception was never retrieved" for, when the task is collected
    assert not turn._task._log_traceback  # type: ignore[attr-defined]
    del session, conn, turn
    gc.collect()
    await asyncio.sleep(0)
    assert "never retrieved" not in caplog.text


async def test_stop_escalates_to_the_whole_process_group() -> None:
    """An agent that ignores stdin EOF and SIGTERM is killed, with the helper process it started."""
    from nbacp.client.wire.transports import process

    code = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "print(child.pid, file=sys.stderr, flush=True)\n"
        "time.sleep(600)\n"
    )
    agent = await process.start([sys.executable, "-c", code], None, None)
    for _ in range(500):
        if agent.stderr.lines and agent.stderr.lines[0].isdigit():
            break
        await asyncio.sleep(0.01)
    grandchild = int(agent.stderr.lines[0])
    await agent.stop(grace=0.3)
    assert agent.returncode == -9  # SIGTERM was ignored; SIGKILL went to the group

    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            return False
        return state != "Z"

    for _ in range(200):
        if not alive(grandchild):
            break
        await asyncio.sleep(0.01)
    assert not alive(grandchild)


# ------------------------------------------------------------------ the stable v1 surface (schema v1.23)


@pytest.mark.parametrize("over", ["in-process", "stdio"])
async def test_delete_logout_and_additional_directories_where_advertised(over: str, tmp_path: Any) -> None:
    agent = FeatureAgent()
    async with nbacp.connect(agent if over == "in-process" else command()) as conn:
        assert conn.supports("delete") and conn.supports("logout") and conn.supports("additional_directories")
        extra = tmp_path / "data"
        session = await conn.new_session(additional_directories=[extra])
        resumed = await conn.resume_session(session.id, additional_directories=[str(extra)])
        await conn.delete_session(session.id)  # typed on SDK 1.x, raw on 0.12: the agent forgets it
        assert session not in conn.sessions and resumed not in conn.sessions
        await conn.logout()
        with pytest.raises(AgentError):
            await conn.resume_session(session.id)  # deleted for good
    if over == "in-process":
        assert agent.directories[:2] == [("session/new", [str(extra)]), ("session/resume", [str(extra)])]
        assert agent.deleted == [session.id] and agent.logged_out == 1


async def test_the_stable_surface_is_refused_where_not_advertised() -> None:
    async with nbacp.connect(PermissionAgent()) as conn:
        for call in (
            lambda: conn.delete_session("s"),
            conn.logout,
            lambda: conn.new_session(additional_directories=["/tmp"]),
        ):
            with pytest.raises(NotSupportedByAgentError, match="does not advertise"):
                await call()
