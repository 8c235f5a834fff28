"""A scripted agent that calls the client's ``fs/*`` and ``terminal/*`` methods exactly as ACP says.

The prompt text is a JSON list of steps; each step's outcome (the reply, or the JSON-RPC error's
code, message and data) is kept in ``results`` and said back as one JSON agent message, so a
test reads the same outcome in-process and over stdio:

- ``{"op": "read", "path": p, "line": n, "limit": n}``: ``fs/read_text_file``
- ``{"op": "write", "path": p, "content": s}``: ``fs/write_text_file``
- ``{"op": "run", "command": c, "args": [...], "env": {...}, "cwd": d, "limit": n}``: a tool call
  that embeds a new terminal (``terminal/create``), ``wait_for_exit``, ``output``, ``release``
- ``{"op": "hold", "command": c}``: the same, but it waits for ``session/cancel`` and then kills
  the terminal (``terminal/kill``), reads its output and releases it, as an agent does on the stop button
- ``{"op": "create", "command": c}``: ``terminal/create`` only (the terminal stays open)
- ``{"op": "raw", "method": m, "params": {...}}``: any request, as sent

Run over stdio: ``python tests/support/client_methods_agent.py``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a file: find the support package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acp import PROTOCOL_VERSION
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    CloseSessionResponse,
    EnvVariable,
    InitializeResponse,
    PromptResponse,
    SessionAdditionalDirectoriesCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    TerminalToolCallContent,
    ToolCallProgress,
)
from support.agents import RawAgent
from support.builders import start_tool_call


class ClientMethodsAgent(RawAgent):
    """Runs the prompt's steps against the client; ``results`` holds one outcome per step."""

    def __init__(self) -> None:
        super().__init__()
        self.results: list[dict[str, Any]] = []
        self.terminal_ids: list[str] = []
        self.created = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def initialize(
        self, protocol_version: int, client_capabilities: ClientCapabilities | None = None, **kwargs: Any
    ) -> InitializeResponse:
        self.client_capabilities = client_capabilities
        caps = AgentCapabilities(
            session_capabilities=SessionCapabilities(
                close=SessionCloseCapabilities(), additional_directories=SessionAdditionalDirectoriesCapabilities()
            )
        )
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=caps)

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        return CloseSessionResponse()

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled.set()

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        self.cancelled.clear()
        steps = json.loads(prompt[0].text)
        outcomes: list[dict[str, Any]] = []
        for number, step in enumerate(steps):
            try:
                outcomes.append({"ok": await self._step(session_id, f"call-{number}", step)})
            except Exception as exc:
                outcomes.append(
                    {
                        "error": {
                            "code": getattr(exc, "code", None),
                            "message": str(exc),
                            "data": getattr(exc, "data", None),
                        }
                    }
                )
        self.results.extend(outcomes)
        await self._say(session_id, json.dumps(outcomes))
        return PromptResponse(stop_reason="cancelled" if self.cancelled.is_set() else "end_turn")

    async def _step(self, session_id: str, call_id: str, step: dict[str, Any]) -> Any:
        conn, op = self.conn, step["op"]
        if op == "read":
            reply = await conn.read_text_file(
                session_id=session_id, path=step["path"], line=step.get("line"), limit=step.get("limit")
            )
            return reply.content
        if op == "write":
            await conn.write_text_file(session_id=session_id, path=step["path"], content=step["content"])
            return "written"
        if op == "raw":
            return await conn._conn.send_request(step["method"], step["params"])
        env = [EnvVariable(name=k, value=v) for k, v in step.get("env", {}).items()] or None
        created = await conn.create_terminal(
            session_id=session_id,
            command=step["command"],
            args=step.get("args"),
            env=env,
            cwd=step.get("cwd"),
            output_byte_limit=step.get("limit"),
        )
        terminal_id = created.terminal_id
        self.terminal_ids.append(terminal_id)
        self.created.set()
        if op == "create":
            return terminal_id
        content = [TerminalToolCallContent(type="terminal", terminal_id=terminal_id)]
        await conn.session_update(
            session_id=session_id,
            update=start_tool_call(call_id, step["command"], kind="execute", status="in_progress", content=content),
        )
        if op == "hold":
            await self.cancelled.wait()
            await conn.kill_terminal(session_id=session_id, terminal_id=terminal_id)
        exit_status = await conn.wait_for_terminal_exit(session_id=session_id, terminal_id=terminal_id)
        output = await conn.terminal_output(session_id=session_id, terminal_id=terminal_id)
        await conn.release_terminal(session_id=session_id, terminal_id=terminal_id)
        status = "completed" if exit_status.exit_code == 0 else "failed"
        await conn.session_update(
            session_id=session_id,
            update=ToolCallProgress(session_update="tool_call_update", tool_call_id=call_id, status=status),
        )
        return {
            "output": output.output,
            "truncated": output.truncated,
            "exitCode": exit_status.exit_code,
            "signal": exit_status.signal,
            "outputExit": {"exitCode": output.exit_status.exit_code, "signal": output.exit_status.signal}
            if output.exit_status
            else None,
        }


def main() -> None:
    from acp import run_agent

    asyncio.run(run_agent(ClientMethodsAgent(), use_unstable_protocol=True))


if __name__ == "__main__":
    main()
