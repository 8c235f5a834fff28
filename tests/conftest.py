"""Fixtures shared by more than one folder. Keep this small: a fixture one file uses lives in it.

``tests/`` is on ``sys.path`` (pyproject's ``pythonpath``), so every folder imports the helpers
as ``from support.<module> import ...`` (tests/support/__init__.py).
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Literal

import hypothesis  # noqa: F401  (see below)
import pytest
from support import kernel_matrix
from support.comm_support import RecordingComms
from support.kernel_support import KernelHarness, start_kernel
from support.loopback import settle
from support.sdk_line import HAS_ACP_KIT, HAS_ACPREMOTE, NO_ACP_KIT, NO_ACPREMOTE, SDK1

# CPython 3.11.7 can raise "SystemError: AST constructor recursion depth mismatch" from
# ast.parse after some asyncio/websocket tests (CPython gh-106905; reported fixed in 3.11.8). pytest
# parses (assertion-rewrites) a plugin's modules when they are first imported; hypothesis's
# plugin imports hypothesis lazily in its terminal summary, after the tests, so a single-file
# run could crash there. Importing it at collection keeps every parse before the tests.

_NEEDS = re.compile(r"^(?:from|import) (pydantic_acp|acpremote|nbacp\.demo)\b", re.M)


class _SkippedModule(pytest.Module):
    """A test module that imports what this SDK line cannot install: reported as skipped, with why."""

    reason = ""

    def collect(self) -> Any:
        pytest.skip(self.reason, allow_module_level=True)


def pytest_pycollect_makemodule(module_path: Path, parent: Any) -> Any:
    """On SDK 1.x, modules importing ACP Kit, acpremote or the demo (built on ACP Kit) skip whole
    (support/sdk_line.py); modules that only use them in some tests skip those tests instead."""
    if HAS_ACP_KIT and HAS_ACPREMOTE:
        return None
    found = set(_NEEDS.findall(module_path.read_text(encoding="utf-8")))
    missing = [
        reason
        for name, ok, reason in (
            ("pydantic_acp", HAS_ACP_KIT, NO_ACP_KIT),
            ("nbacp.demo", HAS_ACP_KIT, NO_ACP_KIT),
            ("acpremote", HAS_ACPREMOTE, NO_ACPREMOTE),
        )
        if name in found and not ok
    ]
    if not missing:
        return None
    module = _SkippedModule.from_parent(parent, path=module_path)
    module.reason = missing[0]
    return module


@pytest.fixture
def comms(monkeypatch: pytest.MonkeyPatch) -> RecordingComms:
    """Widgets created in the test get recording comms, so the test sends what the browser would."""
    return RecordingComms.install(monkeypatch)


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[KernelHarness]:
    """A fresh real ipykernel (this venv) in a temp cwd; see tests/support/kernel_support.py."""
    with start_kernel(tmp_path) as harness:
        yield harness


@pytest.fixture(params=["signal", "message"])
def interrupt_mode(request: pytest.FixtureRequest) -> Literal["signal", "message"]:
    """Both ways a front end stops a cell: SIGINT to the kernel's process group, or an interrupt_request."""
    mode: Literal["signal", "message"] = request.param
    return mode


@pytest.fixture
def any_mode_kernel(interrupt_mode: Literal["signal", "message"], tmp_path: Path) -> Iterator[KernelHarness]:
    """A fresh real ipykernel (this venv) for each interrupt mode."""
    with start_kernel(tmp_path, interrupt_mode=interrupt_mode) as harness:
        yield harness


@pytest.fixture(scope="session")
def kernel_envs() -> dict[str, Path]:
    """The kernel matrix's virtualenvs (tests/support/kernel_matrix.py), built once and cached."""
    if SDK1:  # those venvs resolve nbacp's default SDK line; this tier's kernels are its own venv's
        pytest.skip("the kernel matrix runs on SDK 0.12.1 (with ACP Kit); the SDK 1.x tier uses its own kernel")
    kernel_matrix.build_all()
    return {env.id: env.python for env in kernel_matrix.MATRIX}


@pytest.fixture(params=[env.id for env in kernel_matrix.MATRIX])
def matrix_kernel(
    request: pytest.FixtureRequest, tmp_path: Path, kernel_envs: dict[str, Path]
) -> Iterator[KernelHarness]:
    """A real kernel from each release of the matrix (ipykernel 6.17.1 + IPython 7.34 ... 7.4.0)."""
    with start_kernel(tmp_path, python=kernel_envs[request.param]) as harness:
        yield harness


@pytest.fixture(params=[kernel_matrix.MATRIX[0].id, kernel_matrix.MATRIX[-1].id])
def oldest_newest_kernel(
    request: pytest.FixtureRequest, tmp_path: Path, kernel_envs: dict[str, Path]
) -> Iterator[KernelHarness]:
    """A real kernel from the oldest (Colab's 6.17.1) and the newest release of the matrix."""
    with start_kernel(tmp_path, python=kernel_envs[request.param]) as harness:
        yield harness


@pytest.fixture
async def _finish_tasks() -> AsyncIterator[None]:
    """Let the tasks a test started finish before pytest-asyncio closes its loop.

    A task torn down with the loop (an SDK receive loop, a websocket handler) can leave
    CPython 3.11.7's AST recursion bookkeeping off for the rest of the run (see above).
    """
    before = asyncio.all_tasks()
    yield
    await settle(before)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Only async tests get it: an async fixture on a sync test would need a loop, and the
    # browser tier's sync Playwright keeps one marked as running in the main thread.
    for item in items:
        if inspect.iscoroutinefunction(getattr(item, "function", None)):
            item.fixturenames.append("_finish_tasks")  # type: ignore[attr-defined]
