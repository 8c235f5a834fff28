"""The demo's scratch copies of the example notebooks: a person runs and saves there, not in the originals.

``python -m nbacp.demo.workspace SOURCE TARGET`` (``make demo-setup``) copies every notebook of
SOURCE into TARGET with its outputs cleared, so the person sees only what their own runs produce
(the originals keep the outputs ``make test-notebooks`` compares against). A copy that already
exists is the person's and is never overwritten; notebooks added to SOURCE later are copied on
the next run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def blank(notebook: Any) -> Any:
    """The notebook as nobody has run it yet: no outputs, counts or saved widget state."""
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
    notebook.metadata.pop("widgets", None)
    return notebook


def prepare(source: Path, target: Path) -> tuple[list[Path], list[Path]]:
    """Copy SOURCE's notebooks into TARGET; returns (copied, kept: already there, left alone)."""
    import nbformat

    target.mkdir(parents=True, exist_ok=True)
    copied: list[Path] = []
    kept: list[Path] = []
    for original in sorted(source.glob("*.ipynb")):
        copy = target / original.name
        if copy.exists():
            kept.append(copy)
            continue
        notebook = blank(nbformat.read(original, as_version=4))  # type: ignore[no-untyped-call]
        try:
            with copy.open("x", encoding="utf-8") as out:  # "x": never replace a file that appeared meanwhile
                nbformat.write(notebook, out)  # type: ignore[no-untyped-call]
        except FileExistsError:
            kept.append(copy)
            continue
        copied.append(copy)
    return copied, kept


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nbacp.demo.workspace", description="Copy the example notebooks into a scratch folder."
    )
    parser.add_argument("source", type=Path, help="the folder holding the example notebooks")
    parser.add_argument("target", type=Path, help="the scratch folder (created when missing)")
    args = parser.parse_args(argv)
    if not args.source.is_dir():
        print(f"{args.source} is not a folder.", file=sys.stderr)
        return 2
    copied, kept = prepare(args.source, args.target)
    if copied:
        print(f"Copied to {args.target}/ (outputs cleared): {', '.join(p.name for p in copied)}")
    if kept:
        print(f"Kept your copies in {args.target}/: {', '.join(p.name for p in kept)}")
    if not copied and not kept:
        print(f"No notebooks in {args.source}/.", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
