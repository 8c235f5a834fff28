"""ECMA-262 pattern matching in a child process that is killed when its time is up.

Agent patterns are ECMAScript regular expressions (ACP and MCP inherit JSON Schema's rule),
evaluated here by ``regress``, the Rust ECMA-262 engine. That engine holds the GIL and has no
timeout or step limit, so it runs in ``ecma_worker.py``: a call that outlives its time kills
the worker (the next call starts a new one), and the worker's memory is capped and recycled,
so an agent's pattern can cost the kernel neither unbounded time nor memory.
"""

from __future__ import annotations

import atexit
import contextlib
import enum
import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

WORKER: Final = Path(__file__).with_name("ecma_worker.py")
START_TIMEOUT: Final = 10.0
"""Seconds a new worker may take to start (a cold start on a loaded machine); not a match budget."""
RETRY_AFTER: Final = 30.0
"""After a worker failed to start, checks report the engine unavailable for this long, not wait again."""


class Outcome(enum.Enum):
    MATCH = "match"
    NO_MATCH = "nomatch"
    INVALID = "invalid"  # the engine cannot compile the pattern
    BAD_TEXT = "badtext"  # the text is not valid Unicode (a lone surrogate)
    TIMEOUT = "timeout"  # the match outlived its time; the worker was killed
    CRASHED = "crashed"  # the worker died on this pattern (its memory cap)
    UNAVAILABLE = "unavailable"  # no worker could be started


@dataclass(frozen=True)
class Result:
    outcome: Outcome
    detail: str = ""


class _Worker:
    """One running child; ``replies`` is filled by a reader thread so reads can time out."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            bufsize=1,
            start_new_session=os.name == "posix",  # the kernel's stop button must not reach it
        )
        self.replies: queue.Queue[str | None] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True, name="nbacp-ecma").start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.replies.put(line)
        self.replies.put(None)

    def reply(self, timeout: float) -> dict[str, object] | None:
        """The next reply; None on EOF; raises queue.Empty on timeout."""
        line = self.replies.get(timeout=max(timeout, 0.0))
        if line is None:
            return None
        try:
            data = json.loads(line)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # a kill that did not land: leave it
            self.process.wait(timeout=5)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


class Engine:
    """The process-wide ECMA pattern engine; thread-safe; starts its worker on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._worker: _Worker | None = None
        self.started = 0  # workers started so far (tests and benchmarks read it)
        self._failed_at: float | None = None

    def search(self, pattern: str, text: str, timeout: float) -> Result:
        """Does ``pattern`` match anywhere in ``text`` (JSON Schema's unanchored rule)?"""
        deadline = time.monotonic() + timeout
        if not self._lock.acquire(timeout=max(timeout, 0.0)):
            return Result(Outcome.TIMEOUT, "another check held the engine past this one's time")
        try:
            return self._search(pattern, text, deadline)
        finally:
            self._lock.release()

    def _search(self, pattern: str, text: str, deadline: float) -> Result:
        worker = self._running()
        if worker is None:
            return Result(Outcome.UNAVAILABLE, "the pattern engine could not be started")
        request = json.dumps({"p": pattern, "t": text}) + "\n"  # ASCII: lone surrogates travel escaped
        try:
            assert worker.process.stdin is not None
            worker.process.stdin.write(request)
            worker.process.stdin.flush()
        except (OSError, ValueError):
            self._discard()
            return Result(Outcome.CRASHED, "the pattern engine stopped")
        try:
            reply = worker.reply(deadline - time.monotonic())
        except queue.Empty:
            self._discard()
            return Result(Outcome.TIMEOUT)
        if reply is None:
            self._discard()
            return Result(Outcome.CRASHED, "the pattern engine ran out of memory on this pattern")
        if reply.get("bye"):
            self._discard()
        try:
            outcome = Outcome(reply.get("r"))
        except ValueError:
            return Result(Outcome.CRASHED, "the pattern engine gave an unreadable reply")
        detail = reply.get("m")
        return Result(outcome, detail if isinstance(detail, str) else "")

    def _running(self) -> _Worker | None:
        if self._worker is not None and self._worker.process.poll() is None:
            return self._worker
        self._discard()
        if not sys.executable or (self._failed_at is not None and time.monotonic() - self._failed_at < RETRY_AFTER):
            return None
        try:
            worker = _Worker()
        except OSError:
            self._failed_at = time.monotonic()
            return None
        self.started += 1
        try:
            ready = worker.reply(START_TIMEOUT)
        except queue.Empty:
            ready = None
        if ready is None or ready.get("r") != "ready":
            worker.stop()
            self._failed_at = time.monotonic()
            return None
        self._failed_at = None
        self._worker = worker
        return worker

    def _discard(self) -> None:
        if self._worker is not None:
            self._worker.stop()
            self._worker = None

    def close(self) -> None:
        with self._lock:
            self._discard()

    @property
    def pid(self) -> int | None:
        """The running worker's process id (for measuring its memory), if one runs."""
        worker = self._worker
        return worker.process.pid if worker is not None and worker.process.poll() is None else None


ENGINE: Final = Engine()
atexit.register(ENGINE.close)
