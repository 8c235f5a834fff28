"""The demo's sign-in page: a real page on 127.0.0.1 whose visit is what completes the sign-in.

A URL-mode elicitation's ``accept`` is consent to open the page, not completion; a real agent
completes (``elicitation/complete``) when its login callback fires. The demo does the same:
``SignInPage`` serves one page at an unguessable path on a random loopback port, and the
sign-in counts as done only once that page was fetched. The server runs on the standard
library's threaded HTTP server, so it works the same inside a kernel's event loop and in
``python -m nbacp.demo serve``.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

PAGE = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Signed in: nbacp demo</title></head>
<body style="font-family: sans-serif; margin: 3em">
<h1>Signed in to the demo data warehouse</h1>
<p>The nbacp demo agent has been told. You can close this tab and go back to the notebook.</p>
</body></html>
"""
NOT_FOUND = b"Not found.\n"


class SignInPage:
    """``async with SignInPage() as page``: ``page.url`` to hand out, ``await page.visited()``.

    Only a GET of the exact page path counts as a visit (not a favicon, not a guess of
    another path). The server stops when the block ends, whatever the outcome.
    """

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.path = f"/nbacp-demo/login/{secrets.token_urlsafe(16)}"
        self.visits = 0
        self._visited = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the sign-in page is not being served")
        return f"http://{self.host}:{self._server.server_address[1]}{self.path}"

    async def visited(self) -> None:
        """Return once the page was visited (at once if it already was)."""
        await self._visited.wait()

    def _on_visit(self) -> None:
        self.visits += 1
        self._visited.set()

    async def __aenter__(self) -> SignInPage:
        self._loop = asyncio.get_running_loop()
        self._server = ThreadingHTTPServer((self.host, 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="nbacp-demo-signin", daemon=True)
        self._thread.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        server, self._server = self._server, None
        if server is not None:
            await asyncio.to_thread(server.shutdown)  # blocks until serve_forever returns
            server.server_close()

    def _note_visit(self) -> None:
        """Called on the server's thread: hand the visit to the agent's event loop."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._on_visit)


def _handler(page: SignInPage) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "nbacp-demo"

        def do_GET(self) -> None:  # noqa: N802 - the standard library's name
            found = urlsplit(self.path).path == page.path
            body = PAGE if found else NOT_FOUND
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8" if found else "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
            self.end_headers()
            self.wfile.write(body)
            if found:
                page._note_visit()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the standard library's name
            """Silent: in a kernel, request logs would land in some cell's output."""

    return Handler
