"""``fs/read_text_file`` / ``fs/write_text_file`` from a scripted agent, in-process and over stdio.

Every refusal (outside the roots, a symlink out, the open notebook, too large, binary, missing)
must come back as a JSON-RPC error whose message says why, on both transports.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from support.client_methods_agent import ClientMethodsAgent

import nbacp
from nbacp.client.workspace import files, open_notebooks


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("one\ntwo\nthree\nfour\n")
    (tmp_path / "secret.txt").write_text("outside")
    return root


async def run(session: Any, *steps: dict[str, Any]) -> list[dict[str, Any]]:
    result = await session.prompt(json.dumps(list(steps)))
    outcomes: list[dict[str, Any]] = json.loads(result.text)
    return outcomes


def refused(outcome: dict[str, Any], reason: str) -> str:
    assert "error" in outcome, outcome
    error = outcome["error"]
    assert error["data"]["reason"] == reason, error
    message: str = error["message"]
    return message


async def test_reads_inside_the_roots_with_line_and_limit(conn: Any, project: Path) -> None:
    session = await conn.new_session(project)
    path = str(project / "notes.txt")
    whole, part, tail = await run(
        session,
        {"op": "read", "path": path},
        {"op": "read", "path": path, "line": 2, "limit": 2},
        {"op": "read", "path": path, "line": 4},
    )
    assert whole == {"ok": "one\ntwo\nthree\nfour\n"}
    assert part == {"ok": "two\nthree\n"}
    assert tail == {"ok": "four\n"}


async def test_every_read_refusal_says_why(conn: Any, project: Path, tmp_path: Path) -> None:
    (project / "escape").symlink_to(tmp_path / "secret.txt")
    (project / "data.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    (project / "nul.txt").write_bytes(b"text\x00more\n")
    (project / "big.txt").write_text("line\n" * (files.MAX_READ_BYTES // 4))
    os.mkfifo(project / "pipe")
    session = await conn.new_session(project)
    outcomes = await run(
        session,
        {"op": "read", "path": str(tmp_path / "secret.txt")},
        {"op": "read", "path": str(project / "escape")},
        {"op": "read", "path": str(project / ".." / "secret.txt")},
        {"op": "read", "path": "notes.txt"},
        {"op": "read", "path": str(project / "missing.txt")},
        {"op": "read", "path": str(project / "data.bin")},
        {"op": "read", "path": str(project / "nul.txt")},
        {"op": "read", "path": str(project / "big.txt")},
        {"op": "read", "path": str(project / "big.txt"), "line": 1, "limit": 3},
        {"op": "read", "path": str(project)},
        {"op": "read", "path": str(project / "pipe")},
    )
    outside, link, dotdot, relative, missing, binary, nul, big, big_part, directory, fifo = outcomes
    assert "outside the session's folders" in refused(outside, "outside_roots")
    assert "resolves to" in refused(link, "outside_roots") and str(tmp_path / "secret.txt") in link["error"]["message"]
    refused(dotdot, "outside_roots")
    assert "not an absolute path" in refused(relative, "not_absolute")
    assert missing["error"]["code"] == -32002 and "does not exist" in refused(missing, "not_found")
    assert "not UTF-8 text" in refused(binary, "not_text")
    refused(nul, "not_text")
    assert f"{files.MAX_READ_BYTES:,} bytes" in refused(big, "too_large")
    assert big_part == {"ok": "line\nline\nline\n"}
    refused(directory, "is_directory")
    refused(fifo, "not_a_file")  # opening it would wait for a writer forever
    assert all(o["error"]["code"] == -32602 for o in outcomes if o is not missing and "error" in o)


async def test_writes_are_atomic_keep_the_mode_and_show_in_the_turn(conn: Any, project: Path) -> None:
    target = project / "notes.txt"
    target.chmod(0o640)
    session = await conn.new_session(project)
    result = await session.prompt(
        json.dumps(
            [
                {"op": "write", "path": str(target), "content": "one\n2\nthree\nfour\nfive\n"},
                {"op": "write", "path": str(project / "sub" / "new.txt"), "content": "a\nb\n"},
            ]
        )
    )
    assert json.loads(result.text) == [{"ok": "written"}, {"ok": "written"}]
    assert target.read_text() == "one\n2\nthree\nfour\nfive\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert (project / "sub" / "new.txt").read_text() == "a\nb\n"
    assert not [p for p in project.rglob("*.nbacp-tmp")]  # no temporary file left
    assert not result.answers  # a write is the agent's act, not the person's answer
    record = result.record.replace("\\", "")  # the markdown's escapes
    assert "fs/write_text_file · edited · completed · notes.txt +2 -1" in record
    assert "fs/write_text_file · edited · completed · sub/new.txt +2 -0 (new)" in record


async def test_write_refusals_outside_symlink_and_the_open_notebook(
    conn: Any, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook = project / "analysis.ipynb"
    notebook.write_text("{}")
    monkeypatch.setenv("JPY_SESSION_NAME", str(notebook))  # what jupyter_server gives the kernel
    (project / "escape").symlink_to(tmp_path / "secret.txt")
    (project / "nb-link.ipynb").symlink_to(notebook)
    session = await conn.new_session(project)
    outcomes = await run(
        session,
        {"op": "write", "path": str(tmp_path / "elsewhere.txt"), "content": "x"},
        {"op": "write", "path": str(project / "escape"), "content": "x"},
        {"op": "write", "path": str(notebook), "content": '{"cells": []}'},
        {"op": "write", "path": str(project / "nb-link.ipynb"), "content": "{}"},
        {"op": "write", "path": str(project / "other.ipynb"), "content": "{}"},
    )
    refused(outcomes[0], "outside_roots")
    refused(outcomes[1], "outside_roots")
    message = refused(outcomes[2], "notebook_open")
    assert "notebook_read, notebook_edit" in message and "show the cells in your answer" in message
    refused(outcomes[3], "notebook_open")
    assert outcomes[4] == {"ok": "written"}  # another notebook, not open here
    assert not (tmp_path / "elsewhere.txt").exists()
    assert (tmp_path / "secret.txt").read_text() == "outside" and notebook.read_text() == "{}"


async def test_additional_directories_are_roots_too(tmp_path: Path, project: Path) -> None:
    extra = tmp_path / "data"
    extra.mkdir()
    (extra / "table.csv").write_text("a,b\n")
    async with nbacp.connect(ClientMethodsAgent()) as conn:
        plain = await conn.new_session(project)
        wider = await conn.new_session(project, additional_directories=[extra])
        step = {"op": "read", "path": str(extra / "table.csv")}
        refused((await run(plain, step))[0], "outside_roots")
        assert await run(wider, step) == [{"ok": "a,b\n"}]


@pytest.mark.parametrize("fs", [False, "write"])
async def test_fs_off_is_not_advertised_and_answers_method_not_found(fs: Any, project: Path) -> None:
    agent = ClientMethodsAgent()
    async with nbacp.connect(agent, fs=fs) as conn:
        session = await conn.new_session(project)
        read, write = await run(
            session,
            {"op": "read", "path": str(project / "notes.txt")},
            {"op": "write", "path": str(project / "n.txt"), "content": "x"},
        )
    caps = agent.client_capabilities
    assert caps is not None and caps.fs is not None
    assert caps.fs.read_text_file is False and caps.fs.write_text_file is (fs == "write")
    assert read["error"]["code"] == -32601
    assert (write == {"ok": "written"}) if fs == "write" else write["error"]["code"] == -32601


def test_running_notebook_from_a_relative_session_name(tmp_path: Path) -> None:
    """jupyter_server gives the path relative to its root; the kernel runs in the notebook's folder."""
    found = open_notebooks.running_notebook({"JPY_SESSION_NAME": "work/analysis.ipynb"}, cwd=str(tmp_path))
    assert Path(os.path.realpath(tmp_path / "analysis.ipynb")) in found
    assert open_notebooks.running_notebook({}, cwd=str(tmp_path)) == set()
