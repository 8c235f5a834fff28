"""What the code cites exists in the repository: no issue numbers, no private notes, no missing pages.

A reader of ``nbacp/`` has the repository and nothing else, so a comment that points at an issue
number or at "the field notes" points nowhere. The measured facts live under ``docs/``; a pointer
such as ``(docs/kernels.md, 'Held edits')`` must name a page that exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "nbacp"
SUFFIXES = (".py", ".pyi", ".md")

ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
NOTES = re.compile(r"field[ -]notes|seed note", re.IGNORECASE)
DOC_PAGE = re.compile(r"docs/([\w./-]+?\.md)")
SECTION = re.compile(r"docs/([\w./-]+?\.md), '([^']+)'")
HEADING = re.compile(r"^#+\s+(.*?)\s*$", re.MULTILINE)


def sources() -> list[Path]:
    """Every source under ``nbacp/``; the JS bundles under ``static/`` are build output (from ``js/``)."""
    return sorted(p for p in PACKAGE.rglob("*") if p.is_file() and p.suffix in SUFFIXES and "static" not in p.parts)


def problems(text: str, docs: Path) -> list[str]:
    """What is wrong with the citations in one source's text."""
    found: list[str] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for match in ISSUE.finditer(line):
            found.append(f"{lineno}: cites an issue number: {match.group(0)!r}")
        for match in NOTES.finditer(line):
            found.append(f"{lineno}: cites notes outside the repository: {match.group(0)!r}")
        for match in DOC_PAGE.finditer(line):
            if not (docs / match.group(1)).is_file():
                found.append(f"{lineno}: cites docs/{match.group(1)}, which does not exist")
        for match in SECTION.finditer(line):
            page = docs / match.group(1)
            if page.is_file() and match.group(2) not in HEADING.findall(page.read_text(encoding="utf-8")):
                found.append(f"{lineno}: docs/{match.group(1)} has no section {match.group(2)!r}")
    return found


def test_the_package_has_sources() -> None:
    """The scan below would pass vacuously on an empty list."""
    assert len(sources()) > 20


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_citations_exist(path: Path) -> None:
    """No issue numbers, no field notes, and every cited ``docs/`` page (and section) exists."""
    assert problems(path.read_text(encoding="utf-8", errors="replace"), ROOT / "docs") == []


def test_the_checker_catches_each_kind(tmp_path: Path) -> None:
    """Each rule fires on a bad citation and stays quiet on a good one."""
    (tmp_path / "kernels.md").write_text("# Kernels\n\n## Held edits\n", encoding="utf-8")
    bad = "see issue 13\nas the field notes say\n(docs/nowhere.md)\n(docs/kernels.md, 'No such section')\n"
    assert len(problems(bad, tmp_path)) == 4
    assert problems("(docs/kernels.md, 'Held edits') and ipykernel#1554\n", tmp_path) == []
