"""Shared fixtures. Keep this small: tier-specific fixtures live next to their tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kernel_support import KernelHarness, start_kernel


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[KernelHarness]:
    """A fresh real ipykernel (this venv) in a temp cwd; see tests/kernel_support.py."""
    with start_kernel(tmp_path) as harness:
        yield harness
