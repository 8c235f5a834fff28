"""Helpers of the real-agent tier: where the agents live, and the environment each test gives them.

Every setting the agents need lives here and in the tests (a temporary HOME with the agent's
own settings files, fake API keys, base URLs pointing at the fakes on 127.0.0.1); nbacp itself
is given nothing agent-specific.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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
