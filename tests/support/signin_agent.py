"""An agent that signs in the way codex-acp's ChatGPT device code does: over stdio, plain SDK.

``initialize`` offers one method; ``session/new`` answers "Authentication required" until
``authenticate`` succeeded. ``authenticate`` sends a URL elicitation scoped to the
``authenticate`` request itself (``requestId``: there is no session yet), waits for the
person's consent, sends ``elicitation/complete`` and only then returns.
Run over stdio: ``python tests/support/signin_agent.py``.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a file: find the support package (its builders)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import PromptResponse
from support.builders import text_block, update_agent_message

METHOD = "chat-gpt-device-code"
DEVICE_URL = "https://auth.example.com/codex/device?user_code=ABCD-1234"


class SignInAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.signed_in = False
        self.authenticate_ids: list[Any] = []  # JSON-RPC ids of incoming authenticate requests
        self.consent: Any = None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn
        raw = conn._conn  # the typed handler gets no request id: read it off the receive step
        process = raw._process_message

        def seen(message: Any) -> Any:
            if isinstance(message, dict) and message.get("method") == "authenticate" and "id" in message:
                self.authenticate_ids.append(message["id"])
            return process(message)

        raw._process_message = seen

    async def initialize(self, protocol_version: int, **kwargs: Any) -> Any:
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "agentCapabilities": {},
            "authMethods": [
                {"id": METHOD, "name": "Sign in with ChatGPT (device code)", "description": "Opens a sign-in page"}
            ],
            "agentInfo": {"name": "signin-agent", "version": "1.0"},
        }

    async def authenticate(self, method_id: str, **kwargs: Any) -> Any:
        if method_id != METHOD:
            raise RequestError.invalid_params({"methodId": method_id})
        elicitation_id = f"device-{uuid.uuid4().hex[:8]}"
        raw = self.conn._conn
        self.consent = await raw.send_request(
            "elicitation/create",
            {
                "mode": "url",
                "requestId": self.authenticate_ids[-1],
                "elicitationId": elicitation_id,
                "url": DEVICE_URL,
                "message": "Sign in with ChatGPT: enter code ABCD-1234 on the page.",
            },
        )
        if self.consent.get("action") != "accept":
            raise RequestError(-32000, f"sign-in not finished: {self.consent.get('action')}", None)
        self.signed_in = True  # the device code was confirmed on the page
        await raw.send_notification("elicitation/complete", {"elicitationId": elicitation_id})
        return {}

    async def new_session(self, cwd: str, **kwargs: Any) -> Any:
        if not self.signed_in:
            raise RequestError.auth_required()
        return {"sessionId": "s1"}

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        await self.conn.session_update(session_id=session_id, update=update_agent_message(text_block("signed in")))
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None


def main() -> None:
    import asyncio

    from acp import run_agent

    asyncio.run(run_agent(SignInAgent()))


if __name__ == "__main__":
    main()
