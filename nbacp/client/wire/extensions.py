"""One-line texts for what agents send outside ACP's typed updates.

Extension notifications (``_auth/status_update``, ``_codex/...``) and the status some agents
keep only in ``_meta`` (codex's retry / error status on ``session_info_update``) would
otherwise be dropped; the person sees one plain line each, with the reason when there is one.
"""

from __future__ import annotations

import json
from typing import Any

MAX_LINE = 300
_STATUS_KEYS = ("status", "state", "phase", "kind", "type")
_REASON_KEYS = ("reason", "message", "error", "detail", "details", "description")
_COUNT_KEYS = ("attempt", "retry", "retries", "retryAttempt", "maxAttempts", "delayMs", "retryInMs")


def clip(text: str, limit: int = MAX_LINE) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(value)


def notification_line(method: str, params: Any) -> str:
    """``_auth/status_update`` + ``{"status": "ok", "account": "a"}`` -> "auth/status_update: status ok, account a"."""
    name = method.lstrip("_")
    if isinstance(params, dict):
        shown = {k: v for k, v in params.items() if k not in ("sessionId", "_meta")}
        body = ", ".join(f"{k} {_compact(v)}" for k, v in shown.items())
    else:
        body = _compact(params)
    return clip(f"{name}: {body}" if body else name)


def status_text(data: dict[str, Any]) -> str:
    """ "retrying (attempt 2): rate limited" from any dict that has a status and/or a reason."""
    status = next((str(data[k]) for k in _STATUS_KEYS if isinstance(data.get(k), str | int)), "")
    reason = next((_compact(data[k]) for k in _REASON_KEYS if data.get(k) not in (None, "", {})), "")
    counts = [f"{k} {data[k]}" for k in _COUNT_KEYS if isinstance(data.get(k), int | float | str)]
    if not status and not reason:
        return ""
    text = status or "status"
    if counts:
        text += f" ({', '.join(counts)})"
    if reason:
        text += f": {reason}"
    return text


def meta_status(meta: Any) -> str:
    """The status an agent put in ``_meta`` (any namespace, e.g. ``{"codex": {"status": ...}}``), or ""."""
    if not isinstance(meta, dict):
        return ""
    found = []
    direct = status_text(meta)
    if direct:
        found.append(direct)
    for key, value in meta.items():
        if isinstance(value, dict):
            text = status_text(value)
            if text:
                found.append(f"{key}: {text}")
    return clip("; ".join(found))
