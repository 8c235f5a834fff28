"""marimo's command line for the tests: where it is, and a private HOME for each run.

marimo reads and writes its user config and caches under HOME and the XDG folders (and a
.marimo.toml found walking up from its working directory): every test run gets its own, so
nothing touches the person's. The ``marimo`` extra is part of ``test``, so a missing marimo
fails a test, except on the test-sdk1 tier, which installs only ``test-core``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.sdk_line import SDK1

MARIMO = Path(sys.executable).parent / "marimo"
REPO = Path(__file__).resolve().parents[2]


def require_marimo() -> None:
    """Fail (skip on the test-sdk1 tier) where marimo is not installed beside this Python."""
    if MARIMO.is_file():
        return
    import pytest

    if SDK1:
        pytest.skip("the test-sdk1 tier installs no marimo (test-core only)")
    pytest.fail(f"marimo is not installed beside {sys.executable}: `pip install -e .[test]` (the marimo extra)")


def private_env(home: Path) -> dict[str, str]:
    """This process's environment with HOME and the XDG folders inside ``home`` (made here), no
    NBACP_ANSWERS (pass it on purpose), and this checkout first on PYTHONPATH (for marimo's kernel)."""
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "NBACP_ANSWERS"}
    env["HOME"] = str(home)
    for name, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
    ):
        env[name] = str(home / sub)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")]))
    return env


def export_html(
    notebook: Path, out: Path, *, timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``marimo export html NOTEBOOK -o OUT``: every cell run in a real marimo kernel, in the
    notebook's folder (marimo writes its session cache beside the notebook) with a private HOME
    there (``env`` added), its output captured; fails the test where marimo is missing."""
    require_marimo()
    return subprocess.run(
        [str(MARIMO), "export", "html", str(notebook), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=private_env(notebook.parent / "home") | (env or {}),
        cwd=notebook.parent,
    )
