"""The virtualenv of the SDK 1.x tier (``make test-sdk1``): nbacp on the newest 1.x ACP Python SDK.

``SDK1`` pins that release here and nowhere else (docs/protocol.md, 'Two SDK lines'). The venv
gets nbacp's runtime dependencies and the ``tools`` and ``test-core`` extras from pyproject,
with the SDK requirement replaced by the pin, in one pip run (so pip must keep the pin: a
dependency that needed SDK 0.12 fails the build here). No ACP Kit, no acpremote: neither has
a release for 1.x. nbacp itself is installed editable without its dependencies and without
rebuilding the JS (``SKIP_JUPYTER_BUILDER``: ``make setup`` built it), so its metadata is there.
Built once under ``.cache/sdk1`` and rebuilt when the pin or pyproject's requirements change.
``python -m support.sdk1_env`` (from tests/) builds it and prints the seconds spent.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

SDK1 = "agent-client-protocol==1.0.0rc3"
ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("NBACP_SDK1_VENV") or ROOT / ".cache" / "sdk1")  # elsewhere: a second clone's copy
PYTHON = VENV / "bin" / "python"
TIMEOUT = 900.0
TOOLS = ("pytest-timeout>=2.3,<3",)  # one hung test must fail the tier, not stall CI


def requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = [*project["dependencies"], *extras["tools"], *extras["test-core"]]
    reqs = [r for r in wanted if not r.startswith(("agent-client-protocol", "nbacp["))]
    return [SDK1, *reqs, *TOOLS]


def _stamp() -> str:
    text = json.dumps({"python": sys.version, "root": str(ROOT), "requirements": requirements()})
    return hashlib.sha256(text.encode()).hexdigest()


def build() -> float:
    """Create (or reuse) the venv; returns the seconds spent. Raises with pip's output on failure."""
    stamp = VENV / ".nbacp-stamp"
    if PYTHON.exists() and stamp.exists() and stamp.read_text() == _stamp():
        return 0.0
    started = time.monotonic()
    if VENV.exists():
        shutil.rmtree(VENV)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, capture_output=True, timeout=TIMEOUT)
    cmd = [str(PYTHON), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "PIP_NO_INPUT": "1"})
    if done.returncode != 0:
        raise RuntimeError(f"building {VENV} failed:\n$ {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    cmd = [str(PYTHON), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", "-e", str(ROOT)]
    done = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "PIP_NO_INPUT": "1", "SKIP_JUPYTER_BUILDER": "1"},
    )
    if done.returncode != 0:
        raise RuntimeError(f"installing nbacp into {VENV} failed:\n$ {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    check = subprocess.run(
        [
            str(PYTHON),
            "-c",
            "import nbacp, acp.schema, importlib.metadata as m; print(m.version('agent-client-protocol'))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if check.returncode != 0 or check.stdout.strip() != SDK1.split("==")[1]:
        raise RuntimeError(f"{VENV}: expected {SDK1}, got {check.stdout!r} {check.stderr}")
    stamp.write_text(_stamp())
    return time.monotonic() - started


if __name__ == "__main__":
    print(f"{VENV.name} ({SDK1}): {build():.1f} s")
