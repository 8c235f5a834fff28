"""The project's own fake model APIs on 127.0.0.1, scripted per test, for the real agents.

Three dialects, each just enough of the public streaming API for the agent's own client to
accept it: Anthropic Messages (SSE, for claude-agent-acp), OpenAI Responses (SSE, for codex)
and Gemini ``:streamGenerateContent?alt=sse`` (for gemini-cli). Each fake serves from a
thread (so it runs whatever event loop the test uses), picks a free port, records every
request body, and stops when its ``with`` block ends (or, if a test forgets, after
``LIFETIME`` seconds).

A test scripts the model with a responder: a function from the request body to a reply
(``Call`` a tool, or ``Say`` some text). ``call_then_echo`` is the usual one: the first main
request gets the tool call, the request that carries the tool's result gets a final text
that echoes it, and anything else (the agents' side requests: titles, summaries, routing)
gets a short text. ``fake.tool_results`` is then exactly what the agent handed its model.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

LIFETIME = 600.0  # seconds: a fake a test forgot to stop shuts itself down after this
ECHO = "MODEL SAW: "


@dataclass(frozen=True)
class Call:
    """The model calls one tool."""

    name: str
    args: dict[str, Any]
    id: str = "call_nbacp_1"


@dataclass(frozen=True)
class Say:
    """The model answers with text and ends its turn."""

    text: str


@dataclass(frozen=True)
class Calls:
    """The model calls several tools in one reply (Anthropic dialect): the agent may run them in parallel."""

    calls: tuple[Call, ...]


Reply = Call | Calls | Say
Responder = Callable[["FakeModel", dict[str, Any]], Reply]


@dataclass(frozen=True)
class ToolResult:
    call_id: str
    text: str


class FakeModel:
    """Base: the HTTP plumbing, the request log, and the per-dialect hooks subclasses fill in."""

    def __init__(self, respond: Responder) -> None:
        self.respond = respond
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._timer: threading.Timer | None = None

    # --- dialect hooks -------------------------------------------------------------------
    def offered_tools(self, body: dict[str, Any]) -> list[str]:
        raise NotImplementedError

    def results_in(self, body: dict[str, Any]) -> list[ToolResult]:
        raise NotImplementedError

    def serve(self, path: str, body: dict[str, Any], reply: Reply) -> tuple[int, str, Iterator[bytes]]:
        raise NotImplementedError

    # --- what the test asserts on --------------------------------------------------------
    @property
    def tool_results(self) -> list[ToolResult]:
        """Every tool result the agent sent back, in order, each once (agents resend history)."""
        seen: dict[str, ToolResult] = {}
        for _path, body in self.snapshot():
            for result in self.results_in(body):
                seen.setdefault(result.call_id, result)
        return list(seen.values())

    def result_for(self, call_id: str) -> str:
        for result in self.tool_results:
            if result.call_id == call_id:
                return result.text
        raise AssertionError(f"the agent never sent the model a result for {call_id!r}; paths: {self.paths()}")

    def snapshot(self) -> list[tuple[str, dict[str, Any]]]:
        with self._lock:
            return list(self.requests)

    def paths(self) -> list[str]:
        return [path for path, _ in self.snapshot()]

    # --- server --------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "use the fake in a with block"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeModel:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
                return

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                if self.headers.get("Upgrade", "").lower() == "websocket":  # codex tries websockets first
                    self.send_error(404, "no websocket transport here")
                    return
                fake._handle(self, {})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.headers.get("Content-Encoding") == "zstd":  # never seen; fail loudly if it happens
                    raise RuntimeError("compressed request body")
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                fake._handle(self, body)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                return  # an agent hanging up mid-stream (a cancelled turn) is not the test's failure

        self._server = Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name=f"{type(self).__name__}", daemon=True).start()
        self._timer = threading.Timer(LIFETIME, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()

    def _handle(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        path = urlsplit(handler.path).path
        with self._lock:
            self.requests.append((handler.path, body))
        try:
            reply = self.respond(self, body) if isinstance(body, dict) else Say("ok")
            status, content_type, chunks = self.serve(path, body, reply)
        except Exception as exc:  # a broken script: tell the agent (and the test log) why
            status, content_type = 500, "application/json"
            chunks = iter([json.dumps({"error": {"message": f"fake model: {exc!r}"}}).encode()])
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()
        for chunk in chunks:
            handler.wfile.write(chunk)
            handler.wfile.flush()
        handler.close_connection = True


def sse(events: list[tuple[str | None, dict[str, Any]]]) -> Iterator[bytes]:
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        yield f"{head}data: {json.dumps(data)}\n\n".encode()


def call_then_echo(call: Call, *, prefix: str = ECHO) -> Responder:
    """Call ``call`` once when the main conversation offers it; echo its result when it comes back."""

    def respond(fake: FakeModel, body: dict[str, Any]) -> Reply:
        for result in fake.results_in(body):
            if result.call_id == call.id:
                return Say(prefix + result.text)
        if call.name in fake.offered_tools(body):
            return call
        return Say("ok")

    return respond


# --- Anthropic Messages ------------------------------------------------------------------
class AnthropicFake(FakeModel):
    """``POST /v1/messages`` (stream or not) and ``/v1/messages/count_tokens``."""

    def offered_tools(self, body: dict[str, Any]) -> list[str]:
        return [str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)]

    def results_in(self, body: dict[str, Any]) -> list[ToolResult]:
        found = []
        for message in body.get("messages") or []:
            content = message.get("content")
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.append(ToolResult(str(block.get("tool_use_id")), _anthropic_text(block.get("content"))))
        return found

    def serve(self, path: str, body: dict[str, Any], reply: Reply) -> tuple[int, str, Iterator[bytes]]:
        if path.endswith("/count_tokens"):
            return 200, "application/json", iter([json.dumps({"input_tokens": 10}).encode()])
        calls = reply.calls if isinstance(reply, Calls) else (reply,) if isinstance(reply, Call) else ()
        if calls:
            blocks: list[dict[str, Any]] = [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.args} for c in calls
            ]
            stop = "tool_use"
        else:
            assert isinstance(reply, Say)
            blocks, stop = [{"type": "text", "text": reply.text}], "end_turn"
        model = str(body.get("model", "claude-fake"))
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
        message = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            full = {**message, "content": blocks, "stop_reason": stop}
            return 200, "application/json", iter([json.dumps(full).encode()])
        events: list[tuple[str | None, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}})
        ]
        for index, block in enumerate(blocks):
            start = {**block, "input": {}} if block["type"] == "tool_use" else {"type": "text", "text": ""}
            delta = (
                {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
                if block["type"] == "tool_use"
                else {"type": "text_delta", "text": block["text"]}
            )
            events += [
                ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}),
                ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": index}),
            ]
        events += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        return 200, "text/event-stream", sse(events)


def _anthropic_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return json.dumps(content)


# --- OpenAI Responses ----------------------------------------------------------------------
class ResponsesFake(FakeModel):
    """``POST /v1/responses`` (SSE), plus ``GET /v1/models`` answered with an empty list."""

    def offered_tools(self, body: dict[str, Any]) -> list[str]:
        names = []
        for tool in body.get("tools") or []:
            if isinstance(tool, dict):
                names.append(str(tool.get("name") or tool.get("function", {}).get("name") or tool.get("type")))
        return names

    def results_in(self, body: dict[str, Any]) -> list[ToolResult]:
        found = []
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
                output = item.get("output")
                if isinstance(output, dict):  # older shape: {"content": ..., "success": ...}
                    output = output.get("content", json.dumps(output))
                if isinstance(output, list):
                    output = "\n".join(str(p.get("text", "")) for p in output if isinstance(p, dict))
                found.append(ToolResult(str(item.get("call_id")), str(output)))
        return found

    def serve(self, path: str, body: dict[str, Any], reply: Reply) -> tuple[int, str, Iterator[bytes]]:
        if path.endswith("/models"):
            return 200, "application/json", iter([json.dumps({"object": "list", "data": [], "models": []}).encode()])
        if isinstance(reply, Call):
            item: dict[str, Any] = {
                "type": "function_call",
                "id": f"fc_{reply.id}",
                "call_id": reply.id,
                "name": reply.name,
                "arguments": json.dumps(reply.args),
                "status": "completed",
            }
        else:
            item = {
                "type": "message",
                "id": "msg_fake",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        return (
            200,
            "text/event-stream",
            sse(
                [
                    ("response.created", {"type": "response.created", "response": {"id": "resp_fake"}}),
                    (
                        "response.output_item.done",
                        {"type": "response.output_item.done", "output_index": 0, "item": item},
                    ),
                    (
                        "response.completed",
                        {"type": "response.completed", "response": {"id": "resp_fake", "usage": usage}},
                    ),
                ]
            ),
        )


# --- Gemini ----------------------------------------------------------------------------------
class GeminiFake(FakeModel):
    """``:streamGenerateContent?alt=sse``, ``:generateContent`` and ``:countTokens``."""

    def offered_tools(self, body: dict[str, Any]) -> list[str]:
        names = []
        for tool in body.get("tools") or []:
            for decl in (tool or {}).get("functionDeclarations") or []:
                names.append(str(decl.get("name")))
        return names

    def results_in(self, body: dict[str, Any]) -> list[ToolResult]:
        found = []
        for content in body.get("contents") or []:
            for part in (content or {}).get("parts") or []:
                response = (part or {}).get("functionResponse")
                if isinstance(response, dict):
                    payload = response.get("response")
                    text = payload.get("output", payload.get("error")) if isinstance(payload, dict) else payload
                    found.append(
                        ToolResult(
                            str(response.get("id") or response.get("name")),
                            text if isinstance(text, str) else json.dumps(payload),
                        )
                    )
        return found

    def serve(self, path: str, body: dict[str, Any], reply: Reply) -> tuple[int, str, Iterator[bytes]]:
        if path.endswith(":countTokens"):
            return 200, "application/json", iter([json.dumps({"totalTokens": 10}).encode()])
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        if isinstance(reply, Call):
            part: dict[str, Any] = {"functionCall": {"id": reply.id, "name": reply.name, "args": reply.args}}
        elif config.get("responseMimeType") == "application/json" and isinstance(schema, dict):
            part = {"text": json.dumps(schema_instance(schema))}  # gemini's router and checkers want JSON
        else:
            part = {"text": reply.text}
        chunk = {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "gemini-fake",
        }
        if path.endswith(":streamGenerateContent"):
            return 200, "text/event-stream", sse([(None, chunk)])
        return 200, "application/json", iter([json.dumps(chunk).encode()])


def schema_instance(schema: dict[str, Any]) -> Any:
    """The plainest value a (Gemini-flavoured) JSON schema accepts: first enum, 1, "ok", empty list."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: schema_instance(props[name]) for name in schema.get("required", props) if name in props}
    return {"string": "ok", "integer": 1, "number": 1, "boolean": False, "array": []}.get(kind)
