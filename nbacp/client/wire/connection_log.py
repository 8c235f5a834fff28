"""The connection's log: one-line notes of what went wrong, instead of tracebacks in a cell.

The SDK logs failures with ``logging.exception`` on the root logger; in a kernel that prints a
traceback into whichever cell runs. Records from the SDK made inside a connection's tasks go
to that connection's ``ConnectionLog`` as one line (``routing``), and the log's listeners show
it in the running turn.
"""

from __future__ import annotations

import contextvars
import importlib.util
import logging
import os
from collections import deque
from collections.abc import Callable, Iterator

from nbacp.render.safe_text import comm_safe

log = logging.getLogger(__name__)
_CURRENT_LOG: contextvars.ContextVar[ConnectionLog | None] = contextvars.ContextVar("nbacp_log", default=None)


def _package_dirs(*names: str) -> tuple[str, ...]:
    """The folders of the installed packages among ``names`` (acpremote is optional), never importing them."""
    dirs: list[str] = []
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            dirs.extend(os.path.join(path, "") for path in spec.submodule_search_locations)
    return tuple(dirs)


_SDK_DIRS = _package_dirs("acp", "acpremote")


class ConnectionLog:
    """What went wrong on one connection, as one-line notes (bounded), shown in the running turn."""

    def __init__(self, limit: int = 200) -> None:
        self.lines: deque[str] = deque(maxlen=limit)
        self.listeners: list[Callable[[str], None]] = []

    def note(self, line: str) -> None:
        line = comm_safe(" ".join(line.split()))
        if len(line) > 500:
            line = line[:499] + "…"
        self.lines.append(line)
        log.debug("%s", line)
        for listener in list(self.listeners):
            try:
                listener(line)
            except Exception as exc:  # a view that cannot show the note must not break the connection
                log.debug("connection log listener failed: %r", exc)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.lines))

    def __len__(self) -> int:
        return len(self.lines)

    def __repr__(self) -> str:
        return f"ConnectionLog({len(self.lines)} lines)"


class _SdkRecords(logging.Filter):
    """On the root logger (and acp's): SDK records made in a guarded connection's tasks become one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        target = _CURRENT_LOG.get()
        if target is None or not (record.pathname.startswith(_SDK_DIRS) or record.name.startswith("acp")):
            return True
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            text = f"{text}: {type(exc).__name__}: {exc}"
        target.note(f"agent connection: {text}")
        return False


_FILTER = _SdkRecords()


def _install_filter() -> None:
    for name in ("", "acp", "acpremote"):
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


def routing(conn_log: ConnectionLog) -> contextvars.Token[ConnectionLog | None]:
    """Route SDK log records of tasks created from now on (in this context) to ``conn_log``.

    Call before the SDK connection is built (its tasks copy the context when created) and
    ``reset_routing`` right after, so the caller's own context is left as it was.
    """
    _install_filter()
    return _CURRENT_LOG.set(conn_log)


def reset_routing(token: contextvars.Token[ConnectionLog | None]) -> None:
    _CURRENT_LOG.reset(token)
