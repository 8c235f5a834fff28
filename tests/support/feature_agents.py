"""A raw ``acp`` agent with what real agents have beyond questions, for the client feature tests.

``FeatureAgent`` can require ``authenticate`` (on session/new or on prompt), has modes, select
and boolean config options, an unstable ``models`` list (with ``session/set_model``), keeps
sessions it can list / load (replaying history) / resume / fork / close, and reacts to prompt
words: ``env NAME`` (says the variable as it sees it), ``stderr N`` (writes N bytes to stderr
first), ``ext`` (an extension notification), ``status`` (codex-style status in ``_meta``),
``two`` (two messages with a tool call between), ``withdraw`` (asks, then ``$/cancel_request``),
``switch`` (changes its own mode and options), ``fail`` (an error), ``exit`` (the process dies),
``hang`` (until session/cancel).

Run over stdio: ``python tests/support/feature_agents.py [--auth new|prompt] [--no-models]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a file: find the support package (its builders)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    InitializeResponse,
    ListSessionsResponse,
    PromptResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionForkCapabilities,
    SessionInfo,
    SessionInfoUpdate,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    ToolCallStart,
)
from support.builders import text_block, update_agent_message, update_user_message

MODES = [
    SessionMode(id="default", name="Default", description="Ask before acting"),
    SessionMode(id="plan", name="Plan"),
    SessionMode(id="auto", name="Auto"),
]
MODELS = ["opus", "sonnet", "haiku"]


def auth_methods() -> list[dict[str, Any]]:
    return [
        {
            "id": "api-key",
            "name": "API key",
            "description": "Use an API key from the environment",
            "type": "env_var",
            "vars": [{"name": "FEATURE_API_KEY"}, {"name": "FEATURE_ORG", "optional": True}],
        },
        {"id": "chat-gpt", "name": "Sign in with ChatGPT", "description": "Opens a browser"},
        {"id": "login", "name": "Terminal login", "type": "terminal", "args": ["--login"]},
    ]


class _State:
    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.mode = "auto"
        self.model = "opus"
        self.effort = "medium"
        self.fast = False
        self.history: list[tuple[str, str]] = []
        self.title = f"Session in {cwd}"

    def modes(self) -> SessionModeState:
        return SessionModeState(current_mode_id=self.mode, available_modes=MODES)

    def options(self) -> list[Any]:
        return [
            SessionConfigOptionSelect(
                id="effort",
                name="Effort",
                category="thought_level",
                type="select",
                current_value=self.effort,
                options=[SessionConfigSelectOption(value=v, name=v.title()) for v in ("low", "medium", "high", "max")],
            ),
            SessionConfigOptionBoolean(id="fast", name="Fast mode", type="boolean", current_value=self.fast),
        ]


class FeatureAgent:
    def __init__(self, *, require_auth: str | None = None, models: bool = True, model_option: bool = False) -> None:
        self.conn: Any = None
        self.model_option = model_option  # claude's way: the model as a config option of category "model"
        self.require_auth = require_auth  # None, "new" or "prompt"
        self.models = models
        self.authenticated: list[str] = []
        self.client_capabilities: ClientCapabilities | None = None
        self.sessions: dict[str, _State] = {}
        self.calls: list[tuple[str, Any]] = []
        self.withdrawn: list[Any] = []
        self.secret_replies: list[Any] = []  # what the client sent for the codex-style secret question
        self.directories: list[tuple[str, Any]] = []  # (method, additionalDirectories) as received
        self.deleted: list[str] = []
        self.logged_out = 0
        self._cancelled = asyncio.Event()

    def on_connect(self, conn: Any) -> None:
        self.conn = conn
        raw = conn._conn  # serve the unstable session/set_model, which SDK 0.12's router lacks
        handler = raw._handler

        async def handle(method: str, params: Any, is_notification: bool) -> Any:
            if method == "session/set_model" and not is_notification:
                return await self.set_model(params["sessionId"], params["modelId"])
            if method in ("session/new", "session/load", "session/resume") and isinstance(params, dict):
                self.directories.append((method, params.get("additionalDirectories")))
            if method == "session/delete" and not is_notification:  # stable in v1.23; SDK 0.12 agents lack it
                self._known(params["sessionId"])
                del self.sessions[params["sessionId"]]
                self.deleted.append(params["sessionId"])
                return {}
            if method == "logout" and not is_notification:
                self.logged_out += 1
                self.authenticated.clear()
                return {}
            result = await handler(method, params, is_notification)
            if method == "initialize" and not is_notification:
                # as codex sends them: SDK 1.0's model reads a method without "type" as a terminal
                # sign-in and drops env-var "vars" (docs/protocol.md, 'Two SDK lines')
                data = result.model_dump(by_alias=True, exclude_none=True) if hasattr(result, "model_dump") else result
                caps = data["agentCapabilities"]  # and the v1.23 stable surface, the same on both SDK lines
                caps["sessionCapabilities"] = {
                    **caps.get("sessionCapabilities", {}),
                    "delete": {},
                    "additionalDirectories": {},
                }
                caps["auth"] = {"logout": {}}
                return {**data, "authMethods": auth_methods()}
            return result

        raw._handler = handle

    async def initialize(
        self, protocol_version: int, client_capabilities: ClientCapabilities | None = None, **kwargs: Any
    ) -> InitializeResponse:
        self.client_capabilities = client_capabilities
        caps = AgentCapabilities(
            load_session=True,
            session_capabilities=SessionCapabilities(
                list=SessionListCapabilities(),
                resume=SessionResumeCapabilities(),
                fork=SessionForkCapabilities(),
                close=SessionCloseCapabilities(),
            ),
        )
        return InitializeResponse.model_validate(
            {
                "protocolVersion": PROTOCOL_VERSION,
                "agentCapabilities": caps.model_dump(by_alias=True, exclude_none=True),
                "authMethods": auth_methods(),
                "agentInfo": {"name": "feature-agent", "version": "1.0"},
            }
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> Any:
        if method_id == "api-key" and not os.environ.get("FEATURE_API_KEY"):
            raise RequestError(-32000, "FEATURE_API_KEY is not set", {"method": method_id})
        self.authenticated.append(method_id)
        return {}

    def _check_auth(self, where: str) -> None:
        if self.require_auth == where and not self.authenticated:
            raise RequestError.auth_required()

    def _session_result(self, session_id: str, state: _State) -> dict[str, Any]:
        result: dict[str, Any] = {
            "sessionId": session_id,
            "modes": state.modes().model_dump(by_alias=True, exclude_none=True),
            "configOptions": [o.model_dump(by_alias=True, exclude_none=True) for o in self._options(state)],
        }
        if self.models:
            result["models"] = {
                "currentModelId": state.model,
                "availableModels": [{"modelId": m, "name": m.title()} for m in MODELS],
            }
        return result

    async def new_session(self, cwd: str, **kwargs: Any) -> Any:
        self._check_auth("new")
        session_id = f"sess-{uuid.uuid4().hex[:8]}"
        self.sessions[session_id] = state = _State(cwd)
        return self._session_result(session_id, state)

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any) -> Any:
        ids = [sid for sid, s in self.sessions.items() if cwd is None or s.cwd == cwd]
        start = int(cursor or 0)
        page = ids[start : start + 2]  # two per page, so clients must follow the cursor
        next_cursor = str(start + 2) if start + 2 < len(ids) else None
        infos = [
            SessionInfo(session_id=sid, cwd=self.sessions[sid].cwd, title=self.sessions[sid].title) for sid in page
        ]
        return ListSessionsResponse(sessions=infos, next_cursor=next_cursor)

    def _known(self, session_id: str) -> _State:
        if session_id not in self.sessions:
            raise RequestError.resource_not_found(session_id)
        return self.sessions[session_id]

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> Any:
        state = self._known(session_id)
        for prompt, answer in state.history:  # replay, as real agents do, before answering
            await self.conn.session_update(session_id=session_id, update=update_user_message(text_block(prompt)))
            await self.conn.session_update(session_id=session_id, update=update_agent_message(text_block(answer)))
        result = self._session_result(session_id, state)
        result.pop("sessionId")
        return result

    async def resume_session(self, session_id: str, cwd: str, **kwargs: Any) -> Any:
        result = self._session_result(session_id, self._known(session_id))
        result.pop("sessionId")
        return result

    async def fork_session(self, session_id: str, cwd: str, **kwargs: Any) -> Any:
        source = self._known(session_id)
        new_id = f"fork-{uuid.uuid4().hex[:8]}"
        self.sessions[new_id] = state = _State(cwd)
        state.history = list(source.history)
        return self._session_result(new_id, state)

    async def close_session(self, session_id: str, **kwargs: Any) -> Any:
        self._known(session_id)
        del self.sessions[session_id]
        self.calls.append(("close", session_id))
        return {}

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> Any:
        if mode_id not in [m.id for m in MODES]:
            raise RequestError.invalid_params({"modeId": mode_id})
        self._known(session_id).mode = mode_id
        self.calls.append(("mode", mode_id))
        return {}

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool, **kwargs: Any) -> Any:
        state = self._known(session_id)
        if config_id == "effort" and value == "max":
            raise RequestError(-32603, "max effort needs a paid plan", None)
        if config_id == "effort":
            state.effort = str(value)
        elif config_id == "model" and self.model_option:
            state.model = str(value)
        elif config_id == "fast":
            state.fast = bool(value)
        else:
            raise RequestError.invalid_params({"configId": config_id})
        self.calls.append(("config", (config_id, value)))
        return SetSessionConfigOptionResponse(config_options=self._options(state))

    def _options(self, state: _State) -> list[Any]:
        if not self.model_option:
            return state.options()
        model = SessionConfigOptionSelect(
            id="model",
            name="Model",
            category="model",
            type="select",
            current_value=state.model,
            options=[SessionConfigSelectOption(value=m, name=m.title()) for m in MODELS],
        )
        return [model, *state.options()]

    async def set_model(self, session_id: str, model_id: str) -> Any:
        self._known(session_id).model = model_id
        self.calls.append(("model", model_id))
        return {}

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.calls.append(("cancel", session_id))
        sys.stderr.write(f"got session/cancel for {session_id}\n")
        sys.stderr.flush()
        self._cancelled.set()

    async def _say(self, session_id: str, text: str, message_id: str | None = None) -> None:
        update = update_agent_message(text_block(text))
        if message_id is not None:
            update = update.model_copy(update={"message_id": message_id})
        await self.conn.session_update(session_id=session_id, update=update)

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        self._check_auth("prompt")
        state = self._known(session_id)
        text = " ".join(getattr(block, "text", "") for block in prompt).strip()
        word, _, arg = text.partition(" ")
        trace = os.environ.get("FEATURE_TRACE")
        if trace:  # lets a test outside this process see that the prompt arrived
            with open(trace, "a", encoding="utf-8") as file:
                file.write(f"prompt {word}\n")
        if word == "hang":  # until session/cancel
            self._cancelled.clear()
            await self._cancelled.wait()
            return PromptResponse(stop_reason="cancelled")
        answer = await self._act(session_id, state, word, arg)
        if answer is not None:
            await self._say(session_id, answer)
        state.history.append((text, answer or ""))
        return PromptResponse(stop_reason="end_turn")

    async def _act(self, session_id: str, state: _State, word: str, arg: str) -> str | None:
        if word == "env":
            return f"{arg}={os.environ.get(arg, '<unset>')}"
        if word == "stderr":
            chunk = ("x" * 99 + "\n").encode()
            left = int(arg)
            while left > 0:
                sys.stderr.buffer.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
            sys.stderr.buffer.flush()
            return "wrote stderr"
        if word == "ext":
            await self.conn.ext_notification("auth/status_update", {"status": "authenticated", "account": "a@b.c"})
            return "sent"
        if word == "status":
            meta = {"codex": {"status": "retrying", "attempt": 2, "reason": "rate limited (429)"}}
            await self.conn.session_update(
                session_id=session_id, update=SessionInfoUpdate(session_update="session_info_update", field_meta=meta)
            )
            return "status sent"
        if word == "two":
            await self._say(session_id, "Calling Bash.", "m1")
            await self.conn.session_update(
                session_id=session_id,
                update=ToolCallStart(session_update="tool_call", tool_call_id="t1", title="Bash", status="completed"),
            )
            await self._say(session_id, "MODEL SAW", "m2")
            return None
        if word == "withdraw":
            return await self._withdraw(session_id)
        if word == "secret":
            return await self._ask_secret(session_id)
        if word == "format":  # a string format outside the spec's four: an annotation, never a refusal
            params = {
                "sessionId": session_id,
                "mode": "form",
                "message": "Colour?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"colour": {"type": "string", "format": "x-colour"}},
                },
            }
            reply = await self.conn._conn.send_request("elicitation/create", params)
            return f"format: {reply['action']} {reply.get('content')}"
        if word == "switch":
            state.mode, state.effort = "plan", "high"
            await self.conn.session_update(
                session_id=session_id,
                update=CurrentModeUpdate(session_update="current_mode_update", current_mode_id="plan"),
            )
            await self.conn.session_update(
                session_id=session_id,
                update=ConfigOptionUpdate(session_update="config_option_update", config_options=state.options()),
            )
            return "switched"
        if word == "fail":
            sys.stderr.write("FATAL: the model API key is not set\n")
            sys.stderr.flush()
            raise RequestError(-32603, "the model call failed", None)
        if word == "exit":
            sys.stderr.write("FATAL: crashing on purpose\n")
            sys.stderr.flush()
            os._exit(7)
        return f"echo {word} {arg}".strip()

    async def _withdraw(self, session_id: str) -> str:
        """Ask a question with codex's deadline, then withdraw it with ``$/cancel_request`` as codex does
        once ``autoResolutionMs`` passed (here at once: the deadline says 30 s, the withdrawal is the test's)."""
        raw = self.conn._conn
        request_id = raw._next_request_id  # the id the next outgoing request gets
        params = {
            "sessionId": session_id,
            "mode": "form",
            "message": "Still there?",
            "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
            "_meta": {"codex": {"autoResolutionMs": 30000}},
        }
        ask = asyncio.ensure_future(raw.send_request("elicitation/create", params))
        await asyncio.sleep(0.2)
        await raw.send_notification("$/cancel_request", {"requestId": request_id})
        reply = await asyncio.wait_for(ask, 10)
        self.withdrawn.append(reply)
        return f"withdrawn: {reply['action']}"

    async def _ask_secret(self, session_id: str) -> str:
        """codex-acp 2.6.0's request_user_input with a secret question (``_meta.codex.isSecret``), raw."""
        params = {
            "sessionId": session_id,
            "toolCallId": "call-1",
            "mode": "form",
            "message": "Codex needs your input to continue.",
            "requestedSchema": {
                "type": "object",
                "required": ["token"],
                "properties": {
                    "token": {
                        "type": "string",
                        "title": "Deploy token",
                        "description": "Token",
                        "_meta": {"codex": {"isOther": False, "isSecret": True}},
                    },
                    "region": {
                        "type": "string",
                        "title": "Region",
                        "_meta": {"codex": {"isOther": False, "isSecret": False}},
                    },
                },
            },
            "_meta": {"codex": {"autoResolutionMs": None}},
        }
        reply = await self.conn._conn.send_request("elicitation/create", params)
        self.secret_replies.append(reply)
        token = (reply.get("content") or {}).get("token")
        return f"secret: {reply['action']}, {len(token) if isinstance(token, str) else 0} characters"


def main() -> None:
    from acp import run_agent

    parser = argparse.ArgumentParser()
    parser.add_argument("--auth", choices=["new", "prompt"])
    parser.add_argument("--no-models", action="store_true")
    args = parser.parse_args()
    agent = FeatureAgent(require_auth=args.auth, models=not args.no_models)
    asyncio.run(run_agent(agent, use_unstable_protocol=True))


if __name__ == "__main__":
    main()
