"""The first unstable elicitation methods, accepted inbound under their old names.

Before ACP PR #792 (2026-04-09) an elicitation was ``session/elicitation`` and its end
``session/elicitation/complete``; a few bridges still send them. nbacp answers each as the
current method (``elicitation/create``, ``elicitation/complete``) and replies to the old request
in its old shape, the action nested one level down: ``{"action": {"action", "content"}}``.
nbacp never sends the old names.
"""

from __future__ import annotations

from typing import Any

OLD_NAMES = {
    "session/elicitation": "elicitation/create",
    "session/elicitation/complete": "elicitation/complete",
}
"""Old method name: the current one it is answered as."""


def current_params(old: str, params: Any) -> Any:
    """An old request's params as the current method takes them: a form or URL ``mode`` when
    the old request named none (the first drafts had only forms, told by ``requestedSchema``)."""
    if old != "session/elicitation" or not isinstance(params, dict) or "mode" in params:
        return params
    if "url" in params and "requestedSchema" not in params:
        return {**params, "mode": "url"}
    return {**params, "mode": "form"}


def old_reply(old: str, result: Any) -> Any:
    """The reply in the old method's shape: ``session/elicitation`` nests the action object."""
    if old != "session/elicitation" or not isinstance(result, dict):
        return result
    return {"action": result}
