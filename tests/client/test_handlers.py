"""The client's incoming methods: one table, one handler per family, one complete surface protocol.

The table is ``NotebookClient``: every method the SDK routes to a client is defined there and
answered by a family living with its capability (``HANDLERS``). Every surface the families talk to
implements the whole ``Surface`` protocol, so no handler asks a surface what it can do.
A card's reply is serialised once and its schema parsed once, over a real connection.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest
from acp.interfaces import Client
from acp.schema import AcceptElicitationResponse
from support.agents import SchemaAgent, claude_question_schema
from support.peers import HoldingAgent

import nbacp
from nbacp.answers import Script
from nbacp.client.notebook_client import NotebookClient
from nbacp.client.surface import QuietSurface, Surface, Surfaces
from nbacp.client.tools import acp_transport
from nbacp.form import Form
from nbacp.widgets import Transcript

CLIENT = Path(nbacp.__file__).parent / "client"
HANDLERS = [
    "questions/handler.py",
    "turns/updates_handler.py",
    "turns/extension_notes.py",
    "workspace/fs_handler.py",
    "workspace/terminal_handler.py",
]
"""The handler families of the table, each in its capability's folder."""


def protocol_methods(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(fn)
        for name, fn in vars(cls).items()
        if inspect.isfunction(fn) and not name.startswith("_")
    }


def test_every_method_the_sdk_routes_is_in_the_table() -> None:
    # ext_method: no extension request is served, so the SDK answers "Method not found".
    # mcp/* (methods of SDK 1.x's Client; 0.12 routes none): the guard routes them to the kernel
    # tools' ACP transport on both lines, before the SDK's router.
    wanted = set(protocol_methods(Client)) - {"on_connect", "ext_method"}
    mcp = {name for name in wanted if "mcp" in name}
    assert not mcp or {"mcp/connect", "mcp/message", "mcp/disconnect"} == acp_transport.METHODS
    defined = set(protocol_methods(NotebookClient))
    assert wanted - mcp <= defined, sorted(wanted - mcp - defined)


@pytest.mark.parametrize("surface", [Transcript, QuietSurface])
def test_each_surface_implements_the_whole_protocol(surface: type) -> None:
    wanted = protocol_methods(Surface)  # type: ignore[arg-type]
    assert len(wanted) == 9  # add_child and add_child_card: a subagent's updates and cards
    for name, signature in wanted.items():
        mine = inspect.signature(getattr(surface, name))
        assert list(mine.parameters) == list(signature.parameters), name


def test_the_table_imports_every_family() -> None:
    table = (CLIENT / "notebook_client.py").read_text()
    for family in HANDLERS:
        assert f"from nbacp.client.{family[:-3].replace('/', '.')} import " in table, family


def test_no_handler_probes_an_object_with_getattr() -> None:
    probing = []
    for path in [CLIENT / "notebook_client.py", CLIENT / "surface.py", *(CLIENT / family for family in HANDLERS)]:
        for node in ast.walk(ast.parse(path.read_text())):
            called = node.func if isinstance(node, ast.Call) else None
            if isinstance(called, ast.Name) and called.id in ("getattr", "hasattr"):
                probing.append(f"{path.name}:{node.lineno}")
    assert probing == []


class Recording(QuietSurface):
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []
        self.notes: list[str] = []

    def note_line(self, key: str, text: str) -> None:
        self.lines.append((key, text))

    def note(self, text: str) -> None:
        self.notes.append(text)


def test_surfaces_route_to_the_running_turn_else_the_inbox() -> None:
    surfaces = Surfaces()
    inbox, turn = Recording(), Recording()
    assert surfaces.for_session("s") is None
    surfaces.inbox = inbox
    assert surfaces.for_session("s") is inbox and surfaces.for_unnamed() is inbox
    surfaces.attach("s", turn)
    assert surfaces.for_session("s") is turn and surfaces.for_session("t") is inbox
    assert surfaces.for_unnamed() is turn  # the one turn running is where the person looks
    surfaces.note("cut an update")
    assert turn.notes == ["cut an update"] and inbox.notes == []
    surfaces.detach("s", Recording())  # not the attached one: ignored
    assert surfaces.running("s")
    surfaces.detach("s", turn)
    surfaces.note("later")
    assert inbox.notes == ["later"]


async def test_an_extension_notification_is_one_line_on_the_session_s_surface() -> None:
    client = NotebookClient()
    inbox, turn = Recording(), Recording()
    client.surfaces.inbox = inbox
    client.surfaces.attach("s", turn)
    await client.ext_notification("_auth/status_update", {"sessionId": "s", "status": "authenticated"})
    await client.ext_notification("_codex/rate_limits", {"sessionId": "other"})
    assert [key for key, _ in turn.lines] == ["ext:_auth/status_update"]
    assert [key for key, _ in inbox.lines] == ["ext:_codex/rate_limits"]
    assert len(client.notes.lines) == 2


async def test_a_reply_is_serialised_once_and_the_schema_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[Any] = []
    parse = Form.from_schema.__func__  # type: ignore[attr-defined]

    def counting_parse(cls: type[Form], schema: Any, meta: Any = None) -> Form:
        parsed.append(schema)
        return parse(cls, schema, meta)  # type: ignore[no-any-return]

    dumps: list[str] = []
    dump = AcceptElicitationResponse.model_dump

    def counting_dump(self: Any, *args: Any, **kwargs: Any) -> Any:
        dumps.append(type(self).__name__)
        return dump(self, *args, **kwargs)

    monkeypatch.setattr(Form, "from_schema", classmethod(counting_parse))
    monkeypatch.setattr(AcceptElicitationResponse, "model_dump", counting_dump)
    message, schema = claude_question_schema([{"question": "Which colour?", "options": [{"label": "Red"}]}])
    agent = SchemaAgent(message, schema)
    async with nbacp.connect(agent, answers=Script([{"pick": {"question_0": "Red"}, "press": "accept"}])) as conn:
        async with asyncio.timeout(30):
            result = await (await conn.new_session(".")).prompt("ask")
    assert agent.replies[0].action == "accept" and "Red" in result.text
    assert len(parsed) == 1  # by nbacp; the SDK validates the request into its own model besides
    # by the client, once: the SDK's sender passes the dict through. The agent side's own parse of
    # the reply makes no dump (it validates), and SchemaAgent dumps once to say it.
    assert dumps.count("AcceptElicitationResponse") == 2, dumps


async def wait_until(predicate: Any, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.01)


async def test_a_url_card_is_released_when_it_settles() -> None:
    agent = HoldingAgent(url="https://login.example.com/device?code=1")
    async with nbacp.connect(agent, answers=Script([{"press": "open"}])) as conn:
        session = await conn.new_session(".")
        turn = session.start("login")
        await wait_until(lambda: agent.replies)
        assert list(conn.client.questions.url_cards) == ["e-1"]
        await agent.conn.complete_elicitation(elicitation_id="e-1")
        await wait_until(lambda: not conn.client.questions.url_cards)
        agent.release.set()
        assert (await turn).stop_reason == "end_turn"
    assert conn.client.questions.url_cards == {}
