"""An agent whose text is full of TeX: dollars, $HOME, \\color, display math, a 3,000-character word."""

from __future__ import annotations

import asyncio
from typing import Any

from acp import PromptResponse
from support.agents import RawAgent
from support.builders import start_tool_call, text_block, update_agent_message

MATHY = r"The price is $5 and $6. Your $HOME is set. \color{red}{alarm} and $$x^2$$ and \(y\)."
LONG_WORD = "w" * 3000


class MathAgent(RawAgent):
    """With ``hold=True`` each turn waits for ``release`` after speaking (the live view stays up)."""

    def __init__(self, *, hold: bool = False) -> None:
        super().__init__()
        self.hold = hold
        self.release = asyncio.Event()

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        say = self.conn.session_update
        await say(session_id=session_id, update=start_tool_call("t1", "compute $a$ and $b$"))
        await say(session_id=session_id, update=update_agent_message(text_block(MATHY + "\n\n" + LONG_WORD)))
        if self.hold:
            await self.release.wait()
        return PromptResponse(stop_reason="end_turn")
