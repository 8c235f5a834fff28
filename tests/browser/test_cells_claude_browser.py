"""claude-agent-acp edits the open notebook in real JupyterLab 4 and Notebook 7 (docs/notebook-edits.md,
'Real agents'): run by the notebook's kernel with ``tools=nbacp.kernel_tools()`` (in a kernel: the
open notebook), against the project's fake Anthropic API, scripted as a model would act: load the deferred MCP
tools with ``ToolSearch``, ``mcp__notebook__notebook_read``, then one ``mcp__notebook__notebook_edit``
each to insert, replace and delete, by the ids the read gave. The person, in the page, accepts the
insert as is, edits and accepts the replace, rejects the delete. The page's notebook model then
holds exactly the expected cells, and the tool results claude handed its model say exactly that.

claude's own permission prompt for the two MCP tools is turned off the way a person would, with
``permissions.allow`` in ``~/.claude/settings.json``: the review card is the one question asked.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import JupyterServer, open_notebook, output_area, start_cell
from notebook_edit_support import page_cells
from playwright.sync_api import Locator, Page, expect
from real_agents.agent_support import BIN, ROOT, claude_env
from real_agents.fake_models import AnthropicFake, Call, FakeModel, Reply, Say

pytestmark = pytest.mark.real_agents

TIMEOUT = 120_000  # ms: a guard against a hung agent, never a speed assertion
READ, EDIT = "mcp__notebook__notebook_read", "mcp__notebook__notebook_edit"
SOURCES = ["x = 1", "y = 2", "z = 3"]
INSERTED = "x_doubled = x * 2"
PROPOSED = "y = 20"
EDITED = "y = 200  # the person's version"


@pytest.fixture(scope="module")
def claude() -> Path:
    """claude-agent-acp, installed by ``make real-agents`` (a no-op when cached)."""
    subprocess.run(["make", "-s", "real-agents"], cwd=ROOT, check=True)
    return Path(BIN, "claude-agent-acp")


class Model:
    """The scripted model: each step once the previous tool's result came back; ids from the read."""

    def __init__(self) -> None:
        self.cells: dict[str, str] = {}  # source -> id, as notebook_read gave them
        self.path = ""
        self.prompt_cell = ""

    def __call__(self, fake: FakeModel, body: dict[str, Any]) -> Reply:
        if "Bash" not in fake.offered_tools(body):  # claude's side requests (titles, summaries)
            return Say("ok")
        done = {result.call_id: result.text for result in fake.results_in(body)}
        if "toolu_search" not in done:
            return Call("ToolSearch", {"query": f"select:{READ},{EDIT}", "max_results": 5}, id="toolu_search")
        if "toolu_read" not in done:
            return Call(READ, {}, id="toolu_read")
        if not self.cells:
            view = json.loads(done["toolu_read"])
            self.path, self.prompt_cell = view["notebook_path"], view["prompt_cell_id"]
            self.cells = {c["source"]: c["id"] for c in view["cells"]}
        steps = [
            ("toolu_insert", {"cell_id": self.cells["x = 1"], "new_source": INSERTED, "edit_mode": "insert"}),
            ("toolu_replace", {"cell_id": self.cells["y = 2"], "new_source": PROPOSED, "edit_mode": "replace"}),
            ("toolu_delete", {"cell_id": self.cells["z = 3"], "edit_mode": "delete"}),
        ]
        for call_id, args in steps:
            if call_id not in done:
                return Call(EDIT, {"notebook_path": self.path, **args}, id=call_id)
        return Say("All three proposals answered.")


def cells(claude: Path, env: dict[str, str | None], home: Path) -> list[str]:
    setup = textwrap.dedent(f"""
        import nbacp
        conn = await nbacp.connect([{str(claude)!r}], env={env!r})
        session = await conn.new_session({str(home)!r}, tools=nbacp.kernel_tools())
        await session.set_mode("default")  # auto mode asks a classifier the fake cannot answer
        print("READY")
    """)
    prompt = textwrap.dedent("""
        result = await session.prompt("Add a cell that doubles x, set y to 20, drop z.")
        print("DONE", result.stop_reason)
    """)
    return [setup, *SOURCES, prompt]


def card(page: Page, index: int) -> Locator:
    """The ``index``-th review card of the turn, once ready (the prompt cell's index moves as cells go in)."""
    found = page.locator(".jp-Notebook .nbacp-review-card").nth(index)
    root = found.locator(".nbacp-card")
    expect(root).to_have_attribute("data-ready", "true", timeout=TIMEOUT)
    return root


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"allow": [READ, EDIT]}}), encoding="utf-8")
    yield tmp_path


def test_claude_proposes_three_edits_and_the_person_decides(
    page: Page, server: JupyterServer, claude: Path, home: Path
) -> None:
    model = Model()
    with AnthropicFake(model) as fake:
        path = server.write_notebook("claude_cells.ipynb", cells(claude, claude_env(home, fake.url), home))
        open_notebook(page, server, path)
        start_cell(page, 0)
        expect(output_area(page, 0)).to_contain_text("READY", timeout=TIMEOUT)
        before = page_cells(page)
        setup, x, y, z, prompt = (c["id"] for c in before)
        start_cell(page, 4)

        insert = card(page, 0)
        expect(insert.locator(".nbacp-diff-add .nbacp-diff-text")).to_have_text([INSERTED])
        insert.get_by_role("button", name="Accept", exact=True).click()

        replace = card(page, 1)
        expect(replace.locator("textarea")).to_have_value(PROPOSED)
        replace.locator("textarea").fill(EDITED)
        replace.get_by_role("button", name="Accept", exact=True).click()

        delete = card(page, 2)
        expect(delete.locator("del.nbacp-diff-text")).to_have_text("z = 3")
        delete.get_by_role("button", name="Reject", exact=True).click()

        done = page.locator(".jp-Notebook .jp-OutputArea-output", has_text="DONE end_turn")
        expect(done).to_have_count(1, timeout=TIMEOUT)
        after = page_cells(page)
        insert_result = fake.result_for("toolu_insert")
        replace_result = fake.result_for("toolu_replace")
        delete_result = fake.result_for("toolu_delete")

    assert model.path == path and model.prompt_cell == prompt
    assert [(c["id"], c["source"]) for c in after if c["id"] not in (setup, prompt)] == [
        (x, "x = 1"),
        (after[2]["id"], INSERTED),
        (y, EDITED),
        (z, "z = 3"),
    ]
    assert [c["id"] for c in after] == [setup, x, after[2]["id"], y, z, prompt]
    new_id = after[2]["id"]
    assert new_id not in {c["id"] for c in before} and after[2]["cell_type"] == "code"
    assert insert_result == f"Accepted as cell {new_id} after cell {x}."
    assert replace_result == f"Accepted as cell {y}. The person edited it; the cell's source is now:\n{EDITED}"
    assert delete_result == "Rejected by the person; nothing was changed."
    record = page.locator(".jp-Notebook .nbacp-record")  # the turn's record replaced its view
    expect(record).to_have_count(1)
    for line in (  # the person's names: place and first line (x, y, z never ran: no count)
        f"Accepted as cell 3 `{INSERTED}` after cell 2 `x = 1`.",
        f"Accepted (edited by the person) as cell 4 `{EDITED}`.",
        "Rejected by the person; nothing was changed.",
    ):
        expect(record).to_contain_text(line)
