"""An acpremote server on 127.0.0.1 for one test, shut down completely before the test ends.

"Completely" matters: a websocket handler task still pending when pytest-asyncio closes the
loop is torn down in a way that, on CPython 3.11.7, leaves the AST builder's recursion
bookkeeping off (a later ``ast.parse`` raises "AST constructor recursion depth mismatch",
CPython gh-106905). Waiting for the server's tasks to finish avoids it.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from support.sdk_line import HAS_ACPREMOTE, require_acpremote

if HAS_ACPREMOTE:  # not on SDK 1.x (support/sdk_line.py): loopback_server skips there
    from acpremote import serve_acp

SETTLE_TIMEOUT = 5.0


@dataclass
class Loopback:
    url: str
    token: str
    server: Any


@asynccontextmanager
async def loopback_server(agent: Any) -> AsyncIterator[Loopback]:
    require_acpremote()
    token = secrets.token_urlsafe(16)
    before = asyncio.all_tasks()
    server = await serve_acp(agent, host="127.0.0.1", port=0, bearer_token=token)
    port = next(iter(server.sockets)).getsockname()[1]
    try:
        yield Loopback(f"ws://127.0.0.1:{port}/acp/ws", token, server)
    finally:
        server.close()
        await server.wait_closed()
        await settle(before)


async def settle(keep: set[asyncio.Task[Any]]) -> None:
    """Let tasks started since ``keep`` finish; cancel and reap any still running after a bound."""
    current = asyncio.current_task()
    started = [t for t in asyncio.all_tasks() if t not in keep and t is not current]
    if not started:
        return
    _done, pending = await asyncio.wait(started, timeout=SETTLE_TIMEOUT)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=SETTLE_TIMEOUT)
