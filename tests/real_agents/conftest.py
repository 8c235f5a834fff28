"""Fixtures of the real-agent tier: the npm agents, installed by ``make real-agents`` (cached)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytest.register_assert_rewrite("agent_support")
from agent_support import BIN, ROOT  # noqa: E402


@pytest.fixture(scope="session")
def agents_bin() -> Path:
    """The pinned agents, installed once per clone by the Makefile (a no-op when cached)."""
    subprocess.run(["make", "-s", "real-agents"], cwd=ROOT, check=True)
    return BIN
