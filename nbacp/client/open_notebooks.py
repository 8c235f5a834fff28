"""Which notebooks a write must never replace: the one this kernel runs, and every notebook the
Jupyter server that runs this kernel has open (docs/files-and-terminals.md, 'The notebook guard').

The running notebook comes from ``JPY_SESSION_NAME``, which jupyter_server puts in the kernel's
environment. The others come from that server's ``/api/sessions``: the server is found by its
runtime file (``jpserver-<pid>.json`` in Jupyter's runtime folder, written by the server for
the same user, with its URL, token and root folder) and recognised by having a session with
this kernel's id. Only a server on this machine (a loopback URL) is asked, without any proxy,
for at most ``ASK_TIMEOUT`` seconds; a server that cannot be asked leaves the running notebook
protected all the same.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ASK_TIMEOUT = 1.0
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


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
    if not kernel_id:
        return set()
    folder = Path(runtime_dir or _runtime_dir())
    for info_file in sorted(folder.glob("jpserver-*.json")):
        try:
            info = json.loads(info_file.read_text(encoding="utf-8"))
            sessions = _sessions(info)
        except (OSError, ValueError):
            continue
        if sessions is None or not any(_kernel_of(s) == kernel_id for s in sessions):
            continue
        root = Path(str(info.get("root_dir") or "."))
        paths = {str(s.get("path") or "") for s in sessions if isinstance(s, dict)}
        return {Path(os.path.realpath(root / p)) for p in paths if p.endswith(".ipynb")}
    return set()


def _sessions(info: dict[str, Any]) -> list[Any] | None:
    url = str(info.get("url") or "")
    if urlsplit(url).hostname not in LOOPBACK:
        return None
    request = urllib.request.Request(url.rstrip("/") + "/api/sessions")
    if info.get("token"):
        request.add_header("Authorization", f"token {info['token']}")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
    with opener.open(request, timeout=ASK_TIMEOUT) as reply:
        sessions = json.loads(reply.read(4 * 1024 * 1024))
    return sessions if isinstance(sessions, list) else None


def _kernel_of(session: Any) -> Any:
    kernel = session.get("kernel") if isinstance(session, dict) else None
    return kernel.get("id") if isinstance(kernel, dict) else None


def _runtime_dir() -> str:
    try:
        from jupyter_core.paths import jupyter_runtime_dir
    except ImportError:  # no Jupyter here: no server to ask
        return os.devnull
    return str(jupyter_runtime_dir())
