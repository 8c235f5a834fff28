"""A hostile agent whose replies and messages are raw JSON, the same in process and over stdio.

The SDK's agent side sends a handler's plain-dict result as it is, so the replies to
``initialize``, ``session/new`` and ``session/load`` can carry what pydantic would refuse to
build (lone surrogates, 5,000 auth methods, duplicate ids); ``prompt`` sends the script's raw
requests and notifications through the SDK's JSON-RPC connection. A script is a JSON object:

- ``initialize``, ``new_session``, ``load_session``: the raw result of each (defaults: minimal);
- ``auth_required``: ``session/new`` answers -32000 until ``authenticate`` was called;
- ``replay``: ``session/update`` payloads sent during ``session/load`` before its reply;
- ``prompt``: a list of ``["notify" | "request", method, params]`` steps, then the turn ends
  with one ``agent_message_chunk`` reporting, as ASCII JSON, every call the client made
  (``calls``: ``[method, params]``) and every reply it got (``replies``).

In process: ``ScriptedAgent(script)``; over stdio: ``python scripted_agent.py SCRIPT.json``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

SESSION = "scripted"


class ScriptedAgent:
    def __init__(self, script: dict[str, Any]) -> None:
        self.script = script
        self.conn: Any = None
        self.calls: list[list[Any]] = []
        self.replies: list[Any] = []

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> Any:
        self.calls.append(["initialize", {}])
        return self.script.get("initialize") or {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}}

    async def new_session(self, cwd: str, **kwargs: Any) -> Any:
        self.calls.append(["session/new", {}])
        if self.script.get("auth_required") and not any(call[0] == "authenticate" for call in self.calls):
            from acp import RequestError

            raise RequestError(-32000, "Authentication required")
        return self.script.get("new_session") or {"sessionId": SESSION}

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> Any:
        self.calls.append(["session/load", {"sessionId": session_id}])
        rpc = self.conn._conn
        for update in self.script.get("replay", ()):
            await rpc.send_notification("session/update", {"sessionId": session_id, "update": update})
        return self.script.get("load_session") or {}

    async def authenticate(self, method_id: str, **kwargs: Any) -> Any:
        self.calls.append(["authenticate", {"methodId": method_id}])
        return {}

    async def set_session_mode(self, mode_id: str, session_id: str, **kwargs: Any) -> Any:
        self.calls.append(["session/set_mode", {"modeId": mode_id}])
        return {}

    async def set_config_option(self, config_id: str, session_id: str, value: Any, **kwargs: Any) -> Any:
        self.calls.append(["session/set_config_option", {"configId": config_id, "value": value}])
        options = (self.script.get("new_session") or {}).get("configOptions") or []
        for option in options:
            if option.get("id") == config_id:
                option["currentValue"] = value
        return {"configOptions": options}

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> Any:
        blocks = [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in prompt]
        self.calls.append(["session/prompt", {"prompt": blocks}])
        rpc = self.conn._conn
        for kind, method, params in self.script.get("prompt", ()):
            if kind == "notify":
                await rpc.send_notification(method, params)
            else:
                try:
                    self.replies.append(await rpc.send_request(method, params))
                except Exception as exc:
                    self.replies.append({"error": getattr(exc, "code", None), "message": str(exc)})
        report = json.dumps({"calls": self.calls, "replies": self.replies}, ensure_ascii=True)
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": report}}
        await rpc.send_notification("session/update", {"sessionId": session_id, "update": update})
        return {"stopReason": "end_turn"}


def main() -> None:
    from acp import run_agent

    with open(sys.argv[1], encoding="utf-8") as f:
        script = json.load(f)
    asyncio.run(run_agent(ScriptedAgent(script), use_unstable_protocol=True))


if __name__ == "__main__":
    main()


def target(script: dict[str, Any], via: str, folder: Any) -> Any:
    """What ``nbacp.connect`` takes for this script: the agent object, or the stdio command."""
    if via == "in-process":
        return ScriptedAgent(script)
    path = folder / "script.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    return [sys.executable, __file__, str(path)]


def report(text: str) -> dict[str, Any]:
    """The agent's closing report (see the module docstring)."""
    return json.loads(text)  # type: ignore[no-any-return]
