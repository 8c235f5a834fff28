"""Which kernel this is: inside ipykernel or not, its release, and whether it dispatches comms
while a cell awaits (ipykernel >= 7.4). Everything else in :mod:`nbacp.kernel` builds on this.
"""

from __future__ import annotations

import inspect
import re
import sys
from importlib import metadata
from typing import Any

#: First ipykernel release that dispatches comm messages while an async cell awaits.
MIN_AWAIT_VERSION: tuple[int, ...] = (7, 4)

#: The shell messages that carry widget traffic.
COMM_MESSAGES = ("comm_open", "comm_msg", "comm_close")


def running_in_kernel() -> bool:
    """True inside an IPython kernel (not a terminal IPython, not plain Python)."""
    if "IPython" not in sys.modules or "ipykernel" not in sys.modules:
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def ipykernel_version() -> tuple[int, ...] | None:
    """The installed ipykernel's numeric release, e.g. ``(7, 4, 0)``; None when absent."""
    try:
        raw = metadata.version("ipykernel")
    except metadata.PackageNotFoundError:
        return None
    match = re.match(r"\d+(?:\.\d+)*", raw)
    return tuple(int(p) for p in match.group(0).split(".")) if match else None


def current_kernel() -> Any:
    from IPython import get_ipython

    return getattr(get_ipython(), "kernel", None)


def dispatches_comms_concurrently(kernel: Any) -> bool:
    """ipykernel >= 7.4: comm messages reach their handlers while an async cell holds the shell."""
    dispatch = getattr(kernel, "dispatch_shell", None)
    if dispatch is None:
        return False
    try:
        return "concurrent" in inspect.signature(dispatch).parameters
    except (TypeError, ValueError):
        return False


def older_kernel_message() -> str:
    """Plain-text explanation for a kernel that cannot deliver clicks to an awaiting cell."""
    version = ipykernel_version()
    found = ".".join(map(str, version)) if version else "unknown"
    need = ".".join(map(str, MIN_AWAIT_VERSION))
    return (
        f"This kernel runs ipykernel {found}, and nbacp cannot let widget clicks through to a cell "
        "that waits for them here (the kernel internals it uses for that are missing), so the cell "
        "would wait forever. Use `turn = session.start(...)` instead: the cell returns at once, "
        "you answer in the widgets, and read `turn.done` / the turn's record when it ends. "
        f"Or upgrade: pip install 'ipykernel>={need}' and restart the kernel."
    )
