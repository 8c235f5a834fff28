"""A question whose names and values are not clean text, through ``connect`` on each transport.

The wire ledger cleans lone surrogates as the message arrives (and puts them back in what is
sent); the card cleans what reaches its page (controls, bidi marks) and maps the page's answer
back. Either way the agent gets exactly the values it offered (docs/cards.md, 'Values that are
not clean text'). The card built directly, and in a real kernel: tests/widgets/test_page_text.py.
"""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from support import SUPPORT
from support.dirty_values_agent import VALUES, DirtyValuesAgent, answer, expected_content, twins_content

import nbacp

KINDS = sorted(VALUES)


@pytest.mark.parametrize("kind", KINDS)
async def test_the_in_process_agent_gets_its_originals_back(kind: str) -> None:
    agent = DirtyValuesAgent(kind)
    async with nbacp.connect(agent, answers=answer) as conn:
        result = await (await conn.new_session()).prompt("go")
    assert agent.replies == [{"action": "accept", "content": expected_content(VALUES[kind])}]
    assert json.loads(result.text) == agent.replies[0]
    result.record.encode("utf-8")


@pytest.mark.parametrize("kind", KINDS)
async def test_the_stdio_agent_gets_its_originals_back(kind: str) -> None:
    command = [sys.executable, str(SUPPORT / "dirty_values_agent.py"), kind]
    async with nbacp.connect(command, answers=answer) as conn:
        result = await (await conn.new_session()).prompt("go")
    # the agent says the reply it decoded as ASCII JSON: the originals, byte for byte
    assert json.loads(result.text) == {"action": "accept", "content": expected_content(VALUES[kind])}
    assert not list(conn.log or []), list(conn.log or [])


async def test_originals_that_clean_alike_each_come_back_exactly_in_process() -> None:
    """Two values that differ only by a lone surrogate clean to one text: the ledger gives each its
    own stand-in (``x\ufffd``, ``x\ufffd (2)``), so the names and values stay distinct and exact."""
    agent = DirtyValuesAgent("twins")
    async with asyncio.timeout(30):
        async with nbacp.connect(agent, answers=answer) as conn:
            result = await (await conn.new_session()).prompt("go")
    assert agent.replies == [{"action": "accept", "content": twins_content()}]
    assert json.loads(result.text) == agent.replies[0]
    assert not list(conn.log or []), list(conn.log or [])
    result.record.encode("utf-8")


async def test_originals_that_clean_alike_each_come_back_exactly_over_stdio() -> None:
    command = [sys.executable, str(SUPPORT / "dirty_values_agent.py"), "twins"]
    async with asyncio.timeout(60):
        async with nbacp.connect(command, answers=answer) as conn:
            result = await (await conn.new_session()).prompt("go")
    # the agent says the reply it decoded as ASCII JSON: each twin, byte for byte, under its own name
    assert json.loads(result.text) == {"action": "accept", "content": twins_content()}
    assert not list(conn.log or []), list(conn.log or [])
