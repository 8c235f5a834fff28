"""Every benchmark module imports: a moved nbacp module breaks the unit tier, not only ``make bench``.

The benchmarks run last in CI (``bench-quick``) and nothing else imports them, so an import
left behind by a refactor would otherwise show after every other tier has run.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.parametrize("name", sorted(p.stem for p in BENCHMARKS.glob("*.py") if p.stem != "__init__"))
def test_the_benchmark_module_imports(name: str) -> None:
    importlib.import_module(f"benchmarks.{name}")
