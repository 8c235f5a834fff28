"""A long turn with two subagents in a real JupyterLab, light and dark (a thought, a plan, messages
with code and a very long word, tool calls, a notice): each child one block under the
tool call that started it, with its own text and tool call, and its permission card inside it
("Explore asks"); answered, the record nests each child. The agent is the raw stdio peer of the
client tests (``tests/support/subagent_agent.py``), run by the notebook's kernel.
``NBACP_SCREENSHOTS=<dir>`` also writes the two screenshots there.
"""

from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path
from typing import Any

from browser_support import JupyterServer, open_notebook, output_area, run_all_cells, screenshot
from playwright.sync_api import Page, expect
from test_consent_cards_browser import ready, set_theme

TIMEOUT = 60_000
TESTS = Path(__file__).resolve().parents[1]


def step(session: str | None, update: dict[str, Any]) -> list[Any]:
    return ["update", session, update]


def text(session: str | None, words: str, kind: str = "agent_message_chunk") -> list[Any]:
    return step(session, {"sessionUpdate": kind, "content": {"type": "text", "text": words}})


def call(session: str | None, call_id: str, title: str, kind: str, status: str = "in_progress") -> list[Any]:
    return step(
        session, {"sessionUpdate": "tool_call", "toolCallId": call_id, "title": title, "kind": kind, "status": status}
    )


def child(child_id: str, title: str, description: str, tool: str) -> list[list[Any]]:
    return [
        step(
            None,
            {
                "sessionUpdate": "subagent_update",
                "sessionId": child_id,
                "title": title,
                "description": description,
                "capabilities": {"cancel": {}},
                "state": {"state": "running"},
            },
        ),
        step(
            None,
            {
                "sessionUpdate": "session_message",
                "messageId": tool,
                "senderSessionId": "parent",
                "recipientSessionId": child_id,
                "content": [{"type": "text", "text": description}],
            },
        ),
    ]


PERMISSION = {
    "sessionId": "c-explore",
    "toolCall": {"toolCallId": "w-1", "title": "Write notes/summary.md", "kind": "edit"},
    "options": [
        {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
        {"optionId": "deny", "name": "Deny", "kind": "reject_once"},
    ],
}
TURN = [
    text(None, "Let me think about the order.", "agent_thought_chunk"),
    text(None, "I'll look at the data and the code **in parallel**."),
    step(
        None,
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "Explore the data", "priority": "high", "status": "in_progress"},
                {"content": "Review the code", "priority": "medium", "status": "pending"},
            ],
        },
    ),
    call(None, "task-explore", "Explore the data", "think"),
    call(None, "task-review", "Review the code", "think"),
    *child("c-explore", "Explore", "Find the CSV files and summarise their columns", "task-explore"),
    *child("c-review", "Review", "Read analysis.py and list its problems", "task-review"),
    text("c-explore", "Found **3** CSV files under `data/`. "),
    text("c-review", "analysis.py reads "),
    call("c-explore", "ls", "ls data/", "execute", "completed"),
    text("c-review", "every file twice; "),
    text("c-explore", "sales.csv has 12 columns.", "agent_message_chunk"),
    call("c-review", "read", "Read analysis.py", "read", "completed"),
    text("c-review", "the plot has no axis labels."),
    step(
        None,
        {
            "sessionUpdate": "subagent_update",
            "sessionId": "c-review",
            "state": {"state": "idle", "stopReason": "end_turn"},
        },
    ),
    step(
        None,
        {"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited", "description": "retrying in 5 s"},
    ),
    text(None, "\n\nA first fix:\n\n```python\nplt.xlabel('day')\n```\n\nand a word that is long: " + "x" * 300),
    ["request", "session/request_permission", PERMISSION],
    step(
        None,
        {
            "sessionUpdate": "subagent_update",
            "sessionId": "c-explore",
            "state": {"state": "idle", "stopReason": "end_turn"},
        },
    ),
    step(
        None,
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "edit-1",
            "title": "Edit analysis.py",
            "kind": "edit",
            "status": "completed",
            "content": [
                {"type": "diff", "path": "analysis.py", "oldText": "plot(x)\n", "newText": "plot(x, label='x')\n"}
            ],
        },
    ),
    text(None, "Both are done."),
]


def cells(script: Path) -> list[str]:
    start = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(TESTS)!r})
        import nbacp
        from support.subagent_agent import command
        conn = await nbacp.connect([sys.executable, {str(TESTS / "support" / "subagent_agent.py")!r}, {str(script)!r}])
        session = await conn.new_session('.')
        turn = session.start("Explore the data and review the code, in parallel")
    """)
    return [start, "result = await turn\nprint('DONE', result.stop_reason)"]


def save(page: Page, tmp_path: Path, name: str) -> None:
    shot = screenshot(page, tmp_path, name)
    wanted = os.environ.get("NBACP_SCREENSHOTS")
    if wanted:
        Path(wanted).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(wanted) / shot.name)


def test_two_subagents_are_two_blocks_with_their_own_text_and_card(
    lab: JupyterServer, page: Page, tmp_path: Path
) -> None:
    import json

    script = tmp_path / "subagents.json"
    script.write_text(json.dumps({"turns": [TURN]}), encoding="utf-8")
    open_notebook(page, lab, lab.write_notebook("subagents.ipynb", cells(script)))
    run_all_cells(page)
    out = output_area(page, 0)
    blocks = out.locator(".nbacp-subagent")
    expect(blocks).to_have_count(2, timeout=TIMEOUT)
    explore, review = blocks.nth(0), blocks.nth(1)
    card = explore.locator(".nbacp-permission-card")
    root = ready(card)
    expect(root.locator(".nbacp-card-header")).to_have_text("Explore asks permission to edit a file")
    expect(explore).to_contain_text("Subagent: Explore · running")
    for shown in ("Found 3 CSV files under data/.", "✓ ls data/", "sales.csv has 12 columns."):
        expect(explore).to_contain_text(shown)
    expect(review).to_contain_text("Subagent: Review · idle (end_turn)")
    for shown in ("analysis.py reads every file twice;", "✓ Read analysis.py", "the plot has no axis labels."):
        expect(review).to_contain_text(shown)
    assert "CSV" not in review.inner_text() and "analysis.py reads" not in explore.inner_text()
    expect(out.locator(".nbacp-notice-warning")).to_have_text("Notice (warning): Rate limited — retrying in 5 s")
    page.set_viewport_size({"width": 1100, "height": 1400})
    try:
        for theme in ("JupyterLab Light", "JupyterLab Dark"):
            set_theme(page, theme)
            # JupyterLab shows its splash while it changes theme: the shot waits until it is gone
            page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=TIMEOUT)
            save(page, tmp_path, f"subagents-{'dark' if 'Dark' in theme else 'light'}")
    finally:
        set_theme(page, "JupyterLab Light")
    root.get_by_role("button", name="Allow", exact=True).click()
    expect(output_area(page, 1)).to_contain_text("DONE end_turn", timeout=TIMEOUT)
    record = out.locator(".nbacp-record")
    expect(record).to_have_count(1, timeout=TIMEOUT)
    expect(record.locator(".nbacp-record-subagent")).to_have_count(2)
    expect(record.locator(".nbacp-record-subagent").nth(0)).to_contain_text("Subagent: Explore · idle (end_turn)")
    expect(record).to_contain_text("Notice (warning): Rate limited")
