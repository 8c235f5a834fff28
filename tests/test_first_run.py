"""The README's first command on a clone, as the user running the tests (root in CI).

A fresh copy of the checkout (every tracked file, committed into a new git repository) runs
the real Makefile: ``make demo-setup`` must leave ``git status`` clean, and ``make demo``
must serve the quickstart at the URL it prints (and hand that page to a browser), keep a
person's saves and new notebooks out of every tracked file and out of what the tests
collect, and stop on Ctrl-C twice. The copy uses this run's .venv (``make -o`` keeps make
from reinstalling into it), so the test costs one JupyterLab start, not a pip install.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from support.ports import PORT_TAKEN, PortTaken, on_free_port

REPO = Path(__file__).resolve().parents[1]
VENV = Path(sys.prefix)
STAMP = VENV / ".installed"
DEMO_STAMP = VENV / ".installed-demo"  # `make demo`'s (the Makefile)
URL_LINE = re.compile(r"(http://127\.0\.0\.1:(\d+)/lab/tree/quickstart\.ipynb\?token=(\w+))")
START_TIMEOUT = 120.0

pytestmark = pytest.mark.skipif(shutil.which("make") is None or shutil.which("git") is None, reason="needs make, git")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def make(clone: Path, *targets: str, **variables: str) -> list[str]:
    """``make`` in the clone with this run's venv; ``-o`` marks its install stamps up to date."""
    settings = [f"{k}={v}" for k, v in {"VENV": str(VENV), **variables}.items()]
    stamps = ["-o", str(STAMP), "-o", str(DEMO_STAMP)]
    return ["make", "--no-print-directory", "-C", str(clone), *stamps, *settings, *targets]


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """The checkout's tracked files (as they are on disk) committed into a fresh repository."""
    if not STAMP.is_file():
        pytest.fail(f"{STAMP} is missing: run the tests from the venv `make setup` builds", pytrace=False)
    target = tmp_path / "clone"
    for name in git(REPO, "ls-files", "-z").split("\0"):
        source = REPO / name
        if name and source.exists():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name, follow_symlinks=False)
    git(target, "init", "-q")
    git(target, "add", "-A")
    git(target, "-c", "user.name=nbacp tests", "-c", "user.email=tests@localhost", "commit", "-qm", "snapshot")
    return target


def tracked_notebooks(root: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted((root / "notebooks").glob("*.ipynb"))}


def test_demo_setup_leaves_git_status_clean(clone: Path) -> None:
    before = tracked_notebooks(clone)
    run = subprocess.run(make(clone, "demo-setup"), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""
    assert tracked_notebooks(clone) == before
    copies = sorted(p.name for p in (clone / "workspace").glob("*.ipynb"))
    assert copies == sorted(before)
    for name in copies:  # the person starts from a clean page: no scripted outputs
        notebook = nbformat.read(clone / "workspace" / name, as_version=4)
        code = [c for c in notebook.cells if c.cell_type == "code"]
        assert code and all(c.outputs == [] and c.execution_count is None for c in code), name
    assert "Copied to workspace/" in run.stdout

    # A person's edits survive the next `make demo`; a notebook added to notebooks/ later is copied.
    mine = clone / "workspace" / "quickstart.ipynb"
    mine.write_text(mine.read_text().replace("nbacp quickstart", "my own quickstart"))
    (clone / "workspace" / "remote.ipynb").unlink()
    again = subprocess.run(make(clone, "demo-setup"), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "my own quickstart" in mine.read_text()
    assert "Copied to workspace/ (outputs cleared): remote.ipynb" in again.stdout
    assert "Kept your copies in workspace/" in again.stdout and "quickstart.ipynb" in again.stdout
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""


def test_tests_never_collect_the_workspace(clone: Path) -> None:
    """nbval's path and pytest's recursion both stay out of a person's notebooks and files."""
    workspace = clone / "workspace"
    workspace.mkdir()
    shutil.copy(clone / "notebooks" / "standalone_forms.ipynb", workspace / "Untitled.ipynb")
    (workspace / "test_mine.py").write_text("def test_mine():\n    pass\n")
    for args in (["--nbval", "notebooks"], ["--nbval", "--ignore=tests", "."]):
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
            cwd=clone,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        assert "notebooks/quickstart.ipynb" in run.stdout
        assert "workspace" not in run.stdout


def get(url: str, method: str = "GET", body: Any = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _terminal_signals() -> None:
    """Ctrl-C reaches make and jupyter as in a terminal, even if this run ignores SIGINT
    (a background job of a non-interactive shell does)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Demo:
    """``make demo`` running in its own process group, its output collected as it comes."""

    def __init__(self, clone: Path, port: int, env: dict[str, str]) -> None:
        self.output = ""
        # A terminal on stdin, as a person has: jupyter then asks before stopping on Ctrl-C.
        self._terminal, terminal = pty.openpty()
        try:
            self.process = subprocess.Popen(
                make(clone, "demo", DEMO_PORT=str(port)),
                stdin=terminal,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
                preexec_fn=_terminal_signals,
            )
        finally:
            os.close(terminal)

    def _read(self, deadline: float) -> bool:
        """Take what make and jupyter wrote so far (not line by line: a prompt ends without a
        newline); False once every writer closed the output."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
        if not ready:
            return True
        chunk = os.read(fd, 65536)
        self.output += chunk.decode(errors="replace")
        return bool(chunk)

    def tail(self) -> str:
        return self.output[-4000:]

    def wait_for(self, pattern: str, timeout: float = START_TIMEOUT, *, after: int = 0) -> re.Match[str]:
        """The first match of ``pattern`` in the output from position ``after`` on."""
        wanted = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while not (found := wanted.search(self.output, after)):
            if time.monotonic() > deadline or not self._read(deadline):
                raise AssertionError(f"no {pattern!r} from make demo:\n{self.tail()}")
        return found

    def wait_eof(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self._read(deadline):
            if time.monotonic() > deadline:
                raise AssertionError(f"make demo's output never closed:\n{self.tail()}")

    def wait_listening(self, port: int, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"make demo never listened:\n{self.tail()}") from None
                time.sleep(0.1)

    def interrupt(self) -> None:
        """Ctrl-C in the terminal: SIGINT to the whole foreground group (make and jupyter)."""
        os.killpg(self.process.pid, signal.SIGINT)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):  # jupyter may outlive make: the whole group
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)
        os.close(self._terminal)


@pytest.fixture
def demo_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """Jupyter's per-user folders in tmp, and a 'browser' that notes what it was asked to open."""
    opened = tmp_path / "browser-opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$1" >> {opened}\n')
    browser.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "NBACP_"))}
    env |= {
        "BROWSER": str(browser),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "jupyter-runtime"),
        "JUPYTER_DATA_DIR": str(tmp_path / "jupyter-data"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "lab-workspaces"),
        "NBACP_ANSWERS": "decline",  # the demo must drop it: cards wait for the person
        # jupyter exits when DEMO_PORT is taken instead of moving (start_demo picks another port)
        "JUPYTER_PORT_RETRIES": "0",
    }
    yield env


def start_demo(clone: Path, env: dict[str, str], opened: Path) -> tuple[Demo, int]:
    """``make demo`` on a free port, listening on it; again on a new port if another process took
    the port before jupyter bound it (support/ports.py). Returns the demo and its port."""

    def attempt(port: int) -> tuple[Demo, int]:
        opened.unlink(missing_ok=True)  # only this attempt's browser
        demo = Demo(clone, port, env)
        try:
            demo.wait_for(URL_LINE.pattern)
            demo.wait_listening(port)  # jupyter prints the URL just before its loop binds the port
        except AssertionError:
            demo.stop()
            if PORT_TAKEN in demo.output:
                raise PortTaken(port) from None
            raise
        return demo, port

    return on_free_port(attempt)


def test_make_demo_serves_the_quickstart(clone: Path, demo_env: dict[str, str], tmp_path: Path) -> None:
    opened = tmp_path / "browser-opened.txt"
    demo, port = start_demo(clone, demo_env, opened)
    try:
        url, shown_port, token = demo.wait_for(URL_LINE.pattern).groups()
        assert int(shown_port) == port
        root = f"http://127.0.0.1:{port}"

        status, page = get(url)  # the printed URL, token included: JupyterLab on the quickstart
        assert status == 200 and b"JupyterLab" in page

        # The browser jupyter opened got a page that forwards to the same quickstart URL.
        for _ in range(100):
            if opened.exists() and opened.read_text().strip():
                break
            time.sleep(0.1)
        target = opened.read_text().split()[0]
        forward = Path(target.removeprefix("file://")).read_text() if target.startswith("file://") else target
        assert f"127.0.0.1:{port}/lab/tree/quickstart.ipynb" in forward

        api = f"{root}/api/contents"
        assert get(f"{api}/quickstart.ipynb")[0] == 403  # without the token: nothing
        status, body = get(f"{api}/quickstart.ipynb?token={token}")
        assert status == 200
        served = json.loads(body)
        assert served["path"] == "quickstart.ipynb"  # the server's root is the scratch folder
        code = [c for c in served["content"]["cells"] if c["cell_type"] == "code"]
        assert code and all(c["outputs"] == [] for c in code)
        assert "answers" not in [e["name"] for e in json.loads(get(f"{api}?token={token}")[1])["content"]]

        # A person's save and a new notebook land in workspace/, nowhere git or the tests look.
        notebook = served["content"]
        notebook["cells"][0]["source"] = "# my notes"
        assert get(f"{api}/quickstart.ipynb?token={token}", "PUT", {"type": "notebook", "content": notebook})[0] == 200
        status, body = get(f"{api}?token={token}", "POST", {"type": "notebook"})
        assert status == 201
        created = json.loads(body)["path"]
        assert (clone / "workspace" / created).is_file()
        assert "# my notes" in (clone / "workspace" / "quickstart.ipynb").read_text()
        assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""

        # Ctrl-C twice stops it (the README's words), and the port closes.
        for _attempt in range(3):  # the second Ctrl-C must come within jupyter's 5 s: retry on a slow machine
            demo.interrupt()
            asked = demo.wait_for(r"Shut down this Jupyter server \(y/\[n\]\)\? ", 60, after=len(demo.output))
            demo.interrupt()
            ended = demo.wait_for(r"received signal 2, stopping|resuming operation", 60, after=asked.end())
            if ended.group(0) != "resuming operation":
                break
        demo.process.wait(60)
        demo.wait_eof(60)  # every process of the group closed its output: jupyter is gone too
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
    finally:
        demo.stop()
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""
    assert ("--allow-root" in demo.output) == (os.geteuid() == 0)  # make echoes the command it runs
