"""A stdio ACP peer that replays what a real agent sent, byte for byte: ``python replay_agent.py RUN``.

``agent_traffic/RUN.jsonl`` holds every ``session/update`` claude-agent-acp 0.101.0, codex-acp
2.6.0 or gemini-cli 0.61.0 sent in one recorded run (against the fake model APIs of
``tests/real_agents``), in wire order, with markers where the client prompted, cancelled and
where the agent answered the prompt. On each ``session/prompt`` this peer sends the updates
up to the next answer, then the answer (its stop reason as recorded); updates recorded after
the last answer (claude's title, codex's command that outlives a cancel) follow it, outside
any turn. Updates a subagent sent under its own session id go out under the id its
``subagent_update`` announced (as recorded), or ``<id>-child`` before any announcement. The
run's project folder is rewritten to the ``cwd`` of ``session/new``, so paths read as they did.

Raw JSON-RPC over stdio rather than the SDK's agent side: the SDK would refuse to send the
update types outside its schema (``compaction_update``, ``subagent_update``...), which the
real agents do send.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

TRAFFIC = Path(__file__).resolve().parent / "agent_traffic"
SESSION = "replay-session"


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


_CHILD = [f"{SESSION}-child"]  # the last subagent announced


def _update(event: dict[str, Any], project: str, cwd: str) -> None:
    update = json.loads(json.dumps(event["update"]).replace(project, cwd))
    if update.get("sessionUpdate") == "subagent_update" and isinstance(update.get("sessionId"), str):
        _CHILD[0] = update["sessionId"]
    session = _CHILD[0] if event.get("child") else SESSION
    _send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": update}})


def main() -> None:
    run = sys.argv[1]
    events = [json.loads(line) for line in (TRAFFIC / f"{run}.jsonl").read_text().splitlines() if line]
    project = f"/tmp/research-agents/runs/{run}/home/proj"
    cwd = "/"
    position = 0
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize":
            info = {"name": f"replay-{run}", "version": "0"}
            _send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "result": {"protocolVersion": 1, "agentCapabilities": {}, "agentInfo": info},
                }
            )
        elif method == "session/new":
            cwd = message["params"]["cwd"]
            _send({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": SESSION}})
            while position < len(events) and "update" in events[position]:  # sent before any prompt
                _update(events[position], project, cwd)
                position += 1
        elif method == "session/prompt":
            answer: Any = {"stopReason": "end_turn"}
            while position < len(events):
                event = events[position]
                position += 1
                if "update" in event:
                    _update(event, project, cwd)
                elif "respond" in event:
                    answer = event["respond"] or answer
                    break
            _send({"jsonrpc": "2.0", "id": request_id, "result": answer})
            if not any("prompt" in e for e in events[position:]):  # after the last answer: outside any turn
                while position < len(events):
                    if "update" in events[position]:
                        _update(events[position], project, cwd)
                    position += 1
        elif request_id is not None and method is not None:
            _send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"{method} not replayed"}})


if __name__ == "__main__":
    main()
