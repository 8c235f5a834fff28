"""A permission request whose tool call writes a notebook open in Jupyter carries a warning on its
card (nbacp.client.questions.notebook_writes): claude-agent-acp's Write / Edit / NotebookEdit run inside the
agent, where the notebook guard cannot refuse them. A raw peer sends the requests as claude does.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from support import raw_session_agent

import nbacp

OPTIONS = [
    {"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]


def _ask(call_id: str, title: str, kind: str, raw_input: dict[str, Any]) -> list[Any]:
    return [
        "request",
        "session/request_permission",
        {
            "sessionId": "$session",
            "options": OPTIONS,
            "toolCall": {"toolCallId": call_id, "title": title, "kind": kind, "rawInput": raw_input},
        },
    ]


async def test_writes_to_the_open_notebook_are_flagged_on_the_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook = tmp_path / "analysis.ipynb"
    notebook.write_text("{}")
    monkeypatch.setenv("JPY_SESSION_NAME", str(notebook))  # what jupyter_server gives the kernel
    caps = tmp_path / "caps.json"
    caps.write_text("{}")
    specs: dict[str, dict[str, Any]] = {}

    def reject(card: Any) -> None:
        specs[card.tool_call.tool_call_id] = dict(card.spec)
        card.choose("reject")

    steps = [
        _ask("edit", "NotebookEdit", "other", {"notebook_path": str(notebook), "cell_id": "c1", "new_source": "1"}),
        _ask("write", "Write analysis.ipynb", "edit", {"file_path": str(notebook), "content": "{}"}),
        _ask("other", "Write other.ipynb", "edit", {"file_path": str(tmp_path / "other.ipynb"), "content": "{}"}),
        _ask("read", "Read analysis.ipynb", "read", {"file_path": str(notebook)}),
    ]
    async with (
        asyncio.timeout(60),
        nbacp.connect([sys.executable, raw_session_agent.__file__, str(caps)], answers=reject) as conn,
    ):
        session = await conn.new_session(tmp_path)
        result = await session.prompt(json.dumps(steps))
    assert len(json.loads(result.text)["replies"]) == 4  # every request answered
    for call_id in ("edit", "write"):
        message = specs[call_id]["message"]
        assert message.startswith("Warning: this writes analysis.ipynb, which is open in Jupyter."), call_id
        assert "show the cells in its answer" in message  # this session has no notebook tools
    assert specs["other"]["message"] == ""  # a notebook nobody has open
    assert specs["read"]["message"] == ""  # reading it is harmless
    assert notebook.read_text() == "{}"
