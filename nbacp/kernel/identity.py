"""This kernel's id, as its Jupyter server knows it: the ``<id>`` of ``kernel-<id>.json``.

jupyter_client names a kernel's connection file after the kernel's id, and ipykernel knows the
file it was started with (``IPKernelApp.connection_file``); outside a kernel there is none.
"""

from __future__ import annotations

import os
import re
import sys

_KERNEL_FILE = re.compile(r"kernel-(?P<id>[0-9a-fA-F-]{8,})\.json$")


def kernel_id() -> str | None:
    """The id of the kernel this code runs in, or None (plain Python, or a connection file of another name)."""
    # A running kernel has imported its app already. Importing it here when it was not would
    # swap the comm package's global functions for ipykernel's (ipykernel.ipkernel does so on
    # import), stranding every widget comm made before: they could no longer be closed.
    if "ipykernel.kernelapp" not in sys.modules:
        return None
    from ipykernel.kernelapp import IPKernelApp

    if not IPKernelApp.initialized():
        return None
    found = _KERNEL_FILE.search(os.path.basename(IPKernelApp.instance().connection_file or ""))
    return found.group("id") if found else None
