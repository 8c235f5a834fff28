"""A real ``marimo edit`` server for the browser tier, in a private HOME, and its page helpers.

marimo reads its user config from ``.marimo.toml`` found walking up from the working directory
(``marimo/_config/utils.py: get_user_config_path``): each server runs in a temp HOME holding
one, so it never reads or writes the person's config and the test picks the theme and
``auto_instantiate`` (cells run when the page opens: no click on a run button racing the
kernel's start). Every wait has a timeout.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Locator, Page, expect
from support.marimo_cli import MARIMO, private_env, require_marimo
from support.ports import free_port

START_TIMEOUT = 60.0
TURN_TIMEOUT = 60_000
OUTPUT = '[id^="output-"]'  # a cell's output area (its code editor holds the same words)
SHOTS = Path("/work/shots")


@dataclass
class MarimoServer:
    url: str
    notebook: Path
    log: Path


@contextlib.contextmanager
def marimo_edit(
    base: Path,
    name: str,
    source: str,
    *,
    theme: str = "light",
    mode: str = "edit",
    env: dict[str, str] | None = None,
) -> Iterator[MarimoServer]:
    """``marimo edit NAME --headless --no-token`` (``mode="run"``: ``marimo run``, the app view)
    on a free loopback port, with ``env`` added to the private environment, stopped (its process
    group: the server and its kernel) on exit."""
    require_marimo()
    home = base / "home"
    home.mkdir(parents=True)
    (home / ".marimo.toml").write_text(f'[runtime]\nauto_instantiate = true\n\n[display]\ntheme = "{theme}"\n')
    notebook = home / name
    notebook.write_text(source)
    log = base / "marimo.log"
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(MARIMO), mode, name, "--headless", "--no-token", "--port", str(port), "--host", "127.0.0.1"],
            cwd=home,
            env=private_env(home) | (env or {}),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_healthy(process, url, log)
        yield MarimoServer(url, notebook, log)
    finally:
        stop_group(process)


def wait_healthy(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"marimo exited ({process.returncode}): {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url + "health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)  # polling a server that is starting; the answer is what decides
    raise RuntimeError(f"marimo did not answer within {START_TIMEOUT}s: {log.read_text()[-2000:]}")


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the group this test started (server and kernel), SIGKILL after a grace."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(5)


def card(page: Page, kind: str, text: str) -> Locator:
    """The one card of ``kind`` (form, permission, url) whose text holds ``text``, once it shows."""
    found = page.locator(f".nbacp-kind-{kind}").filter(has_text=text)
    expect(found).to_have_count(1, timeout=TURN_TIMEOUT)
    return found


def keep_shot(target: Page | Locator, shot: Path) -> None:
    """A screenshot in the test's folder, copied to /work/shots when that folder exists."""
    target.screenshot(path=str(shot))
    if SHOTS.is_dir():
        shutil.copy(shot, SHOTS / shot.name)
