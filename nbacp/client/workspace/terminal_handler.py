"""``terminal/*``: commands the agent runs through the kernel, inside the session's folders.

The rules are ``nbacp.client.workspace.terminals``'; this module checks the method was advertised and
the session is known, answers in ACP's shapes (``nbacp.client.wire.replies``), and hands each
change of output to the turn that embeds the terminal (only the tail it shows, so a flood costs
O(chunk) here, not O(output)).
"""

from __future__ import annotations

from acp.schema import (
    CreateTerminalResponse,
    EnvVariable,
    KillTerminalResponse,
    ReleaseTerminalResponse,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
)

from nbacp.client.surface import Surfaces
from nbacp.client.wire import replies
from nbacp.client.workspace.fs_handler import Roots
from nbacp.client.workspace.terminals import Terminal, Terminals

SHOWN_BYTES = 64 * 1024
"""How much of a client terminal's output is handed to the turn's view (which shows less)."""


class TerminalHandlers:
    def __init__(self, enabled: bool, roots: Roots, surfaces: Surfaces) -> None:
        self.enabled = enabled
        self.roots = roots
        self.surfaces = surfaces
        self.terminals = Terminals(self._changed)

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None,
        env: list[EnvVariable] | None,
        cwd: str | None,
        output_byte_limit: int | None,
    ) -> CreateTerminalResponse:
        roots = self.roots.of(session_id, "terminal/create", self.enabled)
        terminal = await self.terminals.create(session_id, command, args, env, cwd, output_byte_limit, roots, roots[0])
        return CreateTerminalResponse(terminal_id=terminal.id)

    def _terminal(self, session_id: str, terminal_id: str, method: str) -> Terminal:
        self.roots.of(session_id, method, self.enabled)
        return self.terminals.get(session_id, terminal_id)

    def terminal_output(self, session_id: str, terminal_id: str) -> TerminalOutputResponse:
        terminal = self._terminal(session_id, terminal_id, "terminal/output")
        return replies.terminal_output(terminal.output, terminal.truncated, terminal.exit_status())

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str) -> WaitForTerminalExitResponse:
        status = await self._terminal(session_id, terminal_id, "terminal/wait_for_exit").wait()
        return replies.terminal_exit(status)

    async def kill_terminal(self, session_id: str, terminal_id: str) -> KillTerminalResponse:
        await self._terminal(session_id, terminal_id, "terminal/kill").kill()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str) -> ReleaseTerminalResponse:
        self._terminal(session_id, terminal_id, "terminal/release")
        await self.terminals.release(session_id, terminal_id)
        return ReleaseTerminalResponse()

    def _changed(self, session_id: str, terminal_id: str, terminal: Terminal) -> None:
        """New output or an exit: the turn's tool call that embeds the terminal shows it (frames bound the cost)."""
        surface = self.surfaces.for_session(session_id)
        if surface is not None:
            text, omitted = terminal.tail(SHOWN_BYTES)
            surface.terminal_output(terminal_id, text, exit_status=terminal.exit_status(), omitted=omitted)

    async def aclose(self) -> None:
        await self.terminals.close()
