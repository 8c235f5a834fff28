"""Fixtures shared by the client's tests."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support import SUPPORT
from support.client_methods_agent import ClientMethodsAgent

import nbacp


@pytest.fixture(params=["in-process", "stdio"])
async def conn(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """A connection to the peer that calls the client's fs/* and terminal/* methods, over each transport.

    A test module that defines its own ``conn`` fixture overrides this one.
    """
    stdio = [sys.executable, str(SUPPORT / "client_methods_agent.py")]
    target: Any = ClientMethodsAgent() if request.param == "in-process" else stdio
    async with nbacp.connect(target) as connection:
        yield connection
