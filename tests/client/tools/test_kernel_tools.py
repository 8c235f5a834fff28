"""The kernel as the agent's tool: nbacp's MCP server, driven by the mcp SDK's own streamable HTTP client.

The session is opened against the demo agent (a real pydantic-acp agent that advertises
``mcpCapabilities.http``); the test then plays the agent's MCP side with ``mcp.Client`` at the
URL and token nbacp passed in ``session/new``. Permission cards are answered by nbacp.answers
scripts acting on the real cards.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

import nbacp
from nbacp.answers import Script
from nbacp.demo import demo_agent
from nbacp.errors import ToolsNotSupportedError

pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


def namespace() -> dict[str, Any]:
    return {
        "sales": pd.DataFrame({"region": ["n", "s", None], "amount": [1.0, None, 3.0]}),
        "n": 3,
        "_hidden": 1,
        "words": ["a", "b"],
    }


@asynccontextmanager
async def tool_session(ns: dict[str, Any], answers: Any = None, **kw: Any) -> AsyncIterator[Any]:
    async with nbacp.connect(demo_agent(), answers=answers) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace=ns, **kw))
        yield session


@asynccontextmanager
async def mcp_client(session: Any, token: str | None = "same") -> AsyncIterator[Client]:
    server = session.tools
    headers = (
        {"Authorization": f"Bearer {server.token}"}
        if token == "same"
        else ({"Authorization": f"Bearer {token}"} if token else {})
    )
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(server.url, http_client=http)) as client,
    ):
        yield client


def text_of(result: Any) -> str:
    return "\n".join(b.text for b in result.content if b.type == "text")


async def test_session_new_carries_the_server_with_its_token() -> None:
    async with tool_session(namespace()) as session:
        entry = session.tools.entry()
        assert entry.type == "http" and entry.name == "notebook"
        assert entry.url.startswith("http://127.0.0.1:") and entry.url.endswith("/mcp")
        [header] = entry.headers
        assert header.name == "Authorization" and header.value == f"Bearer {session.tools.token}"
        assert len(session.tools.token) >= 40


async def test_list_and_describe_through_a_real_mcp_client() -> None:
    async with tool_session(namespace(), max_rows=2) as session, mcp_client(session) as client:
        tools = await client.list_tools()
        assert sorted(t.name for t in tools.tools) == ["describe", "list_variables", "run_python"]
        listing = text_of(await client.call_tool("list_variables", {}))
        assert listing.splitlines() == ["n: int", "sales: pandas.DataFrame (3, 2)", "words: list len 2"]
        described = text_of(await client.call_tool("describe", {"name": "sales"}))
        assert "# DataFrame sales (pandas): 3 rows x 2 columns" in described
        assert "#   amount: float64" in described
        assert "# first 2 of 3 rows as CSV (truncated: 1 rows not shown)" in described
        missing = await client.call_tool("describe", {"name": "nope"})
        assert missing.is_error and "No variable named 'nope'" in text_of(missing)
        hidden = await client.call_tool("describe", {"name": "_hidden"})
        assert hidden.is_error


async def test_request_without_or_with_a_wrong_token_is_refused() -> None:
    async with tool_session(namespace()) as session:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        async with httpx2.AsyncClient() as http:
            bare = await http.post(session.tools.url, json=body, headers=accept)
            wrong = await http.post(
                session.tools.url, json=body, headers=accept | {"Authorization": "Bearer not-the-token"}
            )
        assert bare.status_code == 401 and wrong.status_code == 401
        with pytest.raises(Exception):  # noqa: B017 - the SDK client surfaces the 401 as its own error
            async with mcp_client(session, token=None) as client:
                await client.list_tools()


async def test_run_python_allowed_once_runs_in_the_namespace_and_returns_bounded_output() -> None:
    ns = namespace()
    policy = Script([{"expect": "permission", "choose": "allow_once"}, {"expect": "permission", "choose": "reject"}])
    async with tool_session(ns, answers=policy, max_output=200) as session, mcp_client(session) as client:
        ran = await client.call_tool("run_python", {"code": "total = sales['amount'].sum()\nprint('x' * 500)\ntotal"})
        out = text_of(ran)
        assert not ran.is_error and ns["total"] == 4.0
        assert out.startswith("x" * 200) and "output truncated" in out and len(out) < 260
        again = await client.call_tool("run_python", {"code": "n = 99"})  # allow_once: asked again
        assert again.is_error and ns["n"] == 3
    assert session.tools.runs == [
        ("total = sales['amount'].sum()\nprint('x' * 500)\ntotal", "allowed"),
        ("n = 99", "rejected"),
    ]


async def test_rejected_run_python_runs_nothing(tmp_path: Any) -> None:
    ns = namespace()
    marker = tmp_path / "ran.txt"
    code = f"open({str(marker)!r}, 'w').write('ran'); n = 42"
    async with tool_session(ns, answers=Script([{"choose": "reject"}])) as session, mcp_client(session) as client:
        result = await client.call_tool("run_python", {"code": code})
    assert result.is_error and "rejected" in text_of(result) and "nothing was run" in text_of(result)
    assert not marker.exists() and ns["n"] == 3


async def test_decline_policy_rejects() -> None:
    ns = namespace()
    async with tool_session(ns, answers=nbacp.answers.decline) as session, mcp_client(session) as client:
        result = await client.call_tool("run_python", {"code": "n = 5"})
    assert result.is_error and ns["n"] == 3
    assert session.tools.runs == [("n = 5", "rejected")]


async def test_without_an_answer_nothing_runs_and_a_closed_card_is_not_a_yes() -> None:
    ns = namespace()
    async with tool_session(ns) as session, mcp_client(session) as client:
        call = asyncio.ensure_future(client.call_tool("run_python", {"code": "n = 7"}))
        conn_client = session.connection.client
        for _ in range(500):
            if conn_client.open_cards():
                break
            await asyncio.sleep(0.01)
        [card] = conn_client.open_cards()
        assert type(card).__name__ == "PermissionCard" and ns["n"] == 3 and not call.done()
        conn_client.cancel_cards("the test closed it")
        result = await call
    assert result.is_error and "closed without an answer" in text_of(result) and ns["n"] == 3
    assert session.tools.runs == [("n = 7", "cancelled")]


async def test_allow_for_this_session_is_an_explicit_choice_and_then_sticks() -> None:
    ns = namespace()
    cards: list[Any] = []

    def policy(card: Any) -> None:
        cards.append(card)
        card.choose("Allow for this session")

    async with tool_session(ns, answers=policy) as session, mcp_client(session) as client:
        await client.call_tool("run_python", {"code": "n += 1"})
        await client.call_tool("run_python", {"code": "n += 1"})
    assert ns["n"] == 5 and len(cards) == 1
    assert session.tools.runs == [("n += 1", "allowed"), ("n += 1", "allowed")]
    [card] = cards
    assert [o.option_id for o in card.options] == ["allow_once", "allow_session", "reject"]
    assert [o.kind for o in card.options] == ["allow_once", "allow_always", "reject_once"]
    assert card.tool_call.content[0].content.text == "n += 1"  # the card shows the code


async def test_errors_and_figures_come_back() -> None:
    ns = namespace()
    policy = Script([{"choose": "allow_session"}])
    async with tool_session(ns, answers=policy) as session, mcp_client(session) as client:
        failed = await client.call_tool("run_python", {"code": "x = 1\n1 / 0"})
        assert not failed.is_error  # the tool ran; the code's error is its output
        assert "[error]" in text_of(failed) and "ZeroDivisionError: division by zero" in text_of(failed)
        assert 'File "<agent code>", line 2' in text_of(failed)
        drawn = await client.call_tool(
            "run_python", {"code": "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nprint('drawn')"}
        )
        images = [b for b in drawn.content if b.type == "image"]
        assert len(images) == 1 and images[0].mime_type == "image/png"
        assert base64.b64decode(images[0].data).startswith(b"\x89PNG")
        assert "drawn" in text_of(drawn) and "1 figure(s) attached as PNG" in text_of(drawn)
        import matplotlib.pyplot as plt

        assert plt.get_fignums() == []  # the agent's figure was closed after sending


async def test_server_closes_with_the_connection() -> None:
    async with tool_session(namespace()) as session:
        url = session.tools.url
    assert session.tools.closed
    async with httpx2.AsyncClient() as http:
        with pytest.raises(httpx2.ConnectError):
            await http.post(url, json={})


async def test_agent_without_http_mcp_gets_no_session() -> None:
    from support.agents import QuestionsAgent

    agent = QuestionsAgent([])
    async with nbacp.connect(agent) as conn:
        with pytest.raises(ToolsNotSupportedError, match=r"mcpCapabilities\.http"):
            await conn.new_session(tools=nbacp.kernel_tools())
        assert conn.sessions == []


# -- the demo agent calls the tools -------------------------------------------------------
EXPLORE = [{"expect": "form", "pick": {"choice": "sales"}}, {"expect": "permission", "choose": "allow_once"}]


async def test_demo_explore_lists_asks_and_runs_one_line() -> None:
    ns = namespace()
    ns["other"] = pd.DataFrame({"x": [1]})
    async with tool_session(ns, answers=Script(EXPLORE)) as session:
        result = await session.prompt("explore")
    assert result.stop_reason == "end_turn"
    assert "sales: pandas.DataFrame (3, 2)" in result.text and "other: pandas.DataFrame (1, 1)" in result.text
    assert "You picked sales. I asked to run: sales.isna().sum()" in result.text
    assert "region    1\namount    1" in result.text
    assert session.tools.runs == [("sales.isna().sum()", "allowed")]
    assert [kind for kind, _, _ in result.answers] == ["question", "permission"]
    assert result.answers[1][1] == "run_python: sales.isna().sum()"


async def test_demo_explore_rejected_runs_nothing() -> None:
    ns = namespace()
    answers = Script([EXPLORE[0], {"expect": "permission", "choose": "reject"}])
    async with tool_session(ns, answers=answers) as session:
        result = await session.prompt("explore")
    assert "It did not run: The person rejected running this code; nothing was run." in result.text
    assert session.tools.runs == [("sales.isna().sum()", "rejected")]


async def test_demo_explore_without_tools_says_how_to_get_them() -> None:
    async with nbacp.connect(demo_agent()) as conn:
        session = await conn.new_session()
        result = await session.prompt("explore")
    assert "tools=nbacp.kernel_tools()" in result.text


async def test_the_server_leaves_sigint_to_the_kernel() -> None:
    import signal

    before = signal.getsignal(signal.SIGINT)
    async with tool_session(namespace()) as session, mcp_client(session) as client:
        await client.list_tools()
        assert signal.getsignal(signal.SIGINT) is before  # uvicorn's own handler would end the server
    assert signal.getsignal(signal.SIGINT) is before


async def test_runs_allowed_for_the_session_are_still_noted_in_the_turn() -> None:
    """Two explore turns: the second run_python shows no card, and its turn's record says why it ran."""
    ns = namespace()
    answers = Script(
        [
            {"expect": "form", "pick": {"choice": "sales"}},
            {"expect": "permission", "choose": "allow_session"},
            {"expect": "form", "pick": {"choice": "sales"}},
        ]
    )
    async with tool_session(ns, answers=answers) as session:
        first = await session.prompt("explore")
        second = await session.prompt("explore")
    assert [a[0] for a in first.answers] == ["question", "permission"]
    assert second.answers[1] == (
        "permission",
        "run_python: sales.isna().sum()",
        "Allowed for this session (chosen earlier)",
    )
    assert "region    1" in second.text and answers.remaining == 0


async def test_demo_explore_polars_frame_and_declined_question() -> None:
    pl = pytest.importorskip("polars")
    ns: dict[str, Any] = {"events": pl.DataFrame({"kind": ["a", None, "b"]})}
    answers = Script(
        [
            {"expect": "form", "pick": {"choice": "events"}},
            {"expect": "permission", "choose": "allow_once"},
            {"expect": "form", "press": "decline"},
        ]
    )
    async with tool_session(ns, answers=answers) as session:
        ran = await session.prompt("explore")
        declined = await session.prompt("explore")
    assert "events: polars.DataFrame (3, 1)" in ran.text and "I asked to run: events.null_count()" in ran.text
    assert "│ 1    │" in ran.text  # polars' own table repr of the one null
    assert "You declined the question, so I stopped there." in declined.text
    assert session.tools.runs == [("events.null_count()", "allowed")]
