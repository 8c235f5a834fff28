"""``%load_ext nbacp`` and ``%%agent`` / ``%agent``: the expansion rules (pure) and a real kernel.

In the kernel the cells are the ones a person types; the demo agent runs in that kernel, and
what it received is read back from the session's turn (its attachments and record).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from support.kernel_support import KernelHarness

from nbacp.errors import MagicError
from nbacp.magics import _rewrite, expand

pd = pytest.importorskip("pandas")


def test_expand_formats_values_and_attaches_objects(tmp_path: Path) -> None:
    df = pd.DataFrame({"a": [1]})
    ns: dict[str, Any] = {"df": df, "n": 41, "p": tmp_path, "d": {"k": 1}}
    text, objects = expand("Why {df} has {n + 1} rows? {{literal}} {d['k']} {p}", ns)
    assert text == "Why df has 42 rows? {literal} 1 p"
    assert objects == [df, tmp_path]
    with pytest.raises(MagicError, match=r"\{missing\} failed: NameError"):
        expand("{missing}", ns)
    with pytest.raises(MagicError, match="Unclosed"):
        expand("{n", ns)
    with pytest.raises(MagicError, match="Single '}'"):
        expand("n}", ns)
    assert expand("{'}' + str(n)}", ns)[0] == "}41"


def test_rewrite_turns_cells_into_awaited_calls() -> None:
    cell = _rewrite(["%%agent other\n", "Why {df}?\n"])
    assert cell == ["await __import__('nbacp.magics').magics.agent_prompt(' other', 'Why {df}?\\n')\n"]
    lines = _rewrite(["x = 1\n", "%agent look at {x}\n", "  %agent indented stays\n"])
    assert lines[1] == "await __import__('nbacp.magics').magics.agent_prompt('', 'look at {x}')\n"
    assert lines[0] == "x = 1\n" and lines[2] == "  %agent indented stays\n"


SETUP = textwrap.dedent("""
    import nbacp, pandas as pd
    from nbacp.demo import demo_agent
    %load_ext nbacp
    conn = await nbacp.connect(demo_agent())
    session = await conn.new_session('.')
    sales = pd.DataFrame({'region': ['n', None], 'amount': [1.0, None]})
""")


@pytest.mark.kernel
def test_agent_cell_magic_awaits_the_turn_in_a_real_kernel(kernel: KernelHarness) -> None:
    kernel.run(SETUP, timeout=60)
    cell = kernel.execute("%%agent\nWhy are {sales} nulls {1 + 1}?")
    kernel.wait_idle(cell, timeout=60)
    assert kernel.error(cell) is None, kernel.error(cell)
    out = kernel.run(
        "t = session.turn\n"
        "print(t.done, repr(t.text))\n"
        "print([(a.name, a.kind) for a in t.attachments])\n"
        "print(t.record.text.splitlines()[2])"
    )
    done, attached, line = out.splitlines()
    assert done == "True 'Why are sales nulls 2?'"
    assert attached == "[('prompt', 'prompt'), ('sales', 'table')]"
    assert line.startswith("Attached: sales (table, 2 rows x 2 columns, ") and line.endswith(" B)")
    # the record (a plain display_data of the prompting cell) keeps the attachment line
    records = [m["content"]["data"].get("text/plain", "") for m in kernel.messages(cell, "display_data")]
    assert any("Attached: sales (table, 2 rows x 2 columns" in r for r in records), records


@pytest.mark.kernel
def test_line_magic_named_session_and_errors(kernel: KernelHarness) -> None:
    kernel.run(SETUP + "other = await conn.new_session('.')\n", timeout=60)
    cell = kernel.execute("%agent hello {sales}")
    kernel.wait_idle(cell, timeout=60)
    assert kernel.error(cell) is None, kernel.error(cell)
    out = kernel.run("print(other.turn.text, [a.name for a in other.turn.attachments], session.turn)")
    assert out == "hello sales ['prompt', 'sales'] None\n"  # the last session created was `other`
    named = kernel.execute("%%agent session\nhi")
    kernel.wait_idle(named, timeout=60)
    assert kernel.error(named) is None and kernel.run("print(session.turn.text)") == "hi\n"
    bad = kernel.execute("%%agent nosuch\nhi")
    kernel.wait_idle(bad)
    # IPython shows a UsageError as one stderr line, without a traceback
    assert "UsageError: No variable named 'nosuch'" in kernel.stream_text(bad, "stderr")
    assert "Traceback" not in kernel.stream_text(bad, "stderr") and kernel.error(bad) is None


@pytest.mark.kernel
def test_direct_magic_call_falls_back_to_start(kernel: KernelHarness) -> None:
    kernel.run(SETUP, timeout=60)
    kernel.run("turn = get_ipython().run_cell_magic('agent', '', 'hello {sales}')")
    out = kernel.run("result = await turn\nprint(type(turn).__name__, result.stop_reason, turn.text)", timeout=60)
    assert out == "Turn end_turn hello sales\n"


@pytest.mark.kernel
def test_explore_in_a_real_kernel_reads_and_runs_in_user_ns(kernel: KernelHarness) -> None:
    kernel.run(
        textwrap.dedent("""
        import nbacp, pandas as pd
        from nbacp.answers import Script
        from nbacp.demo import demo_agent
        %load_ext nbacp
        answers = Script([{"expect": "form", "pick": {"choice": "sales"}},
                          {"expect": "permission", "choose": "allow_once"}])
        conn = await nbacp.connect(demo_agent(), answers=answers)
        session = await conn.new_session('.', tools=nbacp.kernel_tools())
        sales = pd.DataFrame({'region': ['n', None], 'amount': [1.0, None]})
    """),
        timeout=60,
    )
    cell = kernel.execute("%%agent\nexplore")
    kernel.wait_idle(cell, timeout=60)
    assert kernel.error(cell) is None, kernel.error(cell)
    out = kernel.run("r = await session.turn\nprint(r.text)\nprint(session.tools.runs)")
    assert "sales: pandas.DataFrame (2, 2)" in out and "answers: nbacp.Script" in out
    assert "region    1\namount    1" in out
    assert "[('sales.isna().sum()', 'allowed')]" in out


def test_rewrite_uses_start_where_cells_cannot_await(monkeypatch: pytest.MonkeyPatch) -> None:
    import nbacp.kernel

    monkeypatch.setattr(nbacp.kernel, "can_await_widgets", lambda: False)
    assert _rewrite(["%%agent\n", "hi\n"]) == ["__import__('nbacp.magics').magics.agent_start('', 'hi\\n');\n"]
    assert _rewrite(["%agent hi\n"]) == ["__import__('nbacp.magics').magics.agent_start('', 'hi');\n"]
