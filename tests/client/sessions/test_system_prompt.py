"""The notebook's client system prompt (nbacp.client.sessions.system_prompt) on the wire, read by a raw peer.

``tests/support/raw_session_agent.py`` records each session request as JSON, so the test sees
``systemPrompt`` exactly as sent; neither SDK line's models carry the field, so this is the
raw tap at work on both lines (the test-sdk1 tier runs this file too).
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from support import raw_session_agent

import nbacp
from nbacp.client.sessions import system_prompt

NOTEBOOK_TOOLS = "notebook" in inspect.signature(nbacp.kernel_tools).parameters  # [cells]' notebook tools
FULL = {
    "loadSession": True,
    "sessionCapabilities": {"systemPrompt": {}, "resume": {}, "fork": {}},
    "mcpCapabilities": {"http": True},
}


def _agent(tmp_path: Path, capabilities: dict[str, Any]) -> list[str]:
    caps = tmp_path / "caps.json"
    caps.write_text(json.dumps(capabilities))
    return [sys.executable, raw_session_agent.__file__, str(caps)]


async def _calls(session: Any) -> list[list[Any]]:
    """Every request the peer received, as it received it (its report at the end of a turn)."""
    result = await session.prompt("[]")
    calls: list[list[Any]] = json.loads(result.text)["calls"]
    return calls


def _sent(calls: list[list[Any]], method: str) -> list[Any]:
    return [params.get("systemPrompt", "absent") for name, params in calls if name == method]


async def test_new_load_resume_and_fork_carry_the_notebook_prompt_in_append_mode(tmp_path: Path) -> None:
    async with asyncio.timeout(60), nbacp.connect(_agent(tmp_path, FULL)) as conn:
        session = await conn.new_session(tmp_path)
        await conn.load_session(session.id, tmp_path)
        await conn.resume_session(session.id, tmp_path)
        await conn.fork_session(session.id, tmp_path)
        calls = await _calls(session)
    text = system_prompt.compose(True)
    assert text is not None
    expected = {"mode": "append", "content": [{"type": "text", "text": text}]}
    for method in ("session/new", "session/load", "session/resume", "session/fork"):
        assert _sent(calls, method) == [expected], method  # re-sent each time, as the spec requires
    assert session.system_prompt == expected
    for words in (
        "Jupyter notebook",
        "Markdown",
        "Never write, edit or replace the open .ipynb",
        "show its code in your answer",
    ):
        assert words in text
    assert "list_variables" not in text and "notebook_edit" not in text  # no tools given: none named
    assert len(text) < 900  # short: it is read at every turn of the agent's model


async def test_the_persons_text_follows_and_false_sends_none(tmp_path: Path) -> None:
    async with asyncio.timeout(60), nbacp.connect(_agent(tmp_path, FULL)) as conn:
        await conn.new_session(tmp_path, system_prompt="  Answer in French.  ")
        quiet = await conn.new_session(tmp_path, system_prompt=False)
        await conn.resume_session(quiet.id, tmp_path, system_prompt=False)
        with pytest.raises(TypeError, match="system_prompt takes a str"):
            await conn.new_session(tmp_path, system_prompt=3)  # type: ignore[arg-type]
        calls = await _calls(quiet)
    own, off = _sent(calls, "session/new")  # the refused call sent nothing
    assert own["content"][0]["text"] == f"{system_prompt.compose(True)}\n\nAnswer in French."
    assert off == "absent"
    assert _sent(calls, "session/resume") == ["absent"]
    assert quiet.system_prompt is None


async def test_kernel_tools_are_named_when_the_session_has_them(tmp_path: Path) -> None:
    async with asyncio.timeout(60), nbacp.connect(_agent(tmp_path, FULL)) as conn:
        session = await conn.new_session(tmp_path, tools=nbacp.kernel_tools(namespace={}))
        calls = await _calls(session)
    [sent] = _sent(calls, "session/new")
    text = sent["content"][0]["text"]
    assert 'The MCP server "notebook"' in text and "run_python" in text
    [new] = [params for name, params in calls if name == "session/new"]
    assert "_meta" not in new  # claude's NotebookEdit is turned off only with the notebook tools


@pytest.mark.parametrize(
    "capability",
    [
        pytest.param({}, id="absent"),
        pytest.param({"systemPrompt": None}, id="null"),
        pytest.param({"systemPrompt": True}, id="not-an-object"),
    ],
)
async def test_agents_that_do_not_advertise_it_get_nothing_extra(tmp_path: Path, capability: dict[str, Any]) -> None:
    caps = {"loadSession": True, "sessionCapabilities": {"resume": {}, "fork": {}, **capability}}
    async with asyncio.timeout(60), nbacp.connect(_agent(tmp_path, caps)) as conn:
        session = await conn.new_session(tmp_path, system_prompt="mine")
        await conn.load_session(session.id, tmp_path)
        await conn.resume_session(session.id, tmp_path)
        await conn.fork_session(session.id, tmp_path)
        calls = await _calls(session)
    for method in ("session/new", "session/load", "session/resume", "session/fork"):
        assert _sent(calls, method) == ["absent"], method
    assert session.system_prompt is None


async def test_an_agent_that_also_offers_override_still_gets_append(tmp_path: Path) -> None:
    caps = {"sessionCapabilities": {"systemPrompt": {"mode": {"override": {}}}}}  # what claude-agent-acp advertises
    async with asyncio.timeout(60), nbacp.connect(_agent(tmp_path, caps)) as conn:
        session = await conn.new_session(tmp_path)
        calls = await _calls(session)
    [sent] = _sent(calls, "session/new")
    assert sent["mode"] == "append"  # nbacp adds to the agent's instructions, never replaces them


@pytest.mark.skipif(not NOTEBOOK_TOOLS, reason="needs kernel_tools(notebook=...), the notebook tools of [cells]")
async def test_with_the_notebook_tools_the_prompt_names_them_and_claudes_writer_is_off(tmp_path: Path) -> None:
    memory = importlib.import_module("support.memory_notebook")  # with the notebook tools' test support
    link = memory.MemoryNotebook(str(tmp_path / "analysis.ipynb"), [memory.cell("c1", "x = 1")], "c1")
    tools = nbacp.kernel_tools(namespace={}, **{"notebook": link})
    async with asyncio.timeout(60), nbacp.connect(_agent(tmp_path, FULL)) as conn:
        session = await conn.new_session(tmp_path, tools=tools)
        calls = await _calls(session)
    [new] = [params for name, params in calls if name == "session/new"]
    assert new["_meta"] == {"claudeCode": {"options": {"disallowedTools": ["NotebookEdit"]}}}
    text = new["systemPrompt"]["content"][0]["text"]
    assert "notebook_read" in text and "notebook_edit" in text and "show its code" not in text


def test_the_notebook_tools_turn_claudes_notebook_writer_off() -> None:
    """The ``_meta`` of session/new with the notebook tools: claude-agent-acp 0.101 reads
    ``_meta.claudeCode.options.disallowedTools`` (its acp-agent.js, createSession) and adds them
    to the SDK's ``disallowedTools``."""
    assert system_prompt.session_meta(True) == {"claudeCode": {"options": {"disallowedTools": ["NotebookEdit"]}}}
    assert system_prompt.session_meta(False) == {}
    text = system_prompt.compose(True, kernel_tools=True, notebook_tools=True)
    assert text is not None and "notebook_read" in text and "notebook_edit" in text
    assert "show its code in your answer" not in text


def test_jupyter_and_marimo_texts_name_their_notebook() -> None:
    """The runtime decides the first and last sentences; a marimo text never names Jupyter or
    ``.ipynb``, and with the kernel tools it says run_python's names re-run nothing there. The
    sessions above run outside marimo, so they send the Jupyter text (marimo's is sent from a
    real marimo kernel in tests/marimo_runtime/test_client_prompt_in_marimo.py)."""
    for tools in (False, True):
        jupyter = system_prompt.compose(True, kernel_tools=tools)
        marimo = system_prompt.compose(True, kernel_tools=tools, runtime="marimo")
        assert jupyter is not None and marimo is not None
        assert jupyter.startswith("You are connected to a Jupyter notebook") and ".ipynb" in jupyter
        assert marimo.startswith("You are connected to a marimo notebook")
        assert "Jupyter" not in marimo and ".ipynb" not in marimo and "open in marimo" in marimo
        assert ("run_python" in marimo) is tools and (system_prompt.MARIMO_KERNEL in marimo) is tools
        assert system_prompt.MARIMO_KERNEL not in jupyter
        assert "show its code in your answer" in marimo and "notebook_edit" not in marimo
        assert len(marimo) < 900
    assert system_prompt.compose(False, runtime="marimo") is None


def test_the_docs_quote_every_sentence_sent() -> None:
    page = Path(__file__).resolve().parents[3] / "docs" / "protocol.md"
    flat = " ".join(page.read_text(encoding="utf-8").split())
    for sentence in (
        system_prompt.BASE,
        system_prompt.KERNEL,
        system_prompt.EDIT_WITH_TOOLS,
        system_prompt.EDIT_WITHOUT_TOOLS,
        system_prompt.NEVER_WRITE,
        system_prompt.MARIMO_BASE,
        system_prompt.MARIMO_KERNEL,
        system_prompt.MARIMO_NEVER_WRITE,
    ):
        assert sentence in flat, sentence
