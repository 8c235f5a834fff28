"""``python -m nbacp.demo serve``: a real subprocess on 127.0.0.1, reached over acpremote."""

from __future__ import annotations

import asyncio
import re
import select
import subprocess
import sys
from collections.abc import Iterator

import pytest

import nbacp
from nbacp.answers import Script
from nbacp.demo.__main__ import READY_PREFIX, main
from nbacp.errors import ConnectError

TOKEN = "demo-test-token"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """One server for the module (starting Python + pydantic-ai takes seconds); killed at the end.

    Port 0: the server binds a port the OS picks and prints the URL it listens on, so no port is
    picked here that another process could take before the server binds it.
    """
    command = [
        sys.executable,
        "-m",
        "nbacp.demo",
        "serve",
        "--port",
        "0",
        "--token",
        TOKEN,
        "--allow-origin",
        "https://notebooks.example.org",
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 120)
        assert ready, "the demo server printed nothing within 120 s"
        line = process.stdout.readline().strip()
        assert line.startswith(READY_PREFIX), line
        url = line.removeprefix(READY_PREFIX)
        assert re.fullmatch(r"ws://127\.0\.0\.1:[1-9]\d*/acp/ws", url), url
        yield url
    finally:
        process.terminate()
        assert process.wait(30) == 0  # SIGTERM is a clean stop


async def test_remote_demo_answers_over_websocket(server_url: str) -> None:
    answers = Script([{"pick": {"datasets": ["Orders", "Customers"]}, "fill": {"datasets_custom": "refunds"}}])
    async with nbacp.connect(server_url, token=TOKEN, answers=answers) as conn:
        assert conn.kind == "remote"
        assert conn.agent_info is not None and conn.agent_info.name == "nbacp-demo"
        session = await conn.new_session()
        result = await session.prompt("quick")
    assert result.stop_reason == "end_turn"
    assert "datasets = [<Dataset.ORDERS: 'orders'>, <Dataset.CUSTOMERS: 'customers'>] + other 'refunds'" in result.text


async def test_each_connection_gets_its_own_sessions(server_url: str) -> None:
    """Two clients at once: each one's questions reach its own cards."""
    first = Script([{"pick": {"schedule": "Right now"}}])
    second = Script([{"fill": {"schedule_custom": "at noon"}}])
    async with (
        nbacp.connect(server_url, token=TOKEN, answers=first) as a,
        nbacp.connect(server_url, token=TOKEN, answers=second) as b,
    ):
        sa, sb = await a.new_session(), await b.new_session()
        ra, rb = await asyncio.gather(sa.prompt("single"), sb.prompt("single"))
    assert "schedule = <Schedule.NOW: 'now'>" in ra.text
    assert "schedule = other 'at noon'" in rb.text


@pytest.mark.parametrize("token", ["wrong-token", None])
async def test_wrong_or_missing_token_is_refused(server_url: str, token: str | None) -> None:
    with pytest.raises(ConnectError, match="401"):
        await nbacp.connect(server_url, token=token)


def test_refuses_public_address_without_token(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--host", "0.0.0.0", "--port", "0"]) == 2
    assert "without --token" in capsys.readouterr().err


async def test_remote_demo_reaches_the_kernel_tools_from_its_own_process(server_url: str) -> None:
    """The agent process connects to the notebook's MCP server over HTTP with the token it was given."""
    pd = pytest.importorskip("pandas")
    ns = {"orders": pd.DataFrame({"id": [1, 2], "total": [None, 3.0]})}
    answers = Script(
        [
            {"expect": "form", "pick": {"choice": "orders"}},
            {"expect": "permission", "choose": "allow_once"},
        ]
    )
    async with nbacp.connect(server_url, token=TOKEN, answers=answers) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace=ns))
        result = await session.prompt("explore")
    assert "orders: pandas.DataFrame (2, 2)" in result.text
    assert "id       0\ntotal    1" in result.text
    assert session.tools is not None and session.tools.runs == [("orders.isna().sum()", "allowed")]


def _start(
    args: list[str], env: dict[str, str] | None = None, lines_expected: int = 1
) -> tuple[subprocess.Popen[str], list[str]]:
    """Start ``serve`` with ``args``; returns the process and the first ``lines_expected`` lines it printed."""
    import os

    command = [sys.executable, "-m", "nbacp.demo", "serve", "--port", "0", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
    assert process.stdout is not None
    lines = []
    ready, _, _ = select.select([process.stdout], [], [], 120)
    assert ready, "the demo server printed nothing within 120 s"
    lines.append(process.stdout.readline().strip())
    while len(lines) < lines_expected:
        lines.append(process.stdout.readline().strip())
    return process, lines


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    assert process.wait(30) == 0


async def test_a_token_is_generated_printed_once_and_required() -> None:
    from nbacp.demo.__main__ import TOKEN_PREFIX

    process, lines = _start([], lines_expected=2)
    try:
        url = lines[0].removeprefix(READY_PREFIX)
        assert lines[1].startswith(TOKEN_PREFIX)
        token = lines[1].removeprefix(TOKEN_PREFIX)
        assert len(token) >= 24
        with pytest.raises(ConnectError, match="401"):
            await nbacp.connect(url)
        async with nbacp.connect(url, token=token) as conn:
            assert conn.agent_info is not None
    finally:
        _stop(process)


async def test_the_token_can_come_from_the_environment() -> None:
    process, lines = _start([], env={"NBACP_DEMO_TOKEN": "from-env-token"})
    try:
        async with nbacp.connect(lines[0].removeprefix(READY_PREFIX), token="from-env-token") as conn:
            assert conn.agent_info is not None
    finally:
        _stop(process)


@pytest.mark.parametrize("token", ["", " ", "\t\n"])
def test_empty_or_whitespace_tokens_are_refused(token: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--host", "0.0.0.0", "--port", "0", "--token", token]) == 2
    assert "empty or whitespace token" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        (None, True),
        ("http://localhost:8888", True),
        ("http://127.0.0.1:8888", True),
        ("http://[::1]:8888", True),
        ("https://notebooks.example.org", True),  # in --allow-origin
        ("https://evil.example.com", False),
        ("http://localhost.evil.example.com", False),
        ("null", False),
    ],
)
async def test_websocket_upgrades_from_foreign_origins_are_refused(
    server_url: str, origin: str | None, allowed: bool
) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    headers = {"Authorization": f"Bearer {TOKEN}"}
    if allowed:
        async with connect(server_url, origin=origin, additional_headers=headers):  # type: ignore[arg-type]
            pass
    else:
        with pytest.raises(InvalidStatus) as info:
            async with connect(server_url, origin=origin, additional_headers=headers):  # type: ignore[arg-type]
                pass
        assert info.value.response.status_code == 403
