"""nbacp: a Jupyter notebook as a first-class Agent Client Protocol client.

Exports are lazy so that ``import nbacp`` (and ``import nbacp.form``) never pulls in
ipywidgets or the protocol stack until a name that needs them is touched.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Form": "nbacp.form",
    "FormValidationError": "nbacp.form",
    "InvalidSchemaError": "nbacp.form",
    "ElicitationForm": "nbacp.widgets",
    "UrlConsentCard": "nbacp.widgets",
    "PermissionCard": "nbacp.widgets",
    "NotebookClient": "nbacp.client",
    "Connection": "nbacp.client",
    "Session": "nbacp.client",
    "Turn": "nbacp.client",
    "PromptResult": "nbacp.client",
    "connect": "nbacp.client",
    "kernel_tools": "nbacp.client.tools",
}

__all__ = [
    "Connection",
    "ElicitationForm",
    "Form",
    "FormValidationError",
    "InvalidSchemaError",
    "NotebookClient",
    "PermissionCard",
    "PromptResult",
    "Session",
    "Turn",
    "UrlConsentCard",
    "__version__",
    "connect",
    "kernel_tools",
]

if TYPE_CHECKING:
    from nbacp.client import Connection, NotebookClient, PromptResult, Session, Turn, connect
    from nbacp.client.tools import kernel_tools
    from nbacp.form import Form, FormValidationError, InvalidSchemaError
    from nbacp.widgets import ElicitationForm, PermissionCard, UrlConsentCard


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext nbacp``: the ``%%agent`` / ``%agent`` magics (see ``nbacp.magics``)."""
    from nbacp.magics import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from nbacp.magics import unload_ipython_extension as unload

    unload(ipython)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nbacp' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
