"""Front-end edit tracking: whether the widgets may still hold edits the kernel has not seen.

The widget front end sends a model's next edit only after the kernel reported idle for the
previous one; when the kernel was busy, a click can overtake edits made before it.
"""

from __future__ import annotations

import contextlib
import datetime
import time
from collections.abc import Iterable
from typing import Any

from nbacp.kernel import versions

#: before nbacp assumes the front end is still holding later edits (network jitter margin).
EDIT_LAG_TOLERANCE = 0.25

LATE_EDITS_MESSAGE = (
    "The kernel was busy when you answered, so your last changes may not have reached it yet "
    "(the widgets send a field's next change only after the kernel took the previous one). "
    "Nothing was sent: check the answer above and press Accept again."
)

#: After the kernel took a widget's edit, how long the front end may still be about to send the
#: edit it held meanwhile (one round trip for the idle status and the held edit). A click that
#: comes sooner is answered only after this much time, with whatever arrived by then.
EDIT_SETTLE_SECONDS = 0.3

# comm_id -> (the front end's send time of its last state edit, kernel monotonic time handled)
_LAST_EDITS: dict[str, tuple[datetime.datetime, float]] = {}


def _message_date(header: Any) -> datetime.datetime | None:
    value = header.get("date") if isinstance(header, dict) else None
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if not isinstance(value, datetime.datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=datetime.UTC)


def track_front_end_edits() -> bool:
    """Record when each widget state edit from the front end was sent and handled; idempotent.

    The widget front end sends a model's next edit only after the kernel reported idle for the
    previous one. When the kernel is busy (another cell runs), a first edit and a later click
    wait together, while the edits made in between are still in the browser: handling the
    click would answer with a partial draft. :func:`edits_may_lag` tells that case apart.
    """
    kernel = versions.current_kernel() if versions.running_in_kernel() else None
    handlers = getattr(kernel, "shell_handlers", None)
    if kernel is None or not isinstance(handlers, dict) or "comm_msg" not in handlers:
        return False
    if getattr(kernel, "_nbacp_edit_tracking", False):
        return True
    original = handlers["comm_msg"]

    def comm_msg(stream: Any, idents: Any, msg: Any) -> Any:
        with contextlib.suppress(Exception):
            content = msg.get("content", {})
            data = content.get("data", {})
            sent = _message_date(msg.get("header"))
            if isinstance(data, dict) and data.get("method") == "update" and sent is not None:
                _LAST_EDITS[str(content.get("comm_id"))] = (sent, time.monotonic())
        return original(stream, idents, msg)

    handlers["comm_msg"] = comm_msg
    kernel._nbacp_edit_tracking = True
    return True


def edit_settle_delay(comm_ids: Iterable[str]) -> float:
    """Seconds to wait before answering a front-end click, so an edit held by the front end
    until the kernel's idle for the previous one can still arrive (0: answer now).

    Only for a click being handled now (Python-side answers: 0), and only when one of the
    widgets was edited less than :data:`EDIT_SETTLE_SECONDS` ago.
    """
    if _front_end_header() is None:
        return 0.0
    now = time.monotonic()
    last = max((_LAST_EDITS[c][1] for c in comm_ids if c in _LAST_EDITS), default=None)
    return 0.0 if last is None else max(0.0, last + EDIT_SETTLE_SECONDS - now)


def _front_end_header() -> dict[str, Any] | None:
    """The header of the comm message being handled right now, if any."""
    kernel = versions.current_kernel() if versions.running_in_kernel() else None
    if kernel is None:
        return None
    try:
        header = kernel.get_parent("shell").get("header", {})
    except Exception:
        return None
    return header if isinstance(header, dict) and header.get("msg_type") == "comm_msg" else None


def edits_may_lag(comm_ids: Iterable[str]) -> bool:
    """Whether the front end may still hold edits of these widgets that the kernel has not seen.

    Called while handling a front-end action (a click). True when one of the widgets' last
    edits waited in the kernel noticeably longer than this action did, i.e. both were queued
    behind other work: the front end then held any later edit until after the action was sent.
    Python-side calls (headless policies, tests without a kernel) are never held back: False.
    """
    header = _front_end_header()
    if header is None:
        return False
    clicked = _message_date(header)
    if clicked is None:
        return False
    now = time.monotonic()
    for comm_id in comm_ids:
        edit = _LAST_EDITS.get(comm_id)
        if edit is None:
            continue
        sent_gap = (clicked - edit[0]).total_seconds()
        handled_gap = now - edit[1]
        if sent_gap - handled_gap > EDIT_LAG_TOLERANCE:
            return True
    return False
