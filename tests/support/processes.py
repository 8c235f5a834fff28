"""Which processes of a process group are still alive, read from /proc (Linux).

A zombie does not count: it has ended and only waits to be reaped, which in a container whose
PID 1 does not reap (as here) never happens to an orphan.
"""

from __future__ import annotations

from pathlib import Path


def live_in_group(pgid: int) -> list[int]:
    """The pids of the group's processes that are not zombies."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # it ended while we looked
            continue
        fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) ": state ppid pgrp ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive
