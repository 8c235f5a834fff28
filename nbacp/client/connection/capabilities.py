"""Which session methods the agent advertised in ``initialize``, and the refusal when it did not.

A call the agent did not advertise is refused here, naming the capability, instead of being sent
and answered "Method not found": ``agentCapabilities.loadSession`` (load),
``agentCapabilities.auth.logout`` (logout), ``sessionCapabilities.<method>`` for list, resume,
fork, close, delete and additional directories. Pure: it reads the SDK's typed capabilities.
"""

from __future__ import annotations

from typing import Any

from nbacp.errors import NotSupportedByAgentError

WHERE = {
    "load": "agentCapabilities.loadSession",
    "logout": "agentCapabilities.auth.logout",
    "additional_directories": "sessionCapabilities.additionalDirectories",
}
"""Where a method's capability lives, when not at ``sessionCapabilities.<method>``."""
WHAT = {"logout": "logout", "additional_directories": "additional directories"}
"""How a refusal names a method, when not as ``session/<method>``."""


def supports(capabilities: Any, method: str) -> bool:
    """Whether ``capabilities`` (the SDK's ``AgentCapabilities``, or None before ``initialize``)
    advertise ``method``: "load", "list", "resume", "fork", "close", "delete",
    "additional_directories" or "logout"."""
    if capabilities is None:
        return False
    if method == "load":
        return bool(getattr(capabilities, "load_session", False))
    if method == "logout":
        return getattr(getattr(capabilities, "auth", None), "logout", None) is not None
    session_caps = getattr(capabilities, "session_capabilities", None)
    return getattr(session_caps, method, None) is not None


def require(capabilities: Any, method: str) -> None:
    """Raise ``NotSupportedByAgentError`` naming the capability unless ``method`` is advertised."""
    if not supports(capabilities, method):
        where = WHERE.get(method, f"sessionCapabilities.{method}")
        what = WHAT.get(method, f"session/{method}")
        raise NotSupportedByAgentError(
            f"The agent does not support {what} (it does not advertise {where} in initialize)."
        )
