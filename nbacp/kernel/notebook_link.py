"""The way to the open notebook through nbacp's front-end piece: a comm ``nbacp:notebook``.

The kernel opens the comm; every page that shows a notebook on this kernel and has the piece
(labextension/, JupyterLab 4 / Notebook 7) answers a ``who`` with a ``hello`` (its page id, the
notebook's path, whether it holds the prompt cell). The link picks the first page that holds the
prompt cell and names it in each ``read`` / ``edit``: other pages ignore those, so an edit is
applied once however many tabs show the notebook. The page edits the notebook's own shared model
and reads the result back. The protocol, limits and what was tested where: docs/notebook-edits.md.

"The right notebook": the prompt cell's id comes with the execute request (JupyterLab and
Notebook 7 put ``cellId`` in its metadata); the page must hold that cell, and the Jupyter server
must run this kernel for the page's notebook (``/api/sessions``, or ``JPY_SESSION_NAME`` when no
server can be asked). Anything less is refused with :class:`~nbacp.errors.NotebookUnavailableError`.

Every wait is bounded; replies resolve futures in the kernel's loop, so a turn awaiting a tool
call keeps receiving them (on ipykernel < 7.4 while :mod:`.forwarding` lets comm messages through).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import secrets
from dataclasses import dataclass
from typing import Any

from nbacp.errors import NotebookUnavailableError
from nbacp.kernel import identity, versions
from nbacp.kernel.notebook_edits import CellEdit, EditResult, NotebookView
from nbacp.kernel.notebook_wire import LIMITS, cells_of, edit_message, edit_result
from nbacp.kernel.server_sessions import server_sessions

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


def prompt_cell_id(parent: dict[str, Any] | None = None) -> str | None:
    """The id of the cell whose execute request is being handled (None outside one, or when the
    front end sends no ``cellId``: VS Code, Colab, nbclient)."""
    if parent is None:
        kernel = versions.current_kernel() if versions.running_in_kernel() else None
        parent = kernel.get_parent("shell") if kernel is not None else None
    if not isinstance(parent, dict) or (parent.get("header") or {}).get("msg_type") != "execute_request":
        return None
    cell = (parent.get("metadata") or {}).get("cellId")
    return cell if isinstance(cell, str) and 0 < len(cell) <= LIMITS.id else None


def _create_comm(data: dict[str, Any]) -> Any:
    try:
        import comm
    except ImportError:  # ipykernel < 6.18 (Colab's 6.17.1) has no comm package
        from ipykernel import comm as kernel_comm

        return kernel_comm.Comm(target_name=TARGET, data=data)  # type: ignore[no-untyped-call]
    return comm.create_comm(target_name=TARGET, data=data)


class CommNotebookLink:
    """A :class:`~nbacp.kernel.notebook_edits.NotebookLink` over the ``nbacp:notebook`` comm.

    ``await link.connect()`` opens the comm and waits (at most ``hello_timeout``) for a page;
    :attr:`live` says whether one answered. :meth:`read` and :meth:`apply` connect when needed.
    The prompt cell is the one whose execute request was handled last when :meth:`note_prompt`
    ran (nbacp calls it as a turn starts, in the prompt cell); comm messages never replace it.
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
        self._checked_paths: set[str] = set()
        self._turn_noted = False

    # -- NotebookLink ------------------------------------------------------------------------
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

    async def read(self) -> NotebookView:
        page, cell = await self._page()
        reply = await self._request(page, {"type": "read"}, cell)
        if reply.get("type") != "read_reply":
            raise NotebookUnavailableError("the page answered the read with something else")
        if isinstance(reply.get("error"), str):
            raise NotebookUnavailableError(f"the page could not read the notebook: {reply['error'][:300]}")
        cells = cells_of(reply.get("cells"))
        if isinstance(cells, str):
            raise NotebookUnavailableError(f"the page's answer to the read is malformed: {cells}")
        path = str(reply.get("path") or "")
        return NotebookView(path=path, prompt_cell_id=cell, cells=cells)

    async def apply(self, edit: CellEdit) -> EditResult:
        message = edit_message(edit)
        if isinstance(message, str):
            return EditResult("not_applied", None, None, message)
        try:
            page, cell = await self._page()
        except NotebookUnavailableError as exc:
            return EditResult("not_applied", None, None, str(exc))
        if edit.mode == "delete" and edit.cell_id == cell:
            return EditResult("not_applied", None, None, "the prompt cell itself cannot be deleted")
        try:
            reply = await self._request(page, message, cell)
        except NotebookUnavailableError as exc:
            return EditResult("not_applied", None, None, str(exc))
        return edit_result(reply)

    def turn_started(self) -> None:
        """Note the prompt cell now, for the whole turn: the turn's tool calls run in tasks of the
        connection, whose context (ipykernel 7 keeps the parent request in a context variable)
        holds the request of the cell that connected, not the prompt's."""
        self.note_prompt()
        self._turn_noted = True

    # -- connection --------------------------------------------------------------------------
    def note_prompt(self, cell_id: str | None = None) -> str | None:
        """Remember the prompt cell (``cell_id``, or the current execute request's) and return it."""
        found = cell_id if cell_id is not None else prompt_cell_id()
        if found is not None:
            self.prompt_cell = found
        return self.prompt_cell

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

    async def _page(self) -> tuple[str, str]:
        """The page to address for the prompt cell, after the cross-checks of "the right notebook"."""
        cell = self.prompt_cell if self._turn_noted else self.note_prompt()
        if cell is None:
            raise NotebookUnavailableError(
                "the prompt's cell id did not come with its execute request (this front end does not send "
                "one), so nbacp cannot be sure which notebook to edit"
            )
        if not await self.connect():
            raise NotebookUnavailableError(self.why_not_live)
        request = self._new_request()
        future = self._waiter(request, holds_only=True)
        self._comm.send(self._who(request, cell))
        reply = await self._wait(request, future, self.hello_timeout, quiet=True)
        if reply is None:
            if not self._hellos:
                raise NotebookUnavailableError(self.why_not_live)
            self._hellos.clear()  # tabs may have closed: the next call looks for pages anew
            raise NotebookUnavailableError(
                f"no page that shows a notebook holding the prompt cell {cell} answered within "
                f"{self.hello_timeout:g} s (was the notebook closed, or the cell deleted?)"
            )
        hello = self._hellos[str(reply["page"])]
        await self._check_path(hello.path)
        return hello.page, cell

    async def _check_path(self, path: str | None) -> None:
        """Refuse unless this kernel's server runs it for ``path`` (or ``JPY_SESSION_NAME`` names it)."""
        if not path:
            raise NotebookUnavailableError("the page did not say which notebook holds the prompt cell")
        if path in self._checked_paths:
            return
        found = await asyncio.to_thread(server_sessions, identity.kernel_id())
        if found is not None:
            if path not in found.kernel_paths:
                raise NotebookUnavailableError(
                    f"the page shows the prompt cell in {path}, but the Jupyter server runs this kernel for "
                    f"{', '.join(sorted(found.kernel_paths)) or 'no notebook'}"
                )
        else:
            session = os.environ.get("JPY_SESSION_NAME", "")
            if not session or not (session == path or session.endswith("/" + path) or path.endswith("/" + session)):
                raise NotebookUnavailableError(
                    f"nbacp cannot confirm that this kernel runs {path}: no Jupyter server on this machine "
                    "lists it, and JPY_SESSION_NAME " + (f"names {session}" if session else "is not set")
                )
        self._checked_paths.add(path)

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


__all__ = ["TARGET", "CommNotebookLink", "Hello", "prompt_cell_id"]
