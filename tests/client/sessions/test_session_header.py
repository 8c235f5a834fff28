"""The session header: the agent's title without a prompt's attachment markup, commands explained once."""

from __future__ import annotations

import pandas as pd
import pytest

import nbacp
from nbacp.client.sessions.header import shown_title
from nbacp.demo import demo_agent


def test_a_title_made_of_the_prompt_and_its_attachments_becomes_the_typed_text() -> None:
    leaked = 'explore sales nbacp://variables/sales <context ref="nbacp://variables/sales"> #'
    assert shown_title(leaked, [("explore sales", ("nbacp://variables/sales",))]) == "explore sales"
    assert shown_title("Plan the nightly run", [("full", ())]) == "Plan the nightly run"  # the agent's own
    assert shown_title("<b>Work</b>", []) == "<b>Work</b>"  # text, escaped where shown
    assert shown_title('look <context ref="nbacp://x">', []) == "look"


async def test_the_demo_agents_title_for_an_attached_dataframe_is_the_prompt_text() -> None:
    sales = pd.DataFrame({"region": ["north", None], "amount": [1.0, None]})
    async with nbacp.connect(demo_agent()) as conn:
        session = await conn.new_session(cwd=".")
        await session.prompt("hello", sales)
    assert session.header.facts["Session"] == "hello"
    assert session.header.facts["Commands"] == "/tools, /hooks, /mcp-servers (send /name as a prompt)"
    assert not any(line.startswith("Commands") for line in _labels(conn.client.surfaces.inbox))


def _labels(root: object) -> list[str]:
    out, stack = [], [root]
    while stack:
        item = stack.pop()
        value = getattr(item, "value", None)
        if isinstance(value, str):
            out.append(value)
        stack.extend(getattr(item, "children", ()))
    return out


async def test_a_turns_start_gives_the_header_only_the_updates_since_the_last_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A day's session: each start reads the log from where the previous one stopped, not from
    its beginning (re-reading it made every turn slower than the one before)."""
    async with nbacp.connect(demo_agent()) as conn:
        session = await conn.new_session(cwd=".")
        log = conn.client.session_updates.session_log(session.id)
        for _ in range(3):
            await session.prompt("hello")
        noted: list[object] = []
        real = session.header.note
        monkeypatch.setattr(session.header, "note", lambda update: noted.append(update) or real(update))
        before, since_last_start = len(log), len(log) - len(session.turn.transcript.updates)
        await session.prompt("hello")
    assert noted[: before - since_last_start] == log[since_last_start:before]  # the last turn's, first
    assert len(noted) < before  # and not the whole log again (it held three turns)
    assert session.header.facts["Commands"] == "/tools, /hooks, /mcp-servers (send /name as a prompt)"
