"""How a command ended: an exit code or a signal, and the line a turn shows for it.

The kernel's client terminals report it (``nbacp.client.workspace.terminals``), the transcript shows it,
and the wire layer turns it into ACP's ``exitCode`` / ``signal`` (``nbacp.client.wire.replies``).
"""

from __future__ import annotations

from typing import Any, NamedTuple


class ExitStatus(NamedTuple):
    """``exit_code`` for a normal exit, ``signal`` ("SIGKILL") for a kill; both None when unknown."""

    exit_code: int | None
    signal: str | None

    def line(self) -> str:
        return exit_line(self.exit_code, self.signal)


UNKNOWN = ExitStatus(None, None)
"""A command whose end nobody saw (cancelled before it reported)."""


def exit_line(exit_code: Any, signal: Any) -> str:
    """ "exit code 3", "killed by SIGTERM" or "ended" (neither known, e.g. a cancelled command)."""
    if isinstance(exit_code, int):
        return f"exit code {exit_code}"
    if signal:
        return f"killed by {str(signal)[:40]}"
    return "ended"
