"""Cell edits in the turn record: each outcome line, its diff folded, within the record's bound."""

from __future__ import annotations

from typing import Any

import pytest

from nbacp.form.card_answer import CardAnswer
from nbacp.render.cells import diff_text
from nbacp.render.tool_call_lines import RECORD_BOUND
from nbacp.render.turn_record_html import record_html
from nbacp.render.turn_record_text import EDIT_DIFFS_BUDGET, MAX_EDIT_DIFF, record_markdown, record_text

RENDER: dict[str, Any] = {"text": record_text, "markdown": record_markdown, "html": record_html}


def edit(i: int, old: str, new: str, line: str) -> CardAnswer:
    value = {"outcome": "applied", "cell_id": f"c{i}", "edited": False, "diff": diff_text(old, new)}
    return CardAnswer("review", f"notebook_edit: replace cell c{i}", "accept", value, line=line)


def test_the_outcome_and_the_diff_folded() -> None:
    answers = [edit(1, "a = 1\nb = 2", "a = 1\nb = <3>", "Accepted as cell c1.")]
    text = record_text("p", "", answers, "end_turn")
    assert "Cell edit: notebook_edit: replace cell c1\n  Outcome: Accepted as cell c1.\n" in text
    assert "    - b = 2\n    + b = <3>" in text
    html = record_html("p", "", answers, "end_turn")
    assert "<details><summary>Diff</summary><pre>  a = 1\n- b = 2\n+ b = &lt;3&gt;</pre></details>" in html


def test_notebook_text_in_a_diff_is_not_obeyed() -> None:
    text = record_text("p", "", [edit(1, "", "x = 'abc\u202edef'", "Accepted as cell c1.")], "end_turn")
    assert "\u202e" not in text and "<U+202E>" in text


@pytest.mark.parametrize("form", ["text", "markdown", "html"])
def test_two_hundred_long_edits_stay_within_the_bound(form: str) -> None:
    old = "\n".join(f"value_{n} = compute({n})" for n in range(300))
    answers = [edit(i, old, old.replace("compute", "recompute"), f"Accepted as cell c{i}.") for i in range(200)]
    record = RENDER[form]("p", "done", answers, "end_turn")
    assert len(record.encode()) < RECORD_BOUND
    assert record.count("diff left out") == 200 - EDIT_DIFFS_BUDGET // (MAX_EDIT_DIFF + 30)
    assert "Accepted as cell c199" in record  # every outcome line stays
