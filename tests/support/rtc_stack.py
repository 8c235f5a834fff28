"""JupyterLab 4 with real-time collaboration (jupyter-collaboration), built once per clone.

The notebook edits (docs/notebook-edits.md) go through the notebook's shared model, which
jupyter-collaboration syncs between tabs through the server: the browser tier checks that an edit
then reaches every tab once. The venv is built by ``kernel_matrix.build`` (same stamp, lock and
checks) under ``.cache/kernels/rtc-lab4``; the server runs from it, so its kernels do too, and
nbacp comes from the tree under test through ``PYTHONPATH``.

``python -m support.rtc_stack`` (from tests/) builds it ahead and prints the seconds spent.
"""

from __future__ import annotations

import time
from pathlib import Path

from support.kernel_matrix import ROOT, KernelEnv, build

RTC_LAB = KernelEnv("rtc-lab4", ("ipykernel==7.4.0", "jupyterlab==4.6.6", "jupyter-collaboration==5.0.4"))


def ensure() -> Path:
    """Build the venv if missing or stale (waits for another builder); returns its python."""
    build(RTC_LAB)
    return RTC_LAB.python


def server_env() -> dict[str, str]:
    """What the server (and so each kernel it starts) needs on top of the test run's environment."""
    return {"PYTHONPATH": str(ROOT)}


if __name__ == "__main__":
    began = time.monotonic()
    spent = build(RTC_LAB)
    print(
        f"{RTC_LAB.id}: {'built in ' + format(spent, '.1f') + ' s' if spent else 'up to date'} "
        f"({time.monotonic() - began:.1f} s)"
    )
