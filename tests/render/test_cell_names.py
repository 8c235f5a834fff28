"""A cell named for the person: place, execution count, first line (nbacp/render/cell_names.py)."""

from __future__ import annotations

from nbacp.render.cell_names import FIRST_LINE, CellName, first_line


def test_the_first_line_that_holds_anything_stripped() -> None:
    assert first_line("\n   \n    df.head()  \nmore") == "df.head()"
    assert first_line("") == first_line(" \n\t\n") == ""


def test_a_long_first_line_is_cut_with_an_ellipsis() -> None:
    line = first_line("x" * (FIRST_LINE + 1))
    assert line == "x" * FIRST_LINE + "…"
    assert first_line("y" * FIRST_LINE) == "y" * FIRST_LINE


def test_the_name_with_and_without_a_count_and_a_line() -> None:
    assert str(CellName.of(4, 5, "df.head()")) == "cell 4 [5] `df.head()`"
    assert str(CellName.of(1, None, "# Title\ntext")) == "cell 1 `# Title`"
    assert str(CellName.of(7, 0, "")) == "cell 7 [0] (empty)"
    assert CellName.of(4, 5, "x").label == "cell 4 [5]"
