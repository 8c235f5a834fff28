"""Helpers of the real-agent tier: where the agents live, and the environment each test gives them.

Every setting the agents need lives here and in the tests (a temporary HOME with the agent's
own settings files, fake API keys, base URLs pointing at the fakes on 127.0.0.1); nbacp itself
is given nothing agent-specific.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nbacp
from nbacp.answers import card_kind

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".cache" / "agents" / "node_modules" / ".bin"
# Variables of the machine running the tests that would point an agent at a real account.
FOREIGN = ("ANTHROPIC_", "CLAUDE_", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_")
HANG = 120.0  # seconds: a guard against a hung agent, never a speed assertion


def agent_env(home: Path, extra: Mapping[str, str]) -> dict[str, str | None]:
    """What a test adds to the kernel's environment (which a command agent inherits): a private HOME,
    fake keys and base URLs in ``extra``, and None (= removed) for the machine's own agent credentials.

    ``IS_SANDBOX``: claude refuses to start sessions as root unless it is "1" or empty.
    """
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith(FOREIGN)}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), IS_SANDBOX="1", NO_COLOR="1")
    env.update(extra)
    return env


def claude_env(home: Path, base_url: str) -> dict[str, str | None]:
    """``agent_env`` for claude-agent-acp talking to the fake Anthropic API at ``base_url``."""
    return agent_env(
        home,
        {
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "sk-ant-fake",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        },
    )


class Recorder:
    """An answer policy that keeps every card it is shown, then lets ``policy`` answer it."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.cards: list[Any] = []

    def __call__(self, card: Any) -> None:
        self.cards.append(card)
        self.policy(card)

    @property
    def kinds(self) -> list[str]:
        return [card_kind(card) for card in self.cards]


async def stop_while_a_question_is_open(
    command: list[str], env: Mapping[str, str | None], cwd: Path, *, auth_method: str | None = None
) -> None:
    """Press stop (``session.cancel``) as the question card appears: the turn ends "cancelled", the
    stop is pressed once, and the session takes the next prompt. What the model was then told
    differs per agent; the caller checks it on its fake."""
    stopped: list[asyncio.Future[Any]] = []
    session: Any = None

    def stop(card: Any) -> None:
        stopped.append(asyncio.ensure_future(session.cancel()))

    async with nbacp.connect(command, env=dict(env), answers=stop) as conn:
        if auth_method is not None:
            await conn.authenticate(auth_method)
        session = await conn.new_session(cwd)
        result = await asyncio.wait_for(session.prompt("Go ahead."), HANG)
        await asyncio.gather(*stopped)
        assert result.stop_reason == "cancelled", result.stop_reason
        await asyncio.wait_for(session.prompt("Never mind."), HANG)
    assert len(stopped) == 1, stopped
