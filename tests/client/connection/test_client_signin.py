"""Sign-in in the notebook: codex's device-code flow, a URL elicitation scoped to the ``authenticate``
request, over stdio with a real peer (tests/support/signin_agent.py; docs/agents.md, 'Sign-in in the notebook')."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from support import SUPPORT
from support.signin_agent import DEVICE_URL, METHOD

import nbacp
from nbacp.client import auth
from nbacp.widgets.url_card import UrlConsentCard

HANG_GUARD = 60  # seconds: only so that a regression fails instead of hanging the run
AGENT = [sys.executable, str(SUPPORT / "signin_agent.py")]


class Slot:
    """Stands in for IPython's display handle: what the authenticating cell's output shows."""

    def __init__(self) -> None:
        self.shown: list[Any] = []

    def update(self, obj: Any) -> None:
        self.shown.append(obj)


@pytest.fixture
def cell(monkeypatch: pytest.MonkeyPatch) -> Slot:
    slot = Slot()
    monkeypatch.setattr(auth, "show", lambda *args, **kwargs: slot)
    return slot


def consent(cards: list[UrlConsentCard]) -> Any:
    def policy(card: Any) -> None:
        assert isinstance(card, UrlConsentCard)
        cards.append(card)
        assert card.consent()

    return policy


async def test_device_code_card_shows_in_the_authenticating_cell_and_complete_closes_it(cell: Slot) -> None:
    cards: list[UrlConsentCard] = []
    async with nbacp.connect(AGENT, answers=consent(cards)) as conn:
        assert [m.id for m in conn.auth_methods] == [METHOD]
        await asyncio.wait_for(conn.authenticate(METHOD), HANG_GUARD)  # returns once complete arrived
        [card] = cards
        assert cell.shown == [card]  # in the cell that authenticates, not the connection's inbox
        assert card.url == DEVICE_URL
        assert card.completed and card.stage == "completed" and card.settled
        session = await conn.new_session()  # signed in now
        assert (await session.prompt("hi")).text == "signed in"


async def test_auth_required_on_new_session_signs_in_through_the_url_card(cell: Slot) -> None:
    cards: list[UrlConsentCard] = []

    def policy(card: Any) -> None:
        if isinstance(card, UrlConsentCard):
            consent(cards)(card)
        else:
            card.choose(METHOD)

    async with nbacp.connect(AGENT, answers=policy) as conn:
        session = await asyncio.wait_for(conn.new_session(), HANG_GUARD)
        assert session.id == "s1"
    [card] = cards
    # the auth card (static once answered: docs/record.md) and then the URL card, both in this cell
    assert cell.shown[-1] is card and card.completed
    assert len(cell.shown) == 2 and "Authenticating with" in str(cell.shown[0])
