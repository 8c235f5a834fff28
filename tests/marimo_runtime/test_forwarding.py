"""The forwarding's bookkeeping in a real marimo kernel: answered cards leave nothing behind.

``marimo export html`` runs a cell that makes three turns of the demo agent's ``full`` scenario
(four cards each: three forms and a permission), answered by an ``answers=`` policy that also
notes how many models are let through while each card is asked. Each card and turn view is
registered while its comm is open (``nbacp.marimo_runtime.forwarding``); after each turn the
set must be back to its size before the first (the connection's inbox only), and after the
connection is closed to its size before it, so a day-long marimo session keeps no per-card
state there. A person's clicks on the same path are tested in tests/browser/test_marimo_browser.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.marimo_cli import export_html
from support.sdk_line import require_acp_kit

pytestmark = pytest.mark.marimo

TURNS = 3

NOTEBOOK = """import marimo

app = marimo.App()


@app.cell
async def _():
    import json

    import nbacp
    from nbacp import marimo_runtime
    from nbacp.answers import Script
    from nbacp.demo import demo_agent

    full = [
        {"expect": "form", "pick": {"choice": "Production"}},
        {"expect": "form", "pick": {"datasets": ["Orders"], "schedule": "Right now"}},
        {"expect": "form", "fill": {"workers": 8}},
        {"expect": "permission", "choose": "allow_once"},
    ]
    script = Script(full * TURNS)
    asked = []

    def policy(card):
        asked.append(len(marimo_runtime.forwarded_models()))
        script(card)

    before = len(marimo_runtime.forwarded_models())
    conn = await nbacp.connect(demo_agent(), answers=policy)
    session = await conn.new_session(cwd=".")
    connected = len(marimo_runtime.forwarded_models())
    after = []
    for _ in range(TURNS):
        result = await session.prompt("full")
        assert result.stop_reason == "end_turn", result.text
        after.append(len(marimo_runtime.forwarded_models()))
    await conn.close()
    closed = len(marimo_runtime.forwarded_models())
    facts = {"before": before, "connected": connected, "asked": asked, "after": after, "closed": closed}
    with open("forwarding-report.json", "w") as f:
        json.dump(facts | {"text": result.text}, f)
    return


if __name__ == "__main__":
    app.run()
"""


def test_answered_cards_and_ended_turns_are_no_longer_forwarded(tmp_path: Path) -> None:
    require_acp_kit()  # the demo agent
    notebook = tmp_path / "forwarding.py"
    notebook.write_text(NOTEBOOK.replace("TURNS", str(TURNS)))
    done = export_html(notebook, tmp_path / "forwarding.html", timeout=200)
    report = tmp_path / "forwarding-report.json"
    assert report.is_file(), done.stdout + done.stderr
    facts = json.loads(report.read_text())
    assert "launch: approved" in facts["text"]  # every card was answered: the turn went to its end
    assert len(facts["asked"]) == 4 * TURNS
    # The connection's inbox (a turn view for cards that come between turns) is let through while
    # the connection is open; while a card is asked, it and its turn's view are too (the count sees them) ...
    assert facts["connected"] == facts["before"] + 1, facts
    assert all(n >= facts["connected"] + 2 for n in facts["asked"]), facts
    # ... after each turn nothing of its cards or its view is left, and after close() nothing at all
    assert facts["after"] == [facts["connected"]] * TURNS, facts
    assert facts["closed"] == facts["before"], facts
