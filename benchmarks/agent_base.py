"""The part every benchmark agent shares: an ACP agent with no capabilities that opens sessions.

Each benchmark subclasses it and writes only ``prompt`` (what the agent does during a turn).
"""

from __future__ import annotations

import uuid
from typing import Any

from acp import PROTOCOL_VERSION
from acp.schema import AgentCapabilities, InitializeResponse, NewSessionResponse


class BenchAgent:
    """``initialize``/``new_session``/``cancel`` of a minimal agent; ``self.conn`` is the client side."""

    session_id: str | None = None  # one fixed id for every session; None = a fresh "bench-..." id each

    def __init__(self) -> None:
        self.conn: Any = None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=AgentCapabilities())

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id=self.session_id or f"bench-{uuid.uuid4().hex[:8]}")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None
