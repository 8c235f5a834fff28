"""The Jupyter server that runs this kernel, and the sessions (open notebooks) it reports.

The server is found by its runtime file (``jpserver-<pid>.json`` in Jupyter's runtime folder,
written by the server for the same user, with its URL, token and root folder) and recognised by
having a session with this kernel's id. Only a server on this machine (a loopback URL) is asked,
without any proxy, for at most ``ASK_TIMEOUT`` seconds. The notebook guard
(nbacp/client/workspace/open_notebooks.py) and the notebook link (notebook_link.py) both ask it.
"""

from __future__ import annotations

import json
import os
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ASK_TIMEOUT = 1.0
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@dataclass(frozen=True)
class ServerSessions:
    """What the server running a kernel reports: its root folder and every session's path."""

    root: Path
    paths: frozenset[str]
    """Every session's path, relative to ``root`` as the server gives it."""
    kernel_paths: frozenset[str]
    """The paths of the sessions that run the kernel asked about (usually one notebook)."""


def server_sessions(kernel_id: str | None, runtime_dir: str | None = None) -> ServerSessions | None:
    """The sessions of the server that runs kernel ``kernel_id``; None when no server could be asked
    or none runs it (blocking: a local HTTP call)."""
    if not kernel_id:
        return None
    folder = Path(runtime_dir or _runtime_dir())
    for info_file in sorted(folder.glob("jpserver-*.json")):
        try:
            info = json.loads(info_file.read_text(encoding="utf-8"))
            sessions = _sessions(info)
        except (OSError, ValueError):
            continue
        if sessions is None:
            continue
        mine = {_path_of(s) for s in sessions if _kernel_of(s) == kernel_id}
        if not mine:
            continue
        root = Path(str(info.get("root_dir") or "."))
        paths = {_path_of(s) for s in sessions}
        return ServerSessions(root, frozenset(paths - {""}), frozenset(mine - {""}))
    return None


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


def _path_of(session: Any) -> str:
    return str(session.get("path") or "") if isinstance(session, dict) else ""


def _runtime_dir() -> str:
    try:
        from jupyter_core.paths import jupyter_runtime_dir
    except ImportError:  # no Jupyter here: no server to ask
        return os.devnull
    return str(jupyter_runtime_dir())
