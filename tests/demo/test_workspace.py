"""``python -m nbacp.demo notebooks|lab``: the example notebooks copied for a person, then JupyterLab on them.

The copies run through the real command-line entry point on the real notebooks; only the last
step of ``lab``, replacing the process with JupyterLab, is captured (``make demo`` runs the real
server in tests/test_first_run.py, and the pip tier runs ``notebooks`` from an installed wheel).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
import pytest

from nbacp.demo.__main__ import main
from nbacp.demo.workspace import examples, lab_command, lab_environment

REPO = Path(__file__).resolve().parents[2]


def code_cells(path: Path) -> list[nbformat.NotebookNode]:
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def test_a_clone_reads_the_examples_from_notebooks() -> None:
    assert examples() == REPO / "notebooks"


def test_notebooks_copies_every_example_cleared_into_the_default_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["notebooks"]) == 0
    copies = sorted(p.name for p in (tmp_path / "nbacp-examples").glob("*.ipynb"))
    assert copies == sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb")) and "quickstart.ipynb" in copies
    assert any(c.outputs for c in code_cells(REPO / "notebooks" / "quickstart.ipynb"))  # the originals have outputs
    for name in copies:
        cells = code_cells(tmp_path / "nbacp-examples" / name)
        assert cells and all(c.outputs == [] and c.execution_count is None for c in cells), name
    assert capsys.readouterr().out.startswith("Copied to nbacp-examples/ (outputs cleared): ")


def test_notebooks_copies_the_marimo_example_as_it_is(tmp_path: Path) -> None:
    """A marimo notebook is a .py file with no outputs: copied byte for byte, and only marimo_*.py
    (notebooks/ holds no other Python a person would open)."""
    assert main(["notebooks", str(tmp_path / "ex")]) == 0
    copied = sorted(p.name for p in (tmp_path / "ex").glob("*.py"))
    assert copied == ["marimo_quickstart.py"]
    original = REPO / "notebooks" / "marimo_quickstart.py"
    assert (tmp_path / "ex" / "marimo_quickstart.py").read_bytes() == original.read_bytes()
    (tmp_path / "ex" / "marimo_quickstart.py").write_text("# mine\n")
    assert main(["notebooks", str(tmp_path / "ex")]) == 0
    assert (tmp_path / "ex" / "marimo_quickstart.py").read_text() == "# mine\n"


def test_notebooks_never_overwrites_a_persons_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "mine"
    assert main(["notebooks", str(folder)]) == 0
    mine = folder / "quickstart.ipynb"
    mine.write_text(mine.read_text().replace("nbacp quickstart", "my own quickstart"))
    (folder / "remote.ipynb").unlink()
    capsys.readouterr()
    assert main(["notebooks", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "my own quickstart" in mine.read_text()
    assert f"Copied to {folder}/ (outputs cleared): remote.ipynb\n" in out
    assert f"Kept your copies in {folder}/: " in out and "quickstart.ipynb" in out


def test_lab_copies_then_replaces_itself_with_jupyterlab_on_the_quickstart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    started: list[tuple[str, list[str], dict[str, str]]] = []
    monkeypatch.setattr(os, "execve", lambda path, argv, env: started.append((path, argv, env)))
    monkeypatch.setenv("NBACP_ANSWERS", "decline")
    folder = tmp_path / "lab"
    assert main(["lab", str(folder), "--port", "8899"]) == 0
    assert (folder / "quickstart.ipynb").is_file()
    [(path, argv, env)] = started
    assert path == sys.executable and argv == lab_command(folder, 8899, as_root=os.geteuid() == 0)
    assert "NBACP_ANSWERS" not in env and env["PATH"] == os.environ["PATH"]
    assert f"Starting: {sys.executable} -m jupyterlab --ip=127.0.0.1 --port=8899 " in capsys.readouterr().out


def test_lab_command_serves_the_folder_on_loopback_and_allows_root_only_for_root(tmp_path: Path) -> None:
    command = lab_command(tmp_path, 8888, as_root=False)
    assert command == [
        sys.executable,
        "-m",
        "jupyterlab",
        "--ip=127.0.0.1",
        "--port=8888",
        f"--ServerApp.root_dir={tmp_path}",
        "--LabApp.default_url=/lab/tree/quickstart.ipynb",
    ]
    assert lab_command(tmp_path, 8888, as_root=True) == [*command, "--allow-root"]
    assert lab_environment({"NBACP_ANSWERS": "x", "HOME": "/h"}) == {"HOME": "/h"}
