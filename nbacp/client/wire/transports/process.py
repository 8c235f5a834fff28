"""Starting and stopping a command agent: its environment, its own session, its stderr.

Three choices differ from the SDK's ``spawn_agent_process`` and are why nbacp starts the
process itself:
- environment: the SDK keeps only HOME, PATH, SHELL, TERM, USER, LOGNAME, so an API key
  exported in the kernel never reached the agent. Here the agent inherits the kernel's whole
  environment; ``env=`` adds or overrides variables, and a value of ``None`` removes one.
- process group: ipykernel and jupyter_client interrupt the kernel's whole process group, so
  an agent in it died on every press of the stop button. It runs in its own session
  (``start_new_session``); nbacp's own cancel path tells it with ``session/cancel``.
- stderr: the SDK leaves it an unread pipe, which blocks the agent once full. It is drained
  continuously into a bounded tail (``nbacp.client.wire.transports.stderr``), shown when the agent fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nbacp.client.wire.transports.stderr import StderrTail, drain

SHUTDOWN_GRACE = 2.0


def child_environment(env: Mapping[str, str | None] | None) -> dict[str, str]:
    """The kernel's environment, updated by ``env``; a ``None`` value drops that variable."""
    merged = dict(os.environ)
    for key, value in (env or {}).items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[str(key)] = str(value)
    return merged


@dataclass
class AgentProcess:
    """A running command agent: its pipes, its stderr tail and the task that drains it."""

    process: asyncio.subprocess.Process
    stderr: StderrTail = field(default_factory=StderrTail)
    _drain: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    async def stderr_settled(self, timeout: float = 1.0) -> None:
        """Give the drain a moment to read what a dying agent wrote last (its reason, usually)."""
        if self._drain is not None and not self._drain.done():
            await asyncio.wait({self._drain}, timeout=timeout)

    async def stop(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Close stdin, let the agent exit by itself, then SIGTERM and SIGKILL its whole group."""
        process = self.process
        if process.stdin is not None:
            with contextlib.suppress(Exception):
                process.stdin.close()
        if process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), timeout=grace)
            except TimeoutError:
                for sig in (signal.SIGTERM, getattr(signal, "SIGKILL", signal.SIGTERM)):
                    _signal_group(process, sig)
                    try:
                        await asyncio.wait_for(process.wait(), timeout=grace)
                        break
                    except TimeoutError:
                        continue
        if self._drain is not None:
            # the agent is gone; a grandchild may still hold the pipe open: stop reading
            try:
                await asyncio.wait_for(asyncio.shield(self._drain), timeout=0.5)
            except TimeoutError:
                self._drain.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._drain


def _signal_group(process: asyncio.subprocess.Process, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, sig)  # the agent leads its own group (start_new_session)
        else:  # Windows: no process groups to signal
            process.terminate()


async def start(argv: list[str], env: Mapping[str, str | None] | None, cwd: str | None) -> AgentProcess:
    """Start ``argv`` with stdin/stdout as the ACP pipes and stderr drained into a tail."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=child_environment(env),
        cwd=cwd,
        start_new_session=True,  # the kernel's stop button signals its process group, not ours
        limit=2**24,  # one JSON-RPC message per line; 16 MiB, as for websocket agents
    )
    agent = AgentProcess(process)
    assert process.stderr is not None
    agent._drain = asyncio.ensure_future(drain(process.stderr, agent.stderr))
    return agent


async def stderr_after_failure(connection: Any) -> AgentProcess | None:
    """After a failed turn: the agent's process once its last stderr is read, when it wrote any, else None.

    The session layer shows what it wrote (collapsed) under the turn.
    """
    agent: AgentProcess | None = getattr(connection, "process", None)
    if agent is None:
        return None
    if agent.returncode is not None or agent.process.stdout is None or agent.process.stdout.at_eof():
        await agent.stderr_settled(0.5)  # it exited: its last words may still be in the pipe
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(agent.process.wait()), 0.5)  # for the exit code
    return agent if agent.stderr else None


def exit_note(connection: Any) -> str:
    """ " The agent process exited with code 7; its stderr ends with: ..." for a lost connection, or ""."""
    agent: AgentProcess | None = getattr(connection, "process", None)
    if agent is None or agent.returncode is None:
        return ""
    last = next((line for line in reversed(agent.stderr.lines) if line.strip()), "")
    said = f"; its stderr ends with: {last[:300]}" if last else ""
    return f" The agent process exited with code {agent.returncode}{said}."
