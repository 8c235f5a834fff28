"""Real JupyterLab / Notebook 7 servers and the page helpers the browser tests share.

A server runs from this venv with private config/runtime/data dirs (the venv's
share/jupyter stays on the search path, so the ipywidgets and anywidget lab extensions
still load) and a temp root dir. Every wait here has a timeout.
"""

from __future__ import annotations

import itertools
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from playwright.sync_api import Locator, Page
from support.ports import NO_MOVE, start_jupyter, stop

Kind = Literal["lab", "notebook"]

# Debian's chromium; NBACP_CHROMIUM may name another build.
CHROMIUM = os.environ.get("NBACP_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# The flags the machine notes name: without the networking ones chromium spends its time
# on refused connections to Google's hosts.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
SERVER_START_TIMEOUT = 90.0
# nbacp's front-end piece as this checkout built it (make setup; labextension/).
BUILT_EXTENSION = Path(__file__).resolve().parents[2] / "nbacp" / "labextension"
DEFAULT_TIMEOUT_MS = 30_000
_counter = itertools.count()


@dataclass
class JupyterServer:
    """A running ``jupyter lab`` or ``jupyter notebook`` serving ``root``."""

    kind: Kind
    url: str
    token: str
    root: Path
    process: subprocess.Popen[bytes]
    log: Path
    startup_seconds: float = 0.0
    written: list[Path] = field(default_factory=list)

    def url_for(self, path: str) -> str:
        """The page that opens ``path`` (relative to the root) in this front end.

        Lab gets a fresh workspace per page: the default one would reopen the notebooks of
        earlier tests next to this one.
        """
        prefix = f"lab/workspaces/w{secrets.token_hex(4)}/tree/" if self.kind == "lab" else "notebooks/"
        return f"{self.url}{prefix}{quote(path)}?token={self.token}"

    def write_notebook(self, name: str, cells: list[str], folder: str | None = None) -> str:
        """Write a notebook of code cells into a fresh folder under the root; returns its path."""
        rel = Path(folder or f"t{next(_counter)}") / name
        nb = {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "cells": [
                {
                    "cell_type": "code",
                    "id": secrets.token_hex(4),
                    "metadata": {},
                    "execution_count": None,
                    "outputs": [],
                    "source": src,
                }
                for src in cells
            ],
        }
        target = self.root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(nb, indent=1))
        return rel.as_posix()

    def api(self, method: str, path: str, timeout: float = 10.0) -> Any:
        req = urllib.request.Request(
            f"{self.url}api/{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        """Stop every kernel, so kernels of finished tests do not pile up."""
        for session in self.api("GET", "sessions"):
            self.api("DELETE", f"sessions/{session['id']}")

    def log_tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""

    def stop(self) -> None:
        stop(self.process)


def start_server(
    kind: Kind,
    base: Path,
    notebooks: Path | None = None,
    extra_env: dict[str, str] | None = None,
    python: str | None = None,
    nbacp_extension: bool = True,
) -> JupyterServer:
    """Start a server on a free loopback port and wait (bounded) until its API answers.

    nbacp's front-end piece is this checkout's build (nbacp/labextension, linked into the
    server's data folder, which comes before the venv's); ``nbacp_extension=False`` disables it
    in the page config, as a server environment without it.

    Kernels never inherit NBACP_ANSWERS from the test run (it would answer for the browser);
    pass it in ``extra_env`` on purpose. ``python`` runs the server (and so its default
    kernel) from another venv, e.g. Colab's widget stack (support/colab_stack.py).
    """
    root = base / "root"
    if notebooks is not None and notebooks.is_dir():
        shutil.copytree(notebooks, root / notebooks.name, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    root.mkdir(parents=True, exist_ok=True)
    config = base / "config"
    (config / "labconfig").mkdir(parents=True)
    # No "get notified about Jupyter news?" toast over the cells.
    disabled = {"@jupyterlab/apputils-extension:announcements": True} | ({} if nbacp_extension else {"nbacp": True})
    (config / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": disabled}))
    if nbacp_extension and BUILT_EXTENSION.is_dir():
        (base / "data" / "labextensions").mkdir(parents=True, exist_ok=True)
        (base / "data" / "labextensions" / "nbacp").symlink_to(BUILT_EXTENSION, target_is_directory=True)
    env = dict(
        {k: v for k, v in os.environ.items() if k != "NBACP_ANSWERS"},
        JUPYTER_CONFIG_DIR=str(config),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        JUPYTER_DATA_DIR=str(base / "data"),
        JUPYTERLAB_SETTINGS_DIR=str(base / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
        PYTHONUNBUFFERED="1",
    ) | (extra_env or {})
    token = secrets.token_hex(16)
    app = "LabApp" if kind == "lab" else "JupyterNotebookApp"

    def command(port: int) -> list[str]:
        cmd = [
            python or sys.executable,
            "-m",
            "jupyterlab" if kind == "lab" else "notebook",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            NO_MOVE,
            f"--IdentityProvider.token={token}",
            "--ServerApp.allow_root=True",
            f"--ServerApp.root_dir={root}",
            f"--{app}.expose_app_in_browser=True",
        ]
        if kind == "lab":
            cmd.append("--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate")
        return cmd

    log = base / "server.log"
    started = time.perf_counter()
    process, url = start_jupyter(command, token=token, log=log, env=env, cwd=root, timeout=SERVER_START_TIMEOUT)
    server = JupyterServer(kind, url, token, root, process, log)
    server.startup_seconds = time.perf_counter() - started
    return server


# -- page helpers ---------------------------------------------------------------------------

_CURRENT_PATH = """(path) => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return !!w && !!w.context && w.context.path === path;
}"""

_KERNEL_IDLE = """() => {
  const app = window.jupyterapp;
  const w = app && app.shell.currentWidget;
  const ctx = w && w.sessionContext;
  const kernel = ctx && ctx.session && ctx.session.kernel;
  if (!kernel || kernel.status !== 'idle' || kernel.connectionStatus !== 'connected') return false;
  const prompts = w.node.querySelectorAll('.jp-InputArea-prompt');
  return !Array.from(prompts).some((p) => (p.textContent || '').includes('*'));
}"""


def open_notebook(page: Page, server: JupyterServer, path: str, timeout_ms: int = 60_000) -> None:
    """Open ``path``, wait until it is the current document and its kernel is connected and idle."""
    show_notebook(page, server, path, timeout_ms)
    wait_kernel_idle(page, timeout_ms)


def show_notebook(page: Page, server: JupyterServer, path: str, timeout_ms: int = 60_000) -> None:
    """Open ``path`` and wait until it is the current document (its kernel may be busy)."""
    page.goto(server.url_for(path), timeout=timeout_ms)
    wait_current(page, path, timeout_ms)


def wait_current(page: Page, path: str, timeout_ms: int = 60_000) -> None:
    """Wait until ``path`` is the page's current document."""
    page.wait_for_function(_CURRENT_PATH, arg=path, timeout=timeout_ms, polling=100)


def wait_kernel_idle(page: Page, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
    """Wait until the notebook's kernel is idle and no cell shows ``[*]``."""
    page.wait_for_function(_KERNEL_IDLE, timeout=timeout_ms, polling=100)


_INTERRUPT = """async () => {
  const w = window.jupyterapp.shell.currentWidget;
  await w.sessionContext.ready;
  await w.sessionContext.session.kernel.interrupt();
}"""

_KERNEL_CONNECTED = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const ctx = w && w.sessionContext;
  const kernel = ctx && ctx.session && ctx.session.kernel;
  return !!kernel && kernel.connectionStatus === 'connected';
}"""


def interrupt_kernel(page: Page, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
    """Press the stop button once the page's kernel connection exists, and return when the
    server has taken the interrupt (the stop command of a page whose kernel connection is not
    made yet does nothing, as a person's click on a not yet connected page would)."""
    page.wait_for_function(_KERNEL_CONNECTED, timeout=timeout_ms, polling=100)
    page.evaluate(_INTERRUPT)


def run_all_cells(page: Page) -> None:
    """Start running every cell and return at once (a bare evaluate would wait for all cells)."""
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")


def start_cell(page: Page, index: int) -> None:
    """Start running cell ``index`` and return at once (the cell may await a person)."""
    page.evaluate(
        """(index) => {
          const notebook = window.jupyterapp.shell.currentWidget.content;
          notebook.activeCellIndex = index;
          window.jupyterapp.commands.execute("notebook:run-cell");
        }""",
        index,
    )


def cell(page: Page, index: int) -> Locator:
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def output_area(page: Page, index: int) -> Locator:
    """The output area of code cell ``index`` (0-based, counting every cell)."""
    return cell(page, index).locator(".jp-OutputArea").first


def screenshot(page: Page, directory: Path, name: str) -> Path:
    target = directory / f"{name}.png"
    page.screenshot(path=str(target), full_page=True)
    return target


def save_shot(card: Locator, directory: Path, name: str) -> Path:
    """A screenshot of ``card`` in ``directory``, copied to ``$NBACP_SCREENSHOTS`` when that is set
    (the docs' pictures)."""
    target = directory / f"{name}.png"
    card.screenshot(path=str(target))
    wanted = os.environ.get("NBACP_SCREENSHOTS")
    if wanted:
        Path(wanted).mkdir(parents=True, exist_ok=True)
        shutil.copy(target, Path(wanted) / target.name)
    return target


def set_theme(page: Page, theme: str, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
    """Switch JupyterLab to ``theme`` and wait until the page shows it."""
    page.evaluate("(t) => window.jupyterapp.commands.execute('apputils:change-theme', {theme: t})", theme)
    page.wait_for_function("(t) => document.body.dataset.jpThemeName === t", arg=theme, timeout=timeout_ms, polling=100)


def active_plugins(page: Page, prefix: str) -> list[str]:
    """Activated front-end plugins whose id starts with ``prefix`` (proves an extension loaded)."""
    result: list[str] = page.evaluate(
        """(prefix) => window.jupyterapp.listPlugins()
             .filter((id) => id.startsWith(prefix) && window.jupyterapp.isPluginActivated(id))""",
        prefix,
    )
    return result
