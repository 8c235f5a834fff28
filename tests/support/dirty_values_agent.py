"""An agent whose question's names and values are not clean text (a real ACP peer).

Each prompt asks one form whose property names, ``const`` / ``enum`` values and default hold
``VALUES[kind]`` (a lone surrogate, a NUL and a control, bidi marks), and says the reply it got
as ASCII JSON (``json.dumps`` escapes every such character), so a test can compare it with the
originals byte for byte. Runs in-process (``DirtyValuesAgent(kind)``) or over stdio
(``python tests/support/dirty_values_agent.py <kind>``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from acp import PROTOCOL_VERSION, run_agent
from acp.schema import AgentCapabilities, InitializeResponse, NewSessionResponse, PromptResponse

VALUES = {
    "surrogate": "opt \udfff one",
    "control": "opt \x00 nul \x1b[31m",
    "bidi": "opt \u202eexe.txt\u2066",
}


def dirty_schema(value: str) -> dict[str, Any]:
    """A choice named and valued ``value`` (picked by its title), and an enum whose default is ``value``."""
    return {
        "type": "object",
        "properties": {
            f"pick {value}": {
                "type": "string",
                "title": "Pick",
                "oneOf": [{"const": value, "title": "The odd one"}, {"const": "plain", "title": "Plain"}],
            },
            "kept": {"type": "string", "enum": ["plain", value], "default": value},
        },
        "required": [f"pick {value}"],
    }


def expected_content(value: str) -> dict[str, str]:
    """What the agent must get back when the odd option is picked and the default kept."""
    return {f"pick {value}": value, "kept": value}


TWINS = ("opt \udfff", "opt \udffe")
"""Two originals that differ only by a lone surrogate: both clean to ``"opt \ufffd"``."""


def twins_schema() -> dict[str, Any]:
    """Two fields named by the twins, each offering both (the odd one: the second twin)."""
    first, second = TWINS
    options = [{"const": first, "title": "First"}, {"const": second, "title": "The odd one"}]
    return {
        "type": "object",
        "properties": {
            f"pick {first}": {"type": "string", "title": "Pick", "oneOf": options},
            f"pick {second}": {"type": "string", "enum": list(TWINS), "default": first},
        },
        "required": [f"pick {first}"],
    }


def twins_content() -> dict[str, str]:
    """What the agent must get back: each twin exactly, under its own name."""
    first, second = TWINS
    return {f"pick {first}": second, f"pick {second}": first}


def answer(card: Any) -> None:
    """The person's answer: the odd option of the first field, the default of the second."""
    first = next(iter(card.form.fields))
    card.pick(first, "The odd one")
    if not card.accept():
        raise AssertionError(card.errors)


class DirtyValuesAgent:
    def __init__(self, kind: str) -> None:
        """``kind``: a key of ``VALUES``, or ``"twins"`` (``twins_schema``)."""
        self.schema = twins_schema() if kind == "twins" else dirty_schema(VALUES[kind])
        self.conn: Any = None
        self.replies: list[Any] = []

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=AgentCapabilities())

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id="dirty")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        # Raw dicts through the SDK's JSON-RPC connection: pydantic would refuse to serialise a lone
        # surrogate, a hostile agent writing its own JSON would not.
        rpc = self.conn._conn
        reply = await rpc.send_request(
            "elicitation/create",
            {"mode": "form", "sessionId": session_id, "message": "Pick one", "requestedSchema": self.schema},
        )
        self.replies.append(reply)
        said = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": json.dumps(reply)}}
        await rpc.send_notification("session/update", {"sessionId": session_id, "update": said})
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(run_agent(DirtyValuesAgent(sys.argv[1]), use_unstable_protocol=True))
    sys.exit(0)
