"""A front end on Colab's widget stack, built once per clone: ipywidgets 7.7.1 + anywidget 0.9.21.

Colab's own front end cannot run here. The closest real one that loads ipywidgets 7.7.1's widget
manager and anywidget 0.9.21 is JupyterLab 3.6 with jupyterlab_widgets 1.1.1 (its
@jupyter-widgets/jupyterlab-manager 3.1.1, released with ipywidgets 7.7.1) and anywidget 0.9.21's
prebuilt lab extension (docs/kernels.md, 'Colab in a browser'). The venv is the kernel matrix's
Colab kernel stack (ipykernel 6.17.1, IPython 7.34, jupyter_client 7.4.9, tornado 6.4.2, on Python
3.12 where the machine has it) plus that front end, built by ``kernel_matrix.build`` (same stamp,
lock and checks) under ``.cache/kernels/colab-lab3``. The server runs from this venv, so its
kernels do too; nbacp comes from the tree under test through ``PYTHONPATH`` (``server_env``), so
a cache shared by two clones still runs each clone's own code.

``python -m support.colab_stack`` (from tests/) builds it ahead and prints the seconds spent.
"""

from __future__ import annotations

import time
from pathlib import Path

from support.kernel_matrix import MATRIX, ROOT, KernelEnv, build

# Colab's kernel pins, from the kernel matrix (one place says what Colab runs).
_COLAB_KERNEL = next(env for env in MATRIX if env.id == "ipykernel-6.17")

# The front end. jupyterlab_pygments 0.3 is a JupyterLab 4 extension; 0.2.2 is the last for 3.x.
FRONT_END_PINS = (
    "jupyterlab==3.6.8",
    "jupyterlab_widgets==1.1.1",
    "widgetsnbextension==3.6.1",
    "jupyterlab_pygments==0.2.2",
)

COLAB_LAB = KernelEnv("colab-lab3", (*_COLAB_KERNEL.pins, *FRONT_END_PINS), _COLAB_KERNEL.python_version)


def ensure() -> Path:
    """Build the venv if missing or stale (waits for another builder); returns its python."""
    build(COLAB_LAB)
    return COLAB_LAB.python


def server_env() -> dict[str, str]:
    """What the server (and so each kernel it starts) needs on top of the test run's environment."""
    return {"PYTHONPATH": str(ROOT)}


if __name__ == "__main__":
    began = time.monotonic()
    spent = build(COLAB_LAB)
    print(
        f"{COLAB_LAB.id}: {'built in ' + format(spent, '.1f') + ' s' if spent else 'up to date'} "
        f"({time.monotonic() - began:.1f} s)"
    )
