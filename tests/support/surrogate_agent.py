"""An agent that sends lone and split surrogates everywhere text can go (a real ACP peer).

Runs in-process (``SurrogateAgent()``) or over stdio (``python tests/support/surrogate_agent.py``).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from acp import PROTOCOL_VERSION, run_agent
from acp.schema import AgentCapabilities, InitializeResponse, NewSessionResponse, PromptResponse

CHUNKS = ["smile \ud83d", "\ude00 done; lone \ud800 here; ", "bye \ud83d"]
EXPECTED_TEXT = "smile \U0001f600 done; lone \ufffd here; bye \ufffd"


class SurrogateAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.replies: list[Any] = []

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=AgentCapabilities())

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id="surrogates")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        # Raw dicts through the SDK's JSON-RPC connection: pydantic would refuse to serialise a lone
        # surrogate, a hostile agent writing its own JSON would not.
        rpc = self.conn._conn

        async def say(update: dict[str, Any]) -> None:
            await rpc.send_notification("session/update", {"sessionId": session_id, "update": update})

        await say({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "\ud83d tool", "status": "pending"})
        schema = {"type": "object", "properties": {"x\ud800": {"type": "string", "title": "Name \udc00"}}}
        self.replies.append(
            await rpc.send_request(
                "elicitation/create",
                {"mode": "form", "sessionId": session_id, "message": "pick \udc00 one", "requestedSchema": schema},
            )
        )
        self.replies.append(
            await rpc.send_request(
                "session/request_permission",
                {
                    "sessionId": session_id,
                    "toolCall": {"toolCallId": "t2", "title": "\ud800 write", "rawInput": {"k\ud800": "v\udfff"}},
                    "options": [{"optionId": "no", "name": "Reject \ud83d", "kind": "reject_once"}],
                },
            )
        )
        for chunk in CHUNKS:
            await say({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": chunk}})
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(run_agent(SurrogateAgent(), use_unstable_protocol=True))
    sys.exit(0)
