"""Agent text with lone or split surrogates: the turn completes and everything reaches the widgets.

The in-kernel test is the one that failed before (UnicodeEncodeError putting a widget value
onto the comm); the stdio one checks the same text after a real JSON round trip.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from support import SUPPORT, TESTS
from support.kernel_support import KernelHarness
from support.surrogate_agent import EXPECTED_TEXT, SurrogateAgent

import nbacp
from nbacp.render.safe_text import SurrogateJoiner, bounded_json, comm_safe, neutral_bidi
from nbacp.widgets import FormCard, PermissionCard


def _answer(card: Any) -> None:
    if isinstance(card, PermissionCard):
        card.choose("no")
    elif isinstance(card, FormCard):
        card.decline()


def test_comm_safe_joins_pairs_and_replaces_lone_halves() -> None:
    assert comm_safe("a\ud83d\ude00b") == "a\U0001f600b"
    assert comm_safe("\ud800x\udfff") == "\ufffdx\ufffd"
    assert comm_safe("plain") == "plain"
    comm_safe("\ud800").encode("utf-8")


def test_joiner_rejoins_a_pair_split_across_chunks() -> None:
    joiner = SurrogateJoiner()
    assert joiner.feed("k", "smile \ud83d") == "smile "
    assert joiner.feed("other", "x") == "x"
    assert joiner.feed("k", "\ude00 done") == "\U0001f600 done"
    assert joiner.feed("k", "end \ud83d") == "end "
    assert joiner.feed("k", "no low half") == "\ufffdno low half"
    assert joiner.feed("k", "\ud83d") == ""
    assert joiner.flush("k") == "\ufffd" and joiner.flush("k") == ""


def test_bidi_controls_are_shown_not_obeyed() -> None:
    assert neutral_bidi("evil\u202etxt.exe") == "evil<U+202E>txt.exe"
    assert neutral_bidi("a\u2066b\u2069") == "a<U+2066>b<U+2069>"
    assert neutral_bidi("family \U0001f468\u200d\U0001f469") == "family \U0001f468\u200d\U0001f469"  # ZWJ kept


def test_bounded_json_renders_3000_deep_structures() -> None:
    value: Any = 1
    for _ in range(3000):
        value = {"a": value}
    text = bounded_json(value, max_depth=5)
    assert text.count('"a"') == 5 and "nested deeper" in text


async def test_surrogates_in_process() -> None:
    agent = SurrogateAgent()
    async with nbacp.connect(agent, answers=_answer) as conn:
        session = await conn.new_session()
        result = await session.prompt("go")
    assert result.text == EXPECTED_TEXT
    assert result.stop_reason == "end_turn"
    assert agent.replies == [{"action": "decline"}, {"outcome": {"outcome": "selected", "optionId": "no"}}]
    result.record.encode("utf-8")


async def test_surrogates_over_stdio() -> None:
    async with nbacp.connect([sys.executable, str(SUPPORT / "surrogate_agent.py")], answers=_answer) as conn:
        session = await conn.new_session()
        result = await session.prompt("go")
    assert result.text == EXPECTED_TEXT
    assert not list(conn.log or []), list(conn.log or [])


@pytest.mark.kernel
def test_surrogates_in_a_real_kernel(kernel: KernelHarness) -> None:
    kernel.run(
        textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(TESTS)!r}, {str(Path(__file__).parent)!r}]  # support.*, and this file
        import nbacp
        from support.surrogate_agent import SurrogateAgent
        from test_guard_text import _answer
        conn = await nbacp.connect(SurrogateAgent(), answers=_answer)
        session = await conn.new_session('.')
    """),
        timeout=60,
    )
    cell = kernel.execute("result = await session.prompt('go')\nprint('RESULT', ascii(result.text))")
    kernel.wait_idle(cell, timeout=60)
    assert kernel.error(cell) is None, kernel.error(cell)
    assert kernel.stream_text(cell) == f"RESULT {ascii(EXPECTED_TEXT)}\n"
    # every widget state that went onto the comm is valid text; the record was displayed
    records = [
        m for m in kernel.messages(cell) if m["msg_type"] == "display_data" and "text/html" in m["content"]["data"]
    ]
    assert records and "smile" in records[-1]["content"]["data"]["text/html"]
