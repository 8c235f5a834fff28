"""The demo agent's "cell" scenario: it reads the notebook and proposes a cell the person reviews.

The real demo agent (pydantic-acp, deterministic model) over the kernel tools' HTTP server; the
notebook is ``MemoryNotebook`` (tests/support/memory_notebook.py says why a stand-in).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support.memory_notebook import MemoryNotebook, cell

import nbacp
from nbacp.answers import Script
from nbacp.demo import demo_agent
from nbacp.demo.cell import NO_NOTEBOOK_TOOLS

pytest.importorskip("mcp")
pd = pytest.importorskip("pandas")


def book() -> MemoryNotebook:
    return MemoryNotebook(
        "demo.ipynb", [cell("setup", "import pandas"), cell("ask", "await session.prompt('cell')")], "ask"
    )


async def turn(notebook: MemoryNotebook | None, answers: Any, namespace: dict[str, Any]) -> Any:
    async with asyncio.timeout(60), nbacp.connect(demo_agent(), answers=answers) as conn:
        session = await conn.new_session(tools=nbacp.kernel_tools(namespace=namespace, notebook=notebook))
        return await session.prompt("cell")


async def test_the_accepted_cell_is_in_the_notebook_and_the_agent_says_so() -> None:
    notebook = book()
    result = await turn(
        notebook, Script([{"expect": "review", "review": "accept"}]), {"sales": pd.DataFrame({"a": [1]})}
    )
    source = "# proposed by the nbacp demo agent\nsales.describe()"
    assert notebook.sources()[2] == ("new-1", source)
    assert result.text.endswith(
        f"I proposed a new cell after cell ask:\n{source}\n\nWhat happened: Accepted as cell new-1 after cell ask."
    )


async def test_a_rejected_cell_is_reported_as_rejected() -> None:
    notebook = book()
    result = await turn(notebook, Script([{"review": "reject"}]), {})
    assert len(notebook.cells) == 2
    assert result.text.endswith("What happened: Rejected by the person; nothing was changed.")


async def test_without_notebook_tools_it_says_how_to_get_them() -> None:
    result = await turn(None, None, {})
    assert result.text.endswith(NO_NOTEBOOK_TOOLS)


async def test_when_the_notebook_cannot_be_read_it_still_proposes_a_cell() -> None:
    from support.memory_notebook import NotebookGone

    from nbacp.kernel.notebook_edits import EditResult

    class NoPage(MemoryNotebook):
        async def read(self) -> Any:
            raise NotebookGone("no page answered.")

        async def apply(self, edit: Any) -> Any:
            self.applied.append(edit)
            return EditResult("not_applied", None, None, "queued below the prompt cell; it cannot be read back")

    notebook = NoPage("demo.ipynb", [], None, live=False, why_not_live="no page answered")
    result = await turn(notebook, Script([{"review": "accept"}]), {})
    hello = "# proposed by the nbacp demo agent\nprint('Hello from the demo agent')"
    assert [e.source for e in notebook.applied] == [hello]
    assert "I could not read your notebook (The notebook cannot be reached: no page answered." in result.text
    assert result.text.endswith("What happened: Not applied: queued below the prompt cell; it cannot be read back.")
