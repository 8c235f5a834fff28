"""Every request from a hostile agent gets a JSON-RPC reply, over stdio and over a real websocket.

The peer (tests/support/hostile.py) speaks raw JSON-RPC; the client is nbacp's, through ``connect()``.
After the attacks the same connection carries a valid follow-up request and its answer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from support import SUPPORT
from support.hostile import FOLLOWUP_ID, SESSION, serve_websocket

import nbacp
from nbacp.widgets import FormCard, PermissionCard

HOSTILE = SUPPORT / "hostile.py"


def _req(msg_id: int, method: str, params: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})


def _form(message: Any = "Real question?", **extra: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    return {"mode": "form", "sessionId": SESSION, "message": message, "requestedSchema": schema, **extra}


def _permission(options: Any = None, **extra: Any) -> dict[str, Any]:
    if options is None:
        options = [
            {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
            {"optionId": "no", "name": "Reject", "kind": "reject_once"},
        ]
    return {"sessionId": SESSION, "toolCall": {"toolCallId": "t1", "title": "Run it"}, "options": options, **extra}


def _deep_permission(msg_id: int, depth: int) -> str:
    """A request whose rawInput is ``depth`` objects deep (built as text: json.dumps would recurse)."""
    marker = '"RAW"'
    text = _req(
        msg_id,
        "session/request_permission",
        _permission(toolCall={"toolCallId": "t", "title": "deep", "rawInput": "RAW"}),
    )
    return text.replace(marker, '{"a":' * depth + "1" + "}" * depth)


INVALID = {
    # the list: each hung over stdio/websocket (no reply)
    100: _req(100, "elicitation/create", _form(message=None, requestedSchema={})),
    101: _req(101, "elicitation/create", _form(sessionId=5)),
    102: _req(
        102,
        "elicitation/create",
        _form(requestedSchema={"type": "object", "properties": {"a": {"type": "string", "enum": [1, 2]}}}),
    ),
    103: _req(
        103,
        "elicitation/create",
        _form(requestedSchema={"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}}),
    ),
    104: _req(
        104,
        "elicitation/create",
        {"mode": "url", "sessionId": SESSION, "message": "m", "elicitationId": "e1", "url": ""},
    ),
    105: _req(
        105,
        "session/request_permission",
        _permission(
            options=[
                {"optionId": "same", "name": "Allow", "kind": "allow_once"},
                {"optionId": "same", "name": "Reject", "kind": "reject_once"},
            ]
        ),
    ),
    106: _req(106, "session/request_permission", [1, 2]),
    # over the size budgets
    110: _req(
        110,
        "elicitation/create",
        _form(requestedSchema={"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(10_000)}}),
    ),
    111: _req(
        111,
        "session/request_permission",
        _permission(options=[{"optionId": f"o{i}", "name": f"O{i}", "kind": "allow_once"} for i in range(10_000)]),
    ),
    112: _deep_permission(112, 3_000),
    113: _deep_permission(113, 200),
    # a request whose method is not a string
    120: json.dumps({"jsonrpc": "2.0", "id": 120, "method": 5, "params": {}}),
}
META = {
    # _meta must never replace validated parameters: these are real requests, answered by the policy
    130: _req(130, "elicitation/create", _form(_meta={"message": {"a": 1}})),
    131: _req(131, "elicitation/create", _form(_meta={"message": 5, "mode": "x"})),
    132: _req(
        132,
        "session/request_permission",
        _permission(_meta={"tool_call": {"toolCallId": "evil"}, "options": "ab", "session_id": "x"}),
    ),
}
FRAMES = ["[1,2,3]", '"hello"', "hello, not json", '{"jsonrpc":"2.0","id":[1],"result":1}', "42", "null"]


def _policy(seen: list[Any]) -> Any:
    def answer(card: Any) -> None:
        seen.append(card)
        if isinstance(card, PermissionCard):
            card.choose("Reject")
        elif isinstance(card, FormCard):
            card.decline()

    return answer


async def _run(target: Any, **kwargs: Any) -> tuple[dict[str, Any], list[Any], Any]:
    seen: list[Any] = []
    async with nbacp.connect(target, answers=_policy(seen), **kwargs) as conn:
        session = await conn.new_session()
        result = await session.prompt("attack")
        log = list(conn.log or [])
    report = json.loads(result.text)
    return report, seen, log


def _check(report: dict[str, Any], seen: list[Any]) -> None:
    replies = report["replies"]
    for msg_id in INVALID:
        reply = replies[str(msg_id)]
        assert reply != "no reply", f"request {msg_id} got no reply"
        assert "error" in reply, (msg_id, reply)
        code = reply["error"]["code"]
        assert code in (-32602, -32600), (msg_id, reply)
        details = reply["error"].get("data", {}) or {}
        if code == -32602:
            assert isinstance(details.get("details"), str) and details["details"], (msg_id, reply)
    assert "budget" in replies["110"]["error"]["data"]["details"]
    assert "10,000 fields" in replies["110"]["error"]["data"]["details"]
    assert "10,000 options" in replies["111"]["error"]["data"]["details"]
    assert "nested" in replies["112"]["error"]["data"]["details"]
    assert "nested 20" in replies["113"]["error"]["data"]["details"]  # 200+ levels, over 64
    assert "more than one option" in replies["105"]["error"]["data"]["details"]
    assert "message" in replies["100"]["error"]["data"]["details"]
    # _meta requests were handled with their validated parameters, and answered
    assert replies["130"]["result"] == {"action": "decline"}
    assert replies["131"]["result"] == {"action": "decline"}
    assert replies["132"]["result"]["outcome"] == {"outcome": "selected", "optionId": "no"}
    forms = [c for c in seen if isinstance(c, FormCard)]
    assert [f.message for f in forms] == ["Real question?", "Real question?"]
    perms = [c for c in seen if isinstance(c, PermissionCard)]
    assert perms[0].tool_call.tool_call_id == "t1" and [o.option_id for o in perms[0].options] == ["yes", "no"]
    # the follow-up on the same connection
    assert report["followup"]["id"] == FOLLOWUP_ID
    assert report["followup"]["result"]["outcome"] == {"outcome": "selected", "optionId": "no"}


ATTACKS: list[tuple[Any, str]] = [*INVALID.items(), *META.items(), *((None, f) for f in FRAMES)]


# stdio only: a raw lone surrogate reaches the wire as bytes that are not UTF-8 (a websocket text frame cannot)
NOT_UTF8 = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 140,
        "method": "session/request_permission",
        "params": _permission(toolCall={"toolCallId": "t1", "title": "bad \udcff bytes"}),
    },
    ensure_ascii=False,
)


async def test_hostile_requests_over_stdio(tmp_path: Path) -> None:
    script = tmp_path / "attacks.json"
    script.write_text(json.dumps([*ATTACKS, (140, NOT_UTF8)]))
    report, seen, log = await _run([sys.executable, str(HOSTILE), str(script)])
    _check(report, seen)
    assert report["replies"]["140"]["result"]["outcome"] == {"outcome": "selected", "optionId": "no"}
    assert any(getattr(c, "tool_call", None) and c.tool_call.title == "bad \ufffd\ufffd\ufffd bytes" for c in seen)
    text = "\n".join(log)
    assert "not a JSON object (list)" in text and "not a JSON object (str)" in text
    assert "not JSON" in text
    assert "response id is not a string or an integer" in text


async def test_hostile_requests_over_websocket() -> None:
    server = await serve_websocket(ATTACKS)
    port = next(iter(server.sockets)).getsockname()[1]
    try:
        report, seen, log = await _run(f"ws://127.0.0.1:{port}/acp/ws")
    finally:
        server.close()
        await server.wait_closed()
    _check(report, seen)
    assert any("not a JSON object" in line for line in log)


@pytest.mark.parametrize("when", [None, "early"])
@pytest.mark.parametrize("frame", FRAMES)
async def test_one_malformed_frame_keeps_the_connection(tmp_path: Path, frame: str, when: str | None) -> None:
    script = tmp_path / "attacks.json"
    script.write_text(json.dumps([[when, frame]]))
    report, _seen, log = await _run([sys.executable, str(HOSTILE), str(script)])
    assert report["followup"]["result"]["outcome"] == {"outcome": "selected", "optionId": "no"}
    assert any("Dropped" in line for line in log), log


async def test_a_line_over_the_limit_is_refused_without_holding_it(tmp_path: Path) -> None:
    """64 MiB in one line (16 MiB limit): the request is answered, and the kernel never holds the line."""
    import tracemalloc

    size = 64 * 1024 * 1024
    huge = _req(150, "session/request_permission", _permission(toolCall={"toolCallId": "t1", "title": "x" * size}))
    script = tmp_path / "attacks.json"
    script.write_text(json.dumps([[150, huge], [None, "y" * (size // 4)]]))
    tracemalloc.start()
    try:
        report, seen, log = await _run([sys.executable, str(HOSTILE), str(script)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    error = report["replies"]["150"]["error"]
    assert error["code"] == -32602 and "over the line limit" in error["data"]["details"], error
    assert report["followup"]["result"]["outcome"] == {"outcome": "selected", "optionId": "no"}
    assert peak < size, f"peak {peak:,} bytes while reading a {size:,}-byte line"
    assert any("over the line limit" in line for line in log), log
