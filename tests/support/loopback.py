"""An acpremote server on 127.0.0.1 for one test, shut down completely before the test ends.

"Completely" matters on CPython 3.11.7, whose AST builder keeps its recursion count in
state shared by every ``ast.parse`` (CPython gh-106905, fixed in 3.11.8): a parse that starts
inside another one's object building leaves the count off, and the outer parse raises
"AST constructor recursion depth mismatch". 3.11's tracebacks parse source for their carets,
so a finalizer that logs a traceback is such a parse when the garbage collector runs it during
a test's ``ast.parse``. websockets' server leaves such garbage: a future whose error nobody
retrieved (a frame over the size limit) in a reference cycle, logged when collected. So the
server's tasks are awaited, then that garbage is collected here, at the end of the test that
made it, instead of at whatever allocation a later test makes.
"""

from __future__ import annotations

import asyncio
import gc
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
        gc.collect()  # finalize (and log) what the server left in cycles now, not inside a later ast.parse


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
