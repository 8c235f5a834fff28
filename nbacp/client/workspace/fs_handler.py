"""``fs/read_text_file`` and ``fs/write_text_file``, inside each session's folders.

The rules are ``nbacp.client.workspace.files``' (and ``nbacp.client.workspace.open_notebooks`` for the notebooks
the person has open); this module only finds the session's folders, runs the blocking parts in
a worker thread, and shows each write on the turn as a diff block. A method the client did not
advertise is answered "Method not found", as if it did not exist.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from acp import RequestError
from acp.schema import ReadTextFileResponse, WriteTextFileResponse

from nbacp import kernel
from nbacp.client.surface import Surfaces
from nbacp.client.workspace import files, open_notebooks

FileAccess = bool | Literal["write"]
"""``connect(fs=...)``: True (read and write), "write" (write only) or False (neither)."""


class Roots:
    """Per session: the folders it may read, write and run commands in (symlinks resolved).

    A subagent session has its parent's folders, never wider ones (a child's announced ``cwd`` is
    the agent's word, not the person's choice; docs/protocol.md, 'Subagents, notices, compaction').
    """

    def __init__(self) -> None:
        self.by_session: dict[str, tuple[Path, ...]] = {}
        self.parent_of: Callable[[str], str | None] = lambda session_id: None  # the client's subagents

    def owner(self, session_id: str) -> str:
        """The session whose folders (and turn) ``session_id`` uses: its top parent for a subagent."""
        return session_id if session_id in self.by_session else (self.parent_of(session_id) or session_id)

    def set(self, session_id: str, cwd: str, additional: Sequence[str] = ()) -> None:
        self.by_session[session_id] = tuple(Path(os.path.realpath(p)) for p in (cwd, *additional))

    def of(self, session_id: str, method: str, allowed: bool) -> tuple[Path, ...]:
        """The folders of ``session_id``; "Method not found" when ``method`` was not advertised."""
        if not allowed:
            raise RequestError.method_not_found(method)
        roots = self.by_session.get(self.owner(session_id))
        if roots is None:
            raise files.refusal(session_id, "unknown_session", f"Unknown session {session_id!r} for {method}.")
        return roots


class Files:
    """The file system as ``connect(fs=...)`` opened it."""

    def __init__(self, access: FileAccess, roots: Roots, surfaces: Surfaces) -> None:
        self.read = access is True
        self.write = access in (True, "write")
        self.roots = roots
        self.surfaces = surfaces

    async def read_text_file(
        self, session_id: str, path: str, line: int | None, limit: int | None
    ) -> ReadTextFileResponse:
        roots = self.roots.of(session_id, "fs/read_text_file", self.read)
        text = await asyncio.to_thread(files.read_text, path, roots, line, limit)
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str) -> WriteTextFileResponse:
        roots = self.roots.of(session_id, "fs/write_text_file", self.write)
        written = await asyncio.to_thread(_write, path, content, roots, kernel.kernel_id())
        surface = self.surfaces.for_session(self.roots.owner(session_id))
        if surface is not None:  # the turn shows the write as a diff block; its record lists it as an edit
            surface.file_written(written.path, written.old_text, written.new_text, written.summary)
        return WriteTextFileResponse()


def _write(path: str, content: str, roots: Sequence[Path], kernel_id: str | None) -> files.Written:
    """In a worker thread: which notebooks are open (a local HTTP call), then the write."""
    return files.write_text(path, content, roots, open_notebooks.protected_notebooks(kernel_id))
