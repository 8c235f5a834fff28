"""Which notebooks a write must never replace: the one this kernel runs, and every notebook the
Jupyter server that runs this kernel has open (docs/files-and-terminals.md, 'The notebook guard').

The running notebook comes from ``JPY_SESSION_NAME``, which jupyter_server puts in the kernel's
environment. The others come from that server's ``/api/sessions`` (nbacp/kernel/server_sessions.py: only a
server on this machine, briefly); a server that cannot be asked leaves the running notebook
protected all the same.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from nbacp.kernel.server_sessions import server_sessions


def protected_notebooks(kernel_id: str | None) -> set[Path]:
    """The running notebook and every other notebook its server has open (blocking: a local HTTP call)."""
    return running_notebook() | server_notebooks(kernel_id)


def running_notebook(environ: Mapping[str, str] | None = None, cwd: str | None = None) -> set[Path]:
    """The notebook this kernel runs, from ``JPY_SESSION_NAME``.

    jupyter_server sets it to the notebook's path: absolute, or relative to the server's root;
    the kernel starts in the notebook's folder, so a relative one is looked up there by its file
    name too.
    """
    env = os.environ if environ is None else environ
    name = env.get("JPY_SESSION_NAME", "")
    if not name:
        return set()
    here = Path(cwd or os.getcwd())
    candidates = {Path(name)} if os.path.isabs(name) else {here / name, here / Path(name).name}
    return {Path(os.path.realpath(p)) for p in candidates}


def server_notebooks(kernel_id: str | None, runtime_dir: str | None = None) -> set[Path]:
    """Every notebook open in the Jupyter server that runs kernel ``kernel_id`` (empty if none is found)."""
    found = server_sessions(kernel_id, runtime_dir)
    if found is None:
        return set()
    return {Path(os.path.realpath(found.root / p)) for p in found.paths if p.endswith(".ipynb")}
