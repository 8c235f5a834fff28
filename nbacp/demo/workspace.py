"""The example notebooks, and a person's scratch copies of them: they run and save there, not in the originals.

``python -m nbacp.demo notebooks [DIR]`` copies every example notebook into DIR (default
``./nbacp-examples``) with its outputs cleared, so the person sees only what their own runs
produce (the originals keep the outputs ``make test-notebooks`` compares against). marimo's
example (``marimo_*.py``, docs/marimo.md) is copied as it is: a marimo notebook keeps no
outputs in its file. A copy that
already exists is the person's and is never overwritten; examples added later are copied on
the next run. ``python -m nbacp.demo lab [DIR]`` does the same, then starts JupyterLab on the
quickstart in DIR (``make demo`` runs it with ``workspace``).

The examples ship in the wheel as ``nbacp/demo/examples/`` (pyproject's wheel ``sources``); a
clone has them in ``notebooks/`` instead.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

DEFAULT_DIR = Path("nbacp-examples")
FIRST_NOTEBOOK = "quickstart.ipynb"
MARIMO_NOTEBOOKS = "marimo_*.py"  # the marimo examples (no outputs to clear)
_HERE = Path(__file__).resolve().parent


def examples() -> Path:
    """The folder holding the example notebooks: the installed package's, else the clone's."""
    for folder in (_HERE / "examples", _HERE.parents[1] / "notebooks"):
        if (folder / FIRST_NOTEBOOK).is_file():
            return folder
    raise FileNotFoundError(f"no example notebooks next to {_HERE}: reinstall nbacp")


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
    for original in sorted([*source.glob("*.ipynb"), *source.glob(MARIMO_NOTEBOOKS)]):
        copy = target / original.name
        if copy.exists():
            kept.append(copy)
            continue
        try:
            with copy.open("x", encoding="utf-8") as out:  # "x": never replace a file that appeared meanwhile
                if original.suffix == ".py":
                    out.write(original.read_text(encoding="utf-8"))
                else:
                    notebook = blank(nbformat.read(original, as_version=4))  # type: ignore[no-untyped-call]
                    nbformat.write(notebook, out)  # type: ignore[no-untyped-call]
        except FileExistsError:
            kept.append(copy)
            continue
        copied.append(copy)
    return copied, kept


def copy_examples(target: Path, source: Path | None = None) -> bool:
    """Copy the examples into TARGET and say what happened; False (said on stderr) if there were none."""
    source = examples() if source is None else source
    copied, kept = prepare(source, target)
    if copied:
        print(f"Copied to {target}/ (outputs cleared): {', '.join(p.name for p in copied)}", flush=True)
    if kept:
        print(f"Kept your copies in {target}/: {', '.join(p.name for p in kept)}", flush=True)
    if not copied and not kept:
        print(f"No notebooks in {source}/.", file=sys.stderr)
        return False
    return True


def lab_command(folder: Path, port: int, *, as_root: bool) -> list[str]:
    """JupyterLab serving FOLDER alone on loopback, opened on the quickstart.

    ``--allow-root`` only for root (JupyterLab refuses root without it; nobody else needs it).
    """
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--ServerApp.root_dir={folder}",
        f"--LabApp.default_url=/lab/tree/{FIRST_NOTEBOOK}",
    ]
    return [*command, "--allow-root"] if as_root else command


def lab_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The server's environment without NBACP_ANSWERS: in the demo every card waits for the person."""
    return {k: v for k, v in environ.items() if k != "NBACP_ANSWERS"}


def run_lab(folder: Path, port: int) -> None:
    """Replace this process with JupyterLab (Ctrl-C then reaches it as in a terminal); never returns."""
    command = lab_command(folder, port, as_root=os.geteuid() == 0)
    print("Starting:", shlex.join(command), flush=True)
    os.execve(command[0], command, lab_environment(os.environ))
