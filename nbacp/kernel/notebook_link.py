"""The way to the open notebook through nbacp's front-end piece, over the ``nbacp:notebook`` comm.

The link picks the first page that holds the prompt cell (:mod:`.page_comm` carries the
messages) and names it in each ``read`` / ``edit``: other pages ignore those, so an edit is
applied once however many tabs show the notebook. The page edits the notebook's own shared model
and reads the result back. The protocol, limits and what was tested where: docs/notebook-edits.md.

"The right notebook": the prompt cell's id comes with the execute request (JupyterLab and
Notebook 7 put ``cellId`` in its metadata); the page must hold that cell, and the Jupyter server
must run this kernel for the page's notebook (``/api/sessions``, or ``JPY_SESSION_NAME`` when no
server can be asked). Anything less is refused with :class:`~nbacp.errors.NotebookUnavailableError`.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from nbacp.errors import NotebookUnavailableError
from nbacp.kernel import identity, versions
from nbacp.kernel.notebook_edits import CellEdit, EditResult, NotebookView
from nbacp.kernel.notebook_wire import LIMITS, cells_of, edit_message, edit_result
from nbacp.kernel.page_comm import HELLO_TIMEOUT, REPLY_TIMEOUT, PageComm
from nbacp.kernel.server_sessions import server_sessions


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


class CommNotebookLink(PageComm):
    """A :class:`~nbacp.kernel.notebook_edits.NotebookLink` over the ``nbacp:notebook`` comm.

    ``await link.connect()`` opens the comm and waits (at most ``hello_timeout``) for a page;
    :attr:`live` says whether one answered. :meth:`read` and :meth:`apply` connect when needed.
    The prompt cell is the one whose execute request was handled last when :meth:`note_prompt`
    ran (nbacp calls it as a turn starts, in the prompt cell); comm messages never replace it.
    """

    def __init__(self, *, hello_timeout: float = HELLO_TIMEOUT, reply_timeout: float = REPLY_TIMEOUT) -> None:
        super().__init__(hello_timeout=hello_timeout, reply_timeout=reply_timeout)
        self._checked_paths: set[str] = set()
        self._turn_noted = False

    # -- NotebookLink ------------------------------------------------------------------------
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

    # -- the right notebook ------------------------------------------------------------------
    def note_prompt(self, cell_id: str | None = None) -> str | None:
        """Remember the prompt cell (``cell_id``, or the current execute request's) and return it."""
        found = cell_id if cell_id is not None else prompt_cell_id()
        if found is not None:
            self.prompt_cell = found
        return self.prompt_cell

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


__all__ = ["CommNotebookLink", "prompt_cell_id"]
