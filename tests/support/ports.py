"""Servers on a free loopback port, started without trusting that they got the port.

A port picked free is free only at the pick: another process can take it before the server binds
it. Jupyter's server then moves to a nearby port by default (``port_retries``), and a test that
talks to the port it picked reaches nothing, or someone else. So a Jupyter server started here
refuses to move (``NO_MOVE``), and one that exits because its port was taken is started again on
a new port. It is ready when it answers on that port: jupyter_server writes its runtime file
(``jpserver-<pid>.json``) before its loop binds the port, so the file is no sign of a listener.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

NO_MOVE = "--ServerApp.port_retries=0"
"""Jupyter's server exits when its port is taken instead of moving to another one."""

PORT_TAKEN = "is already in use"
"""What Jupyter's server logs when it cannot bind its port (jupyter_server 1.x and 2.x alike)."""

ATTEMPTS = 5


class PortTaken(Exception):
    """Another process took the port between the pick and the server's bind."""


def free_port() -> int:
    """A port nobody listens on at this moment (the OS's pick for port 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def on_free_port(start: Callable[[int], T], attempts: int = ATTEMPTS) -> T:
    """``start(port)`` on a freshly picked port, again on a new one each time it raises PortTaken."""
    for _ in range(attempts - 1):
        try:
            return start(free_port())
        except PortTaken:
            continue
    return start(free_port())


def wait_for_jupyter(process: subprocess.Popen[bytes], url: str, token: str, log: Path, timeout: float) -> None:
    """Return once the server at ``url`` (its base URL, ending in '/') answers ``api/status``.

    PortTaken when the server exited because its port was taken (its log says so), RuntimeError
    for any other exit, TimeoutError past ``timeout``; the log's tail is in the message.
    """
    request = urllib.request.Request(f"{url}api/status", headers={"Authorization": f"token {token}"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            text = log.read_text(errors="replace") if log.exists() else ""
            if PORT_TAKEN in text:
                raise PortTaken(url)
            raise RuntimeError(f"the Jupyter server exited with {process.returncode}:\n{text[-3000:]}")
        try:
            with opener.open(request, timeout=5) as reply:
                json.loads(reply.read())
            if process.poll() is None:  # the answer came from our server, not from whoever took the port
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
            pass
        if time.monotonic() > deadline:
            text = log.read_text(errors="replace") if log.exists() else ""
            raise TimeoutError(f"the Jupyter server did not answer in {timeout} s:\n{text[-3000:]}")
        time.sleep(0.2)


def start_jupyter(
    command: Callable[[int], list[str]],
    *,
    token: str,
    log: Path,
    env: Mapping[str, str],
    cwd: Path,
    timeout: float,
) -> tuple[subprocess.Popen[bytes], str]:
    """Run ``command(port)`` (which must pass ``NO_MOVE``) until a server answers on its port.

    Returns the process and the server's base URL; its output goes to ``log`` (each attempt
    anew). A server that does not come up is stopped before the error is raised.
    """

    def attempt(port: int) -> tuple[subprocess.Popen[bytes], str]:
        argv = command(port)
        assert NO_MOVE in argv, "a server that may move to another port cannot be found at the one picked"
        with log.open("wb") as out:
            process = subprocess.Popen(argv, cwd=cwd, env=dict(env), stdout=out, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}/"
        try:
            wait_for_jupyter(process, url, token, log, timeout)
        except BaseException:
            stop(process)
            raise
        return process, url

    return on_free_port(attempt)


def stop(process: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """SIGTERM (the server then shuts its kernels down), SIGKILL if it is still there after ``grace``."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
