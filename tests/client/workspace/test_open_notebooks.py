"""The notebook guard against a real Jupyter server: every notebook the server that runs this
kernel has open is protected, not only the running one (docs/files-and-terminals.md, 'The notebook guard').

The server (jupyter_server from this venv, on 127.0.0.1 with a token) starts real kernels for two
notebook sessions. The test process is not one of those kernels, so for the end-to-end write it
takes one's identity (``nbacp.kernel.kernel_id``); everything else is the real server's answer.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import socket
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import KernelManager
from support.client_methods_agent import ClientMethodsAgent
from support.ports import NO_MOVE, start_jupyter, stop

import nbacp
import nbacp.kernel  # patched below: imported here, not left to whichever test imported it first
from nbacp.client.workspace import open_notebooks
from nbacp.kernel.server_sessions import server_sessions

# a real Jupyter server: in the test extra (JupyterLab), not in the SDK 1.x tier's core test venv
pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(importlib.util.find_spec("jupyter_server") is None, reason="needs jupyter_server (nbacp[test])"),
]

NOTEBOOK = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def server_command(port: int, token: str, root: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "jupyter_server",
        "--no-browser",
        f"--ServerApp.port={port}",
        NO_MOVE,
        "--ServerApp.ip=127.0.0.1",
        "--allow-root",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
    ]


class Server:
    def __init__(self, url: str, token: str, runtime: Path) -> None:
        self.url, self.token, self.runtime = url, token, runtime

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Authorization": f"token {self.token}"}
        )
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(request, timeout=60) as reply:
            text = reply.read()
        return json.loads(text) if text else None

    def open(self, path: str) -> str:
        session = self.call(
            "POST", "api/sessions", {"path": path, "type": "notebook", "name": path, "kernel": {"name": "python3"}}
        )
        kernel_id: str = session["kernel"]["id"]
        return kernel_id


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    root, runtime = tmp_path / "root", tmp_path / "runtime"
    root.mkdir()
    for name in ("a.ipynb", "b.ipynb", "closed.ipynb"):
        (root / name).write_text(json.dumps(NOTEBOOK))
    token = secrets.token_hex(16)
    env = os.environ | {"JUPYTER_RUNTIME_DIR": str(runtime), "JUPYTER_CONFIG_DIR": str(tmp_path / "config")}

    process, url = start_jupyter(
        lambda port: server_command(port, token, root),
        token=token,
        log=tmp_path / "server.log",
        env=env,
        cwd=tmp_path,
        timeout=90,
    )
    try:
        yield Server(url, token, runtime)
    finally:
        stop(process, grace=30)  # the server shuts its kernels down on SIGTERM


def test_a_server_whose_port_was_taken_starts_again_on_another(tmp_path: Path) -> None:
    """The fixture's premise: told not to move, jupyter_server exits on a taken port and says so,
    and start_jupyter starts it again on a new port rather than talking to one nobody serves."""
    tried: list[int] = []
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        token = secrets.token_hex(16)

        def command(port: int) -> list[str]:  # the first attempt gets a port someone took after the pick
            tried.append(port)
            return server_command(taken.getsockname()[1] if len(tried) == 1 else port, token, tmp_path)

        env = os.environ | {
            "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
            "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        }
        process, url = start_jupyter(
            command, token=token, log=tmp_path / "server.log", env=env, cwd=tmp_path, timeout=90
        )
    try:
        assert len(tried) == 2 and url == f"http://127.0.0.1:{tried[1]}/"
        assert Server(url, token, tmp_path).call("GET", "api/status")["started"]
    finally:
        stop(process, grace=30)


def test_every_notebook_of_the_kernels_server_is_protected(server: Server) -> None:
    kernel_a = server.open("a.ipynb")
    server.open("b.ipynb")
    root = Path(os.path.realpath(server.runtime.parent / "root"))
    found = open_notebooks.server_notebooks(kernel_a, str(server.runtime))
    assert found == {root / "a.ipynb", root / "b.ipynb"}
    assert open_notebooks.server_notebooks("not-a-kernel-of-this-server", str(server.runtime)) == set()
    # The notebook link's cross-check (nbacp/kernel/notebook_link.py): which notebook runs this kernel.
    sessions = server_sessions(kernel_a, str(server.runtime))
    assert sessions is not None and sessions.kernel_paths == {"a.ipynb"}
    assert sessions.paths == {"a.ipynb", "b.ipynb"}
    assert server_sessions("not-a-kernel-of-this-server", str(server.runtime)) is None


async def test_a_write_to_another_open_notebook_is_refused(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel_a = server.open("a.ipynb")
    server.open("b.ipynb")
    root = server.runtime.parent / "root"
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(server.runtime))
    monkeypatch.setattr(nbacp.kernel, "kernel_id", lambda: kernel_a)  # this process plays kernel a
    async with nbacp.connect(ClientMethodsAgent()) as conn:
        session = await conn.new_session(root)
        result = await session.prompt(
            json.dumps(
                [
                    {"op": "write", "path": str(root / "b.ipynb"), "content": "{}"},
                    {"op": "write", "path": str(root / "closed.ipynb"), "content": json.dumps(NOTEBOOK)},
                ]
            )
        )
    refused, written = json.loads(result.text)
    assert refused["error"]["data"]["reason"] == "notebook_open"
    assert json.loads((root / "b.ipynb").read_text()) == NOTEBOOK
    assert written == {"ok": "written"}  # a notebook nobody has open


def test_kernel_id_is_the_id_in_the_connection_file(tmp_path: Path) -> None:
    km = KernelManager(kernel_name="python3")
    km.connection_file = str(tmp_path / "kernel-0f1e2d3c-aaaa-bbbb-cccc-123456789abc.json")
    km.start_kernel(cwd=str(tmp_path))
    outputs: list[Any] = []
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        reply = kc.execute_interactive(
            "import nbacp.kernel; print(nbacp.kernel.kernel_id())",
            timeout=60,
            output_hook=lambda msg: outputs.append(msg),
        )
        assert reply["content"]["status"] == "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    printed = [m["content"]["text"] for m in outputs if m["msg_type"] == "stream"]
    assert printed == ["0f1e2d3c-aaaa-bbbb-cccc-123456789abc\n"]
