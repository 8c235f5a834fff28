"""codex-acp 2.6 against the fake Responses API: what it advertises of schema 1.25-1.30 and where the
notebook's system prompt lands (a ``developer`` message of the model's input, after codex's own
developer instructions; codex accepts ``append`` only: ``sessionCapabilities.systemPrompt: {}``).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from agent_support import HANG
from fake_models import ResponsesFake, Say
from test_codex_agent import codex_env

import nbacp
from nbacp.client.sessions import system_prompt

pytestmark = pytest.mark.real_agents


async def test_codex_advertises_append_only_and_its_model_gets_the_notebook_prompt(
    agents_bin: Path, tmp_path: Path
) -> None:
    with ResponsesFake(lambda fake, body: Say("hi from the fake")) as fake:
        async with nbacp.connect([str(agents_bin / "codex-acp")], env=codex_env(tmp_path, fake)) as conn:
            assert conn.tap is not None and conn.tap.agent_capabilities is not None
            session_caps = conn.tap.agent_capabilities["sessionCapabilities"]
            assert session_caps["systemPrompt"] == {}  # append only: no mode.override
            assert session_caps["subagents"] == {}  # codex's own subagent sessions (docs/protocol.md)
            await conn.authenticate("api-key")
            session = await conn.new_session(tmp_path, system_prompt="Prefer pandas.")
            result = await asyncio.wait_for(session.prompt("Hello"), HANG)
    assert result.text == "hi from the fake"
    text = system_prompt.compose("Prefer pandas.")
    assert text is not None
    [request] = [body for path, body in fake.snapshot() if path.endswith("/responses")]
    developer = [item for item in request["input"] if item.get("role") == "developer"]
    carried = [c.get("text", "") for item in developer for c in item.get("content", [])]
    assert any(t.endswith(text) for t in carried), json.dumps(carried)[:2000]
