"""A stdio ACP peer in raw JSON-RPC that records every request exactly as the client sent it.

Neither SDK line's agent side keeps fields it does not model (``systemPrompt`` on session
requests), so this peer reads the JSON itself: ``python raw_session_agent.py CAPS.json``, where
the file holds the ``agentCapabilities`` to advertise. ``session/new``, ``load``, ``resume`` and
``fork`` are answered with a session id; ``session/prompt``'s text is a JSON list of
``["notify" | "request", method, params]`` steps sent as they are (a request waits for its reply),
then one ``agent_message_chunk`` reports, as ASCII JSON, ``calls`` (every request the client
made: ``[method, params]``) and ``replies`` (the replies to this peer's requests), and the turn
ends. A step's params may say ``"$session"`` where the prompt's session id goes.
"""

from __future__ import annotations

import json
import sys
from typing import Any

SESSION = "raw-session"


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _read() -> dict[str, Any] | None:
    line = sys.stdin.readline()
    return json.loads(line) if line else None


def _with_session(value: Any, session_id: str) -> Any:
    if value == "$session":
        return session_id
    if isinstance(value, dict):
        return {k: _with_session(v, session_id) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_session(v, session_id) for v in value]
    return value


class RawSessionAgent:
    def __init__(self, capabilities: dict[str, Any]) -> None:
        self.capabilities = capabilities
        self.calls: list[list[Any]] = []
        self.next_id = 0
        self.forks = 0

    def serve(self) -> None:
        while (message := _read()) is not None:
            if "method" in message:
                self.handle(message)

    def handle(self, message: dict[str, Any]) -> None:
        method, params, rid = message["method"], message.get("params") or {}, message.get("id")
        if method != "session/prompt":
            self.calls.append([method, params])
        if rid is None:
            return
        if method == "initialize":
            result: Any = {
                "protocolVersion": 1,
                "agentCapabilities": self.capabilities,
                "agentInfo": {"name": "raw-session-agent", "version": "1"},
            }
        elif method == "session/new":
            result = {"sessionId": SESSION}
        elif method == "session/fork":
            self.forks += 1
            result = {"sessionId": f"{SESSION}-fork-{self.forks}"}
        elif method in ("session/load", "session/resume", "session/close"):
            result = {}
        elif method == "session/prompt":
            result = self.prompt(params)
        else:
            _send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})
            return
        _send({"jsonrpc": "2.0", "id": rid, "result": result})

    def prompt(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = params["sessionId"]
        text = "".join(b.get("text", "") for b in params.get("prompt", []) if isinstance(b, dict))
        steps = json.loads(text) if text.strip().startswith("[") else []
        replies: list[Any] = []
        for kind, method, step_params in steps:
            payload = _with_session(step_params, session_id)
            if kind == "notify":
                _send({"jsonrpc": "2.0", "method": method, "params": payload})
                continue
            self.next_id += 1
            _send({"jsonrpc": "2.0", "id": f"agent-{self.next_id}", "method": method, "params": payload})
            replies.append(self.wait_reply(f"agent-{self.next_id}"))
        report = json.dumps({"calls": self.calls, "replies": replies}, ensure_ascii=True)
        _send(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": session_id,
                    "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": report}},
                },
            }
        )
        return {"stopReason": "end_turn"}

    def wait_reply(self, request_id: str) -> Any:
        while (message := _read()) is not None:
            if message.get("id") == request_id and "method" not in message:
                return message.get("result", {"error": message.get("error")})
            if "method" in message:
                self.calls.append([message["method"], message.get("params") or {}])
        return None


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as caps:
        RawSessionAgent(json.load(caps)).serve()
