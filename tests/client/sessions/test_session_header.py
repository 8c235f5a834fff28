"""The session header: the agent's title without a prompt's attachment markup, commands explained once."""

from __future__ import annotations

import pandas as pd

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
