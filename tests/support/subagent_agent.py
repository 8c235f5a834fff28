"""A raw JSON-RPC stdio agent that speaks what the Python SDK cannot type: ``python subagent_agent.py SCRIPT.json``.

Raw rather than the SDK's agent side, because the SDK's models would drop what these tests are
about: the raw ``clientCapabilities`` of ``initialize`` (``subagents``, ``session.notices``,
``session.compaction``) and updates outside its schema (``subagent_update``, ``notice``...).
The script is ``{"turns": [[step, ...], ...]}``, one list per ``session/prompt``; a step is

- ``["update", SESSION, UPDATE]``: a ``session/update`` (SESSION null: the parent session);
- ``["request", METHOD, PARAMS]``: a request to the client, waiting for its reply;
- ``["await_cancel"]``: read until the client sends ``session/cancel`` for the parent;
- ``["stop", REASON]``: end the turn with that stop reason (default ``end_turn``).

Each turn ends with one ``agent_message_chunk`` whose text is ASCII JSON: ``received``, every
message the client sent so far as ``[method, params]`` (replies as ``["reply", result]``).
"""

from __future__ import annotations

import json
import sys
from typing import Any

PARENT = "parent"


class Peer:
    def __init__(self, script: dict[str, Any]) -> None:
        self.turns: list[list[Any]] = list(script.get("turns", []))
        self.received: list[list[Any]] = []
        self.next_id = 1000
        self.pending: list[dict[str, Any]] = []  # prompts that came while a turn was reading
        self.cancelled = False  # session/cancel for the parent came (maybe while waiting for a reply)

    def send(self, message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def read(self) -> dict[str, Any] | None:
        line = sys.stdin.readline()
        if not line:
            return None
        message: dict[str, Any] = json.loads(line)
        if "method" in message:
            self.received.append([message["method"], message.get("params")])
            if message["method"] == "session/cancel" and (message.get("params") or {}).get("sessionId") == PARENT:
                self.cancelled = True
        else:
            self.received.append(["reply", message.get("result", message.get("error"))])
        return message

    def update(self, session: str | None, update: dict[str, Any]) -> None:
        params = {"sessionId": session or PARENT, "update": update}
        self.send({"jsonrpc": "2.0", "method": "session/update", "params": params})

    def request(self, method: str, params: dict[str, Any]) -> None:
        self.next_id += 1
        wanted = self.next_id
        self.send({"jsonrpc": "2.0", "id": wanted, "method": method, "params": params})
        while (message := self.read()) is not None:
            if message.get("id") == wanted and "method" not in message:
                return
            if message.get("method") == "session/prompt":
                self.pending.append(message)

    def await_cancel(self) -> None:
        while not self.cancelled and (message := self.read()) is not None:
            if message.get("method") == "session/prompt":
                self.pending.append(message)
        self.cancelled = False

    def turn(self, prompt: dict[str, Any]) -> None:
        reason = "end_turn"
        for step in self.turns.pop(0) if self.turns else []:
            if step[0] == "update":
                self.update(step[1], step[2])
            elif step[0] == "request":
                self.request(step[1], step[2])
            elif step[0] == "await_cancel":
                self.await_cancel()
            elif step[0] == "stop":
                reason = step[1]
        report = json.dumps({"received": self.received}, ensure_ascii=True)
        self.update(None, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": report}})
        self.send({"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": reason}})

    def run(self) -> None:
        while True:
            message = self.pending.pop(0) if self.pending else self.read()
            if message is None:
                return
            method, request_id = message.get("method"), message.get("id")
            if method == "initialize":
                info = {"name": "subagents", "version": "0"}
                result = {"protocolVersion": 1, "agentCapabilities": {}, "agentInfo": info}
                self.send({"jsonrpc": "2.0", "id": request_id, "result": result})
            elif method == "session/new":
                self.send({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": PARENT}})
            elif method == "session/prompt":
                self.turn(message)
            elif request_id is not None and method is not None:
                error = {"code": -32601, "message": f"{method} not scripted"}
                self.send({"jsonrpc": "2.0", "id": request_id, "error": error})


def command(script: dict[str, Any], folder: Any) -> list[str]:
    """The stdio command running ``script`` (written into ``folder``)."""
    path = folder / "subagent_script.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    return [sys.executable, __file__, str(path)]


def report(text: str) -> list[list[Any]]:
    """The messages the client sent, from the agent's closing chunk (the last JSON object in ``text``)."""
    start = text.rfind('{"received"')
    return json.loads(text[start:])["received"]  # type: ignore[no-any-return]


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        Peer(json.load(f)).run()
