"""Count what Python would send to the front end, without a kernel.

Every widget created while ``CountingComms`` is active gets a comm that tallies its
outgoing messages and their JSON size instead of publishing them, the same way
tests/support/comm_support.py records them for tests.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import comm
from comm.base_comm import BaseComm


@dataclass
class Tally:
    opens: int = 0
    updates: int = 0
    bytes: int = 0

    @property
    def messages(self) -> int:
        return self.opens + self.updates


class _CountingComm(BaseComm):
    def __init__(self, tally: Tally, **kwargs: Any) -> None:
        self._tally = tally
        super().__init__(**kwargs)

    def publish_msg(self, msg_type: str, data: dict[str, Any] | None = None, *args: Any, **kwargs: Any) -> None:
        payload = data or {}
        if msg_type == "comm_open":
            self._tally.opens += 1
        elif msg_type == "comm_msg" and payload.get("method") in ("update", "custom"):
            self._tally.updates += 1  # a custom message (the turn view's patches) is traffic too
        else:
            return
        self._tally.bytes += len(json.dumps(payload, default=str))


@contextmanager
def counting_comms() -> Iterator[Tally]:
    """Widgets created inside the block report to the yielded ``Tally``."""
    tally = Tally()
    original = comm.create_comm

    def create(*args: Any, **kwargs: Any) -> BaseComm:
        return _CountingComm(tally, *args, **kwargs)

    comm.create_comm = create
    try:
        yield tally
    finally:
        comm.create_comm = original
