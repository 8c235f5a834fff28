"""nbacp installs beside the newest 1.x ACP Python SDK without pinning anything back.

Runs pip's resolver (``--dry-run``) on this source tree plus the SDK 1.x pin of the
``test-sdk1`` tier (tests/support/sdk1_env.py): the SDK stays at the pin, and no acpremote,
ACP Kit or other package is pulled in that would need SDK 0.12. Resolution reads the package
index, so the test runs in that tier only (docs/protocol.md, 'Two SDK lines').
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from support.sdk1_env import ROOT, SDK1
from support.sdk_line import SDK1 as ON_SDK1

pytestmark = pytest.mark.skipif(not ON_SDK1, reason="resolves against the package index: the test-sdk1 tier only")


def resolve(*requirements: str) -> dict[str, str]:
    """What ``pip install`` would install into an empty environment: name -> version."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--ignore-installed",
            "--quiet",
            "--report",
            "-",
            "--disable-pip-version-check",
            *requirements,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    return {item["metadata"]["name"].lower(): item["metadata"]["version"] for item in report["install"]}


def test_nbacp_resolves_beside_the_sdk_1x_pin_without_pinning_it_back() -> None:
    installed = resolve(str(ROOT), SDK1)
    assert installed["agent-client-protocol"] == SDK1.split("==")[1]
    assert "acpremote" not in installed and "pydantic-acp" not in installed
    assert installed["nbacp"]
