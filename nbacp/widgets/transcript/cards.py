"""A card's life in a transcript: placed after everything so far, then, once answered, one line.

An answered card's summary line takes its place and the card's model closes, so an answered
card costs the page and the kernel one line of text (docs/notebooks.md, 'What a card costs');
its Python object stays readable for whoever holds it (``view.form``, ``view.response``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol, runtime_checkable

import ipywidgets as widgets

from nbacp.widgets.transcript.blocks import CardBlock
from nbacp.widgets.transcript.frames import Frames


@runtime_checkable
class Settles(Protocol):
    """A card that reports when its interaction is over (``nbacp.widgets.card.Card``)."""

    def on_settle(self, callback: Callable[[str], None]) -> None:
        """Run ``callback(summary)`` once the interaction is over."""


class Cards:
    """Places cards among a transcript's blocks and replaces each by its summary once answered."""

    def __init__(self, frames: Frames) -> None:
        self.frames = frames

    def place(self, card: widgets.Widget) -> None:
        """Show ``card`` after every block so far (now); a card that settles is replaced when it does."""
        block = CardBlock(card)
        self.frames.append(block)
        if getattr(card, "settled", False) is True:  # answered before it was shown (a policy): its line
            self._answered(block, getattr(card, "summary", ""))
            return
        self.frames.flush()
        if not isinstance(card, Settles):
            return
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None

        def settled(summary: str) -> None:
            # A card settles inside its own message handler, maybe on a kernel subshell thread
            # (docs/kernels.md, 'Subshells'): the transcript changes on its own loop, afterwards.
            if loop is None or loop.is_closed():
                self._answered(block, summary)
            elif _running() is loop:  # on the loop's own thread: no wake-up write needed
                loop.call_soon(self._answered, block, summary)
            else:
                loop.call_soon_threadsafe(self._answered, block, summary)

        card.on_settle(settled)

    def _answered(self, block: CardBlock, summary: str) -> None:
        """The summary line takes the card's place, then the card's model closes."""
        card = block.answered(summary)
        if card is None:
            return
        self.frames.relayout(block)
        self.frames.flush()  # the page has the line before the card's model goes
        card.close()


def _running() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
