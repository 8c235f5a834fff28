"""codex-acp (npm, pinned; ships the codex binary) driven through nbacp.connect against a fake OpenAI
Responses API.

codex reads the API's address from ``openai_base_url`` in ``$CODEX_HOME/config.toml`` (not from
``$OPENAI_BASE_URL``) and asks questions (``request_user_input``) outside Plan mode only with the
``default_mode_request_user_input`` feature. It has no multi-select question: each question is a
required single-select with an added "None of the above" and an ``<id>_note`` companion.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from agent_support import HANG, Recorder, agent_env, stop_while_a_question_is_open
from fake_models import ECHO, Call, ResponsesFake, Say, call_then_echo

import nbacp
from nbacp.answers import Script
from nbacp.errors import AgentError

pytestmark = pytest.mark.real_agents

FORMAT = Call(
    "request_user_input",
    {
        "questions": [
            {
                "id": "fmt",
                "header": "Format",
                "question": "Which format should the export write?",
                "options": [
                    {"label": "Parquet (Recommended)", "description": "Columnar"},
                    {"label": "CSV", "description": "Text"},
                ],
            }
        ]
    },
    id="call_fmt",
)
TOUCH = Call(
    "exec_command",
    {
        "cmd": "touch made-by-codex.txt",
        "sandbox_permissions": "require_escalated",
        "justification": "Create a marker file?",
    },
    id="call_touch",
)


# A provider of our own only to say supports_websockets = false: codex's built-in "openai" provider
# (which ``openai_base_url`` alone would point at the fake) first tries Responses over a websocket
# and falls back to HTTPS after ~6 s of retries, on every turn. requires_openai_auth keeps codex-acp's
# "Authentication required" (a provider with an env_key needs no authenticate).
CONFIG = """\
openai_base_url = "{url}"
model = "gpt-5.5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "{url}"
wire_api = "responses"
requires_openai_auth = true
supports_websockets = false

[features]
default_mode_request_user_input = true
"""


def codex_env(home: Path, fake: ResponsesFake) -> dict[str, str | None]:
    codex_home = home / ".codex"
    codex_home.mkdir(exist_ok=True)
    (codex_home / "config.toml").write_text(CONFIG.format(url=f"{fake.url}/v1"), encoding="utf-8")
    return agent_env(home, {"CODEX_HOME": str(codex_home), "OPENAI_API_KEY": "sk-fake"})


async def run_codex(
    agents_bin: Path, home: Path, call: Call, answers: Any, *, mode: str | None = None, then: str | None = None
) -> tuple[ResponsesFake, Any, Recorder]:
    recorder = Recorder(answers)
    with ResponsesFake(call_then_echo(call)) as fake:
        async with nbacp.connect([str(agents_bin / "codex-acp")], env=codex_env(home, fake), answers=recorder) as conn:
            await conn.authenticate("api-key")
            session = await conn.new_session(home)
            assert session.mode == "agent"
            if mode is not None:
                await session.set_mode(mode)
            result = await asyncio.wait_for(session.prompt("Go ahead."), HANG)
            if then is not None:  # a turn the rejection ended: what the model sees comes with the next prompt
                result = await asyncio.wait_for(session.prompt(then), HANG)
    return fake, result, recorder


def answers(seen: str) -> Any:
    return json.loads(seen)


def steady(seen: str) -> str:
    """A command's result without the lines codex measures or makes up (wall time, chunk id)."""
    return "\n".join(line for line in seen.split("\n") if not line.startswith(("Wall time: ", "Chunk ID: ")))


async def test_authentication_card_then_session(agents_bin: Path, tmp_path: Path) -> None:
    recorder = Recorder(Script([{"authenticate": "api-key"}]))
    with ResponsesFake(lambda fake, body: Say("hello")) as fake:
        command = [str(agents_bin / "codex-acp")]
        async with nbacp.connect(command, env=codex_env(tmp_path, fake), answers=recorder) as conn:
            assert [m.id for m in conn.auth_methods] == ["api-key", "chat-gpt", "chat-gpt-device-code"]
            session = await conn.new_session(tmp_path)  # -32000 "Authentication required", card, retry
            result = await asyncio.wait_for(session.prompt("Hi."), HANG)
    assert recorder.kinds == ["auth"]
    assert ECHO not in result.text and "hello" in result.text


async def test_without_authentication_new_session_fails(agents_bin: Path, tmp_path: Path) -> None:
    with ResponsesFake(lambda fake, body: Say("hello")) as fake:
        command = [str(agents_bin / "codex-acp")]
        refuse = Script([{"authenticate": "cancel"}])
        async with nbacp.connect(command, env=codex_env(tmp_path, fake), answers=refuse) as conn:
            with pytest.raises(AgentError) as caught:
                await conn.new_session(tmp_path)
    assert caught.value.code == -32000
    assert fake.requests == []


async def test_single_select_with_note(agents_bin: Path, tmp_path: Path) -> None:
    entry = {"pick": {"fmt": "CSV"}, "fill": {"fmt_note": "semicolon separated"}}
    fake, result, recorder = await run_codex(agents_bin, tmp_path, FORMAT, Script([entry]))
    assert recorder.kinds == ["form"]
    seen = fake.result_for(FORMAT.id)
    assert answers(seen) == {"answers": {"fmt": {"answers": ["CSV", "user_note: semicolon separated"]}}}
    assert ECHO + seen in result.text


async def test_single_select_other(agents_bin: Path, tmp_path: Path) -> None:
    entry = {"pick": {"fmt": "None of the above"}, "fill": {"fmt_note": "Feather"}}
    fake, _result, _ = await run_codex(agents_bin, tmp_path, FORMAT, Script([entry]))
    expected = {"answers": {"fmt": {"answers": ["None of the above", "user_note: Feather"]}}}
    assert answers(fake.result_for(FORMAT.id)) == expected


async def test_decline(agents_bin: Path, tmp_path: Path) -> None:
    fake, _result, _ = await run_codex(agents_bin, tmp_path, FORMAT, Script([{"press": "decline"}]))
    assert answers(fake.result_for(FORMAT.id)) == {"answers": {}}


async def test_cancel(agents_bin: Path, tmp_path: Path) -> None:
    fake, result, _ = await run_codex(agents_bin, tmp_path, FORMAT, Script([{"press": "cancel"}]))
    assert result.stop_reason == "end_turn"
    assert fake.result_for(FORMAT.id) == '{"answers":{}}'  # the same as a decline: codex cannot tell them apart


async def test_agent_mode_sends_no_permission_card(agents_bin: Path, tmp_path: Path) -> None:
    fake, _result, recorder = await run_codex(agents_bin, tmp_path, TOUCH, Script([]))
    assert recorder.kinds == []  # "agent" mode: codex's own policy decides, the person is never asked
    assert fake.result_for(TOUCH.id) == (
        "approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy"
        " is Never"
    )
    assert not (tmp_path / "made-by-codex.txt").exists()


async def test_permission_allowed_after_mode_change(agents_bin: Path, tmp_path: Path) -> None:
    fake, _result, recorder = await run_codex(
        agents_bin, tmp_path, TOUCH, Script([{"choose": "allow_once"}]), mode="read-only"
    )
    assert recorder.kinds == ["permission"]
    assert [(o.option_id, o.kind) for o in recorder.cards[0].options] == [
        ("allow_once", "allow_once"),
        ("accept_execpolicy_amendment", "allow_always"),
        ("cancel", "reject_once"),
    ]
    assert (tmp_path / "made-by-codex.txt").exists()
    assert steady(fake.result_for(TOUCH.id)) == "Process exited with code 0\nOriginal token count: 0\nOutput:\n"


async def test_permission_rejected_after_mode_change(agents_bin: Path, tmp_path: Path) -> None:
    fake, _result, recorder = await run_codex(
        agents_bin, tmp_path, TOUCH, Script([{"choose": "reject_once"}]), mode="read-only", then="Why not?"
    )
    assert recorder.kinds == ["permission"]
    assert not (tmp_path / "made-by-codex.txt").exists()
    assert steady(fake.result_for(TOUCH.id)) == "aborted by user"  # sent with the next prompt: the turn ended


async def test_session_loads_on_a_new_connection(agents_bin: Path, tmp_path: Path) -> None:
    with ResponsesFake(lambda fake, body: Say("Noted: teal.")) as fake:
        command = [str(agents_bin / "codex-acp")]
        async with nbacp.connect(command, env=codex_env(tmp_path, fake)) as conn:
            await conn.authenticate("api-key")
            session = await conn.new_session(tmp_path)
            await asyncio.wait_for(session.prompt("Remember the word teal."), HANG)
            session_id = session.id
        async with nbacp.connect(command, env=codex_env(tmp_path, fake)) as conn:
            await conn.authenticate("api-key")
            assert session_id in [s.session_id for s in await conn.list_sessions(tmp_path)]
            loaded = await conn.load_session(session_id, tmp_path)
            assert "Noted: teal." in loaded.history.text
            await asyncio.wait_for(loaded.prompt("Which word?"), HANG)
        said = json.dumps(fake.snapshot()[-1][1].get("input"))
        assert "Remember the word teal." in said and "Noted: teal." in said and "Which word?" in said


async def test_stop_while_a_question_is_open(agents_bin: Path, tmp_path: Path) -> None:
    """The stop button (session.cancel) while the question card is open: the turn ends cancelled."""
    with ResponsesFake(call_then_echo(FORMAT)) as fake:
        await stop_while_a_question_is_open(
            [str(agents_bin / "codex-acp")], codex_env(tmp_path, fake), tmp_path, auth_method="api-key"
        )
    # Two messages, depending on which of nbacp's two steps codex handles first: the card's cancel
    # reply ('{"answers":{}}', as for a decline) or session/cancel (the turn's abort, timed by codex).
    seen = fake.result_for(FORMAT.id)
    assert seen == '{"answers":{}}' or re.fullmatch(r"aborted by user after [0-9.]+m?s", seen), seen
