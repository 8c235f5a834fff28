"""``terminal/*``: commands the agent runs through the kernel, streamed into the turn.

The rule (docs/files-and-terminals.md, 'Terminals'): each command runs in its own process
group (so the kernel's stop button, which signals the kernel's group, never hits it, and a kill
reaches every process it started), in the session's cwd or a ``cwd`` inside the session's
roots, with the kernel's environment plus the request's ``env``. A command with ``args`` is run
as given; one without is a shell line (``/bin/sh -c``), which is what agents send. Output is
kept up to ``outputByteLimit`` and nbacp's own ``MAX_OUTPUT_BYTES``, truncated from the
beginning at a character boundary (``truncated: true``), and is always drained, so a process
never blocks on a full pipe. A connection holds at most ``MAX_LIVE_TERMINALS`` unreleased
terminals. Every terminal's whole group is killed when it is released, when its session or
connection closes, and when the kernel process exits (``atexit``).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import uuid
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from acp import RequestError

from nbacp.client.wire.transports.process import child_environment
from nbacp.client.workspace.files import REFUSED, refusal, resolve_inside
from nbacp.render.exit_status import UNKNOWN, ExitStatus

MAX_OUTPUT_BYTES = 1024 * 1024
"""nbacp's own cap on the output one terminal keeps (the agent's ``outputByteLimit`` may be lower)."""
MAX_LIVE_TERMINALS = 16
"""Unreleased terminals one connection may hold; one more is refused until the agent releases one."""
KILL_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL to a terminal's process group."""
READ_CHUNK = 64 * 1024

OutputListener = Callable[[str, str, "Terminal"], None]  # (session_id, terminal_id, terminal)


class Terminal:
    """One command: its process group, its kept output, its exit status."""

    def __init__(
        self,
        session_id: str,
        terminal_id: str,
        process: asyncio.subprocess.Process,
        limit: int,
        listener: OutputListener | None,
    ) -> None:
        self.session_id = session_id
        self.id = terminal_id
        self.process = process
        self.limit = limit
        self.truncated = False
        self.total_bytes = 0  # everything the command printed, kept or not
        self._buffer = bytearray()
        self._ended = False  # exited and its output read to the end (or given up on, see kill)
        self._listener = listener
        self._reader = asyncio.ensure_future(self._read())

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def output(self) -> str:
        """The kept output, decoded; after a truncation it starts at a character boundary."""
        return _decode(bytes(self._buffer), cut=self.truncated)

    def tail(self, max_bytes: int) -> tuple[str, int]:
        """The last ``max_bytes`` of the output (from a character boundary) and how many bytes precede them."""
        data = bytes(self._buffer[-max_bytes:])
        return _decode(data, cut=len(data) < self.total_bytes), self.total_bytes - len(data)

    def exit_status(self) -> ExitStatus | None:
        """How the command ended (an exit code, or the signal that killed it); None while running."""
        code = self.process.returncode
        if code is None or not self._ended:
            return None
        if code < 0:
            with contextlib.suppress(ValueError):
                return ExitStatus(None, signal.Signals(-code).name)
            return ExitStatus(None, str(-code))
        return ExitStatus(code, None)

    async def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        try:
            while chunk := await stream.read(READ_CHUNK):
                self.total_bytes += len(chunk)
                self._buffer += chunk
                if len(self._buffer) > self.limit:
                    del self._buffer[: len(self._buffer) - self.limit]
                    self.truncated = True
                self._notify()
            await self.process.wait()
        finally:
            self._ended = self.process.returncode is not None
        self._notify()

    def _notify(self) -> None:
        if self._listener is not None:
            try:
                self._listener(self.session_id, self.id, self)
            except Exception:  # the view must never stop the drain (the pipe would fill)
                self._listener = None

    async def wait(self) -> ExitStatus:
        await asyncio.wait({self._reader})  # never raises the reader's end (kill may cancel it)
        await self.process.wait()
        return self.exit_status() or UNKNOWN

    def signal_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)  # the command leads its own group (start_new_session)

    async def kill(self) -> None:
        """SIGTERM to the whole group, SIGKILL after ``KILL_GRACE``; returns once the command exited."""
        if self.process.returncode is None:
            self.signal_group(signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.process.wait()), KILL_GRACE)
        self.signal_group(signal.SIGKILL)  # also what the leader left behind in its group
        await self.process.wait()
        try:  # a grandchild outside the group may still hold the pipe: stop reading
            await asyncio.wait_for(asyncio.shield(self._reader), 0.5)
        except TimeoutError:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader


def _decode(data: bytes, *, cut: bool) -> str:
    """UTF-8 text; where ``cut``, first drop the continuation bytes a cut left at the start."""
    if cut:
        skip = 0
        while skip < min(3, len(data)) and 0x80 <= data[skip] < 0xC0:
            skip += 1
        data = data[skip:]
    return data.decode("utf-8", errors="replace")


_LIVE: weakref.WeakSet[Terminal] = weakref.WeakSet()


@atexit.register
def _kill_all_at_exit() -> None:
    """The kernel is shutting down: no command it started may outlive it."""
    for terminal in list(_LIVE):
        terminal.signal_group(signal.SIGKILL)


class Terminals:
    """The terminals of one connection, by id; ``listener`` hears every change of output."""

    def __init__(
        self,
        listener: OutputListener | None = None,
        *,
        max_live: int = MAX_LIVE_TERMINALS,
        max_output: int = MAX_OUTPUT_BYTES,
    ) -> None:
        self.listener = listener
        self.max_live = max_live
        self.max_output = max_output
        self._terminals: dict[str, Terminal] = {}

    def __len__(self) -> int:
        return len(self._terminals)

    def live(self) -> list[Terminal]:
        """The terminals not released yet."""
        return list(self._terminals.values())

    async def create(
        self,
        session_id: str,
        command: str,
        args: Sequence[str] | None,
        env: Sequence[Any] | None,
        cwd: str | None,
        output_byte_limit: int | None,
        roots: Sequence[Path],
        default_cwd: Path,
    ) -> Terminal:
        if len(self._terminals) >= self.max_live:
            raise RequestError(
                REFUSED,
                f"Refused: {self.max_live} terminals are already open in this connection "
                "(nbacp's limit); release one (terminal/release) first.",
                {"reason": "too_many_terminals"},
            )
        where = resolve_inside(cwd, roots) if cwd is not None else default_cwd
        if not where.is_dir():
            raise refusal(str(where), "not_a_directory", f"Refused: the working directory {where} does not exist.")
        argv = [command, *args] if args else ["/bin/sh", "-c", command]
        overrides: dict[str, str | None] = {str(v.name): str(v.value) for v in env or []}
        limit = self.max_output if output_byte_limit is None else min(output_byte_limit, self.max_output)
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                cwd=str(where),
                env=child_environment(overrides),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except (OSError, ValueError) as exc:  # not found, not executable; a NUL or "=" in a name
            why = getattr(exc, "strerror", None) or str(exc)
            message = f"Could not start {command[:200]!r}: {why}."
            raise RequestError(REFUSED, message, {"reason": "start_failed"}) from None
        terminal = Terminal(session_id, f"term-{uuid.uuid4().hex[:12]}", process, limit, self.listener)
        self._terminals[terminal.id] = terminal
        _LIVE.add(terminal)
        return terminal

    def get(self, session_id: str, terminal_id: str) -> Terminal:
        terminal = self._terminals.get(terminal_id)
        if terminal is None or terminal.session_id != session_id:
            raise refusal(
                terminal_id,
                "unknown_terminal",
                f"Unknown terminal {terminal_id!r} in this session (never created, or released).",
            )
        return terminal

    async def release(self, session_id: str, terminal_id: str) -> None:
        terminal = self.get(session_id, terminal_id)
        del self._terminals[terminal_id]
        await terminal.kill()

    async def close(self, session_id: str | None = None) -> int:
        """Kill and forget every terminal (of one session, or all); returns how many."""
        gone = [t for t in self._terminals.values() if session_id is None or t.session_id == session_id]
        for terminal in gone:
            del self._terminals[terminal.id]
        await asyncio.gather(*(t.kill() for t in gone), return_exceptions=True)
        return len(gone)
