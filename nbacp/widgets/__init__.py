"""The rendering layer: cards a person answers and the live view of a turn.

It knows the form model, never the protocol transport. Names resolve lazily so that
importing one card does not build the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "Card": "nbacp.widgets.card",
    "FormCard": "nbacp.widgets.form_card",
    "UrlConsentCard": "nbacp.widgets.url_card",
    "PermissionCard": "nbacp.widgets.permission_card",
    "ReviewCard": "nbacp.widgets.review_card",
    "Transcript": "nbacp.widgets.transcript",
    "AuthCard": "nbacp.widgets.auth_card",
    "SessionToolbar": "nbacp.widgets.toolbar",
}

__all__ = [
    "AuthCard",
    "Card",
    "FormCard",
    "PermissionCard",
    "ReviewCard",
    "SessionToolbar",
    "Transcript",
    "UrlConsentCard",
]

if TYPE_CHECKING:
    from nbacp.widgets.auth_card import AuthCard
    from nbacp.widgets.card import Card
    from nbacp.widgets.form_card import FormCard
    from nbacp.widgets.permission_card import PermissionCard
    from nbacp.widgets.review_card import ReviewCard
    from nbacp.widgets.toolbar import SessionToolbar
    from nbacp.widgets.transcript import Transcript
    from nbacp.widgets.url_card import UrlConsentCard


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nbacp.widgets' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # looked up once: the client names widgets.FormCard per request
    return value
