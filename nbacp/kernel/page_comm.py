"""The ``nbacp:notebook`` comm to the pages that show this kernel's notebook: hellos, requests, replies.

The kernel opens the comm; every page that shows a notebook on this kernel and has nbacp's
front-end piece (labextension/, JupyterLab 4 / Notebook 7) answers a ``who`` with a ``hello``
(its page id, the notebook's path, whether it holds the prompt cell). A request carries an id
and the page that is to answer it; its reply resolves the future waiting for that id. A page
without the piece answers the open with a close. The protocol and its limits:
docs/notebook-edits.md.

Every wait is bounded; replies resolve futures in the kernel's loop, so a turn awaiting a tool
call keeps receiving them (on ipykernel < 7.4 while :mod:`.forwarding` lets comm messages through).
Which page to address, and whether it shows the right notebook, is :mod:`.notebook_link`.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from dataclasses import dataclass
from typing import Any

from nbacp.errors import NotebookUnavailableError
from nbacp.kernel.notebook_wire import LIMITS

TARGET = "nbacp:notebook"
PROTOCOL_VERSION = 1
HELLO_TIMEOUT = 3.0
"""How long the link waits for a page to answer ``who`` (a page answering later makes it live)."""
REPLY_TIMEOUT = 15.0


@dataclass(frozen=True)
class Hello:
    """One page's answer to ``who``."""

    page: str
    path: str | None
    holds: bool


def _create_comm(data: dict[str, Any]) -> Any:
    try:
        import comm
    except ImportError:  # ipykernel < 6.18 (Colab's 6.17.1) has no comm package
        from ipykernel import comm as kernel_comm

        return kernel_comm.Comm(target_name=TARGET, data=data)  # type: ignore[no-untyped-call]
    return comm.create_comm(target_name=TARGET, data=data)


class PageComm:
    """The comm and its traffic: ``await connect()`` opens it and waits (at most ``hello_timeout``)
    for a page's hello; :attr:`live` says whether one answered; each request waits at most
    ``reply_timeout`` for its reply. ``prompt_cell`` is the cell a ``who`` asks about.
    """

    def __init__(self, *, hello_timeout: float = HELLO_TIMEOUT, reply_timeout: float = REPLY_TIMEOUT) -> None:
        self.hello_timeout = hello_timeout
        self.reply_timeout = reply_timeout
        self.prompt_cell: str | None = None
        self._comm: Any = None
        self._closed = False
        self._refused = False
        self._hellos: dict[str, Hello] = {}
        self._waiters: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[dict[str, Any]]]] = {}
        self._requests = itertools.count(1)

    # -- the comm ---------------------------------------------------------------------------
    @property
    def live(self) -> bool:
        return self._comm is not None and not self._closed and bool(self._hellos)

    @property
    def why_not_live(self) -> str:
        if self.live:
            return ""
        if self._closed:
            return "the link to the notebook's page was closed"
        if self._refused:
            return (
                "the page that shows this notebook has no nbacp front-end piece (it refused the comm "
                f"'{TARGET}'): nbacp is not installed, or is disabled, in the Jupyter server's environment"
            )
        if self._comm is None:
            return "nbacp has not looked for the notebook's page yet"
        return (
            f"no page answered within {self.hello_timeout:g} s: the notebook is not open in JupyterLab 4 or "
            "Notebook 7 with nbacp installed in the Jupyter server's environment (its front-end piece "
            "'nbacp:notebook' serves the edits), or the page was closed"
        )

    async def connect(self) -> bool:
        """Open the comm and wait (bounded) for any page's hello; True when live.

        While no page has answered, each call opens a new comm: a page opened (or reloaded) after
        the last open never saw it, and answers only a new one.
        """
        if self._comm is not None and not self._hellos:
            self._comm.close()
            self._comm = None
        if self._comm is None and not self._closed:
            request = self._new_request()
            future = self._waiter(request)
            self._comm = _create_comm(self._who(request))
            self._comm.on_msg(self._on_msg)
            self._comm.on_close(self._on_close)
            await self._wait(request, future, self.hello_timeout, quiet=True)
        return self.live

    def close(self) -> None:
        """Close the comm for good (this link opens no other)."""
        self._closed = True
        if self._comm is not None:
            self._comm.close()
            self._comm = None

    # -- messages ----------------------------------------------------------------------------
    def _new_request(self) -> str:
        return f"{next(self._requests)}-{secrets.token_hex(4)}"

    def _who(self, request: str, cell: str | None = None) -> dict[str, Any]:
        return {"v": PROTOCOL_VERSION, "type": "who", "request": request, "prompt_cell_id": cell or self.prompt_cell}

    async def _request(self, page: str, message: dict[str, Any], cell: str) -> dict[str, Any]:
        request = self._new_request()
        future = self._waiter(request)
        body = {**message, "v": PROTOCOL_VERSION, "page": page, "request": request, "prompt_cell_id": cell}
        self._comm.send(body)
        reply = await self._wait(request, future, self.reply_timeout)
        assert reply is not None
        return reply

    def _waiter(self, request: str, holds_only: bool = False) -> asyncio.Future[dict[str, Any]]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        self._waiters[request] = (loop, future)
        if holds_only:
            self._waiters[request + "#holds"] = (loop, future)
        return future

    async def _wait(
        self, request: str, future: asyncio.Future[dict[str, Any]], timeout: float, quiet: bool = False
    ) -> dict[str, Any] | None:
        try:
            reply = await asyncio.wait_for(future, timeout)
            if reply.get("type") != "closed":
                return reply
            if quiet:
                return None
            raise NotebookUnavailableError(
                f"{self.why_not_live}; an edit may or may not be in the notebook: read it again"
            )
        except TimeoutError:
            if quiet:
                return None
            raise NotebookUnavailableError(
                f"the notebook's page did not answer within {timeout:g} s (closed, or its kernel connection "
                "dropped); an edit may or may not be in the notebook: read it again"
            ) from None
        finally:
            self._waiters.pop(request, None)
            self._waiters.pop(request + "#holds", None)

    def _on_msg(self, msg: dict[str, Any]) -> None:
        data = (msg.get("content") or {}).get("data")
        if not isinstance(data, dict) or not isinstance(data.get("page"), str) or len(data["page"]) > LIMITS.id:
            return
        if data.get("type") == "hello":
            path = data.get("path")
            hello = Hello(
                data["page"], path if isinstance(path, str) and len(path) <= 4096 else None, data.get("holds") is True
            )
            self._hellos[hello.page] = hello
        request = data.get("request")
        if not isinstance(request, str):
            return
        key = request + "#holds" if data.get("type") == "hello" and request + "#holds" in self._waiters else request
        if key.endswith("#holds") and data.get("holds") is not True:
            return  # a page without the prompt cell: wait for one that holds it
        waiter = self._waiters.get(key)
        if waiter is not None:
            loop, future = waiter
            loop.call_soon_threadsafe(_resolve, future, data)

    def _on_close(self, _msg: dict[str, Any]) -> None:
        """A page without the piece answers the open with a close (JupyterLab does so for an unknown
        target), and that closes the comm for every page: the next call opens a new one."""
        self._comm = None
        self._refused = True
        self._hellos.clear()
        for loop, future in list(self._waiters.values()):
            loop.call_soon_threadsafe(_resolve, future, {"type": "closed"})


def _resolve(future: asyncio.Future[dict[str, Any]], data: dict[str, Any]) -> None:
    if not future.done():
        future.set_result(data)


__all__ = ["HELLO_TIMEOUT", "PROTOCOL_VERSION", "REPLY_TIMEOUT", "TARGET", "Hello", "PageComm"]
