"""Virtualenvs with the ipykernel releases people run, built once per clone and cached.

Each environment pins one kernel stack (Colab's ipykernel 6.17.1 + IPython 7.34 + ipywidgets
7.7.1 + jupyter_client 7.4.9, then 6.29.5, 7.0.1, 7.3.0, 7.4.0) and installs nbacp's runtime
dependencies plus what the kernel-side test peers import (pydantic-acp) in the same pip run,
so pip must keep the pinned kernel: if a dependency of nbacp needed a newer ipykernel, IPython
or tornado, the build fails here instead of silently testing something else. 6.29.5 and 7.4.0
also get the nest_asyncio each depends on (nest-asyncio, nest-asyncio2), named in the same pip
run and checked to import, for the tests of a kernel where another library applied it. nbacp itself is
put on the path with a ``.pth`` file (what an editable install does), so the JS is not rebuilt
five times.

Built in parallel (pip is mostly waiting on I/O), under ``.cache/kernels/`` (gitignored);
a stamp holding the requirement list makes a rebuild happen only when the pins or
pyproject's dependencies change. ``python -m support.kernel_matrix`` (from tests/) builds them ahead.
"""

from __future__ import annotations

import fcntl
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "kernels"
BUILD_TIMEOUT = 900.0


def find_python(version: str) -> str | None:
    """An interpreter of ``version`` already on this machine (PATH, or pyenv's versions); None if absent."""
    candidates = [
        shutil.which(f"python{version}"),
        *sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")), reverse=True),
    ]
    for candidate in candidates:
        if candidate and subprocess.run([candidate, "-c", "import venv, ssl"], capture_output=True).returncode == 0:
            return candidate
    return None


@dataclass(frozen=True)
class KernelEnv:
    """One kernel stack: a short id for test names, the pins that define it, and the Python
    it prefers (used when this machine has it, else the interpreter running the tests)."""

    id: str
    pins: tuple[str, ...]
    python_version: str | None = None
    # The nest_asyncio module this kernel ships (its own dependency): named in the pip run so it
    # is there, but left out of the stamp, since it changes nothing pip resolves.
    nest_asyncio: str | None = None

    @property
    def base_python(self) -> str:
        found = find_python(self.python_version) if self.python_version else None
        return os.path.realpath(found or sys.executable)  # one spelling, so the stamp is stable

    @property
    def path(self) -> Path:
        return CACHE / self.id

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"


MATRIX: tuple[KernelEnv, ...] = (
    # Colab's stack, on Python 3.12 like Colab where this machine has one (it warns that
    # upgrading ipykernel or tornado can crash its runtime).
    KernelEnv(
        "ipykernel-6.17",
        (
            "ipykernel==6.17.1",
            "ipython==7.34.0",
            "ipywidgets==7.7.1",
            "jupyter_client==7.4.9",
            "tornado==6.4.2",
            "anywidget==0.9.21",
        ),
        "3.12",
    ),
    KernelEnv("ipykernel-6.29", ("ipykernel==6.29.5",), nest_asyncio="nest_asyncio"),
    KernelEnv("ipykernel-7.0", ("ipykernel==7.0.1",)),
    KernelEnv("ipykernel-7.3", ("ipykernel==7.3.0",)),
    KernelEnv("ipykernel-7.4", ("ipykernel==7.4.0",), nest_asyncio="nest_asyncio2"),
)


def runtime_requirements() -> list[str]:
    """nbacp's own dependencies (pyproject), plus the agent library the test peers import."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    demo = [r for r in project["optional-dependencies"]["demo"] if r.startswith("pydantic-acp")]
    return list(project["dependencies"]) + demo


def requirements(env: KernelEnv) -> list[str]:
    return [*env.pins, *runtime_requirements()]


def _stamp(env: KernelEnv) -> str:
    text = json.dumps({"python": env.base_python, "requirements": requirements(env)})
    return hashlib.sha256(text.encode()).hexdigest()


def is_ready(env: KernelEnv) -> bool:
    stamp = env.path / ".nbacp-stamp"
    return env.python.exists() and stamp.exists() and stamp.read_text() == _stamp(env)


def build(env: KernelEnv) -> float:
    """Create (or reuse) ``env``; returns the seconds spent. Raises with pip's output on failure.

    A lock file per environment makes a second builder (another pytest, ``python -m
    kernel_matrix``) wait for the first instead of building over it.
    """
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{env.id}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_locked(env)


def _build_locked(env: KernelEnv) -> float:
    if is_ready(env):
        return 0.0
    started = time.monotonic()
    if env.path.exists():
        shutil.rmtree(env.path)
    env.path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [env.base_python, "-m", "venv", str(env.path)], check=True, capture_output=True, timeout=BUILD_TIMEOUT
    )
    nest = [env.nest_asyncio] if env.nest_asyncio else []
    cmd = [str(env.python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements(env), *nest]
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT, env={**os.environ, "PIP_NO_INPUT": "1"}
    )
    if done.returncode != 0:
        raise RuntimeError(f"building {env.id} failed:\n$ {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    site = subprocess.run(
        [str(env.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site) / "nbacp-dev.pth").write_text(str(ROOT) + "\n")
    check = subprocess.run(
        [str(env.python), "-c", f"import {', '.join(['nbacp', 'ipykernel', *nest])}; print(ipykernel.__version__)"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    wanted = next(p.split("==")[1] for p in env.pins if p.startswith("ipykernel=="))
    if check.returncode != 0 or check.stdout.strip() != wanted:
        raise RuntimeError(f"{env.id}: expected ipykernel {wanted}, got {check.stdout!r} {check.stderr}")
    (env.path / ".nbacp-stamp").write_text(_stamp(env))
    return time.monotonic() - started


def build_all(envs: tuple[KernelEnv, ...] = MATRIX) -> dict[str, float]:
    """Build every missing environment, in parallel; returns seconds per environment."""
    with ThreadPoolExecutor(max_workers=len(envs)) as pool:
        return dict(zip([e.id for e in envs], pool.map(build, envs), strict=True))


if __name__ == "__main__":
    began = time.monotonic()
    for name, seconds in build_all().items():
        print(f"{name}: {seconds:.1f} s")
    print(f"all: {time.monotonic() - began:.1f} s")
