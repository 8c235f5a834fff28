"""nbacp: a Jupyter notebook as a first-class Agent Client Protocol client.

Exports are lazy so that ``import nbacp`` (and ``import nbacp.form``) never pulls in
ipywidgets or the protocol stack until a name that needs them is touched.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from nbacp._version import __version__

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
    "FormCard": "nbacp.widgets",
    "NbacpError": "nbacp.errors",
    "ConnectError": "nbacp.errors",
    "ConnectionLost": "nbacp.errors",
    "AgentError": "nbacp.errors",
    "AuthenticationError": "nbacp.errors",
    "NotSupportedByAgent": "nbacp.errors",
    "AttachmentError": "nbacp.client.attachments",
    "ToolsUnsupportedError": "nbacp.client.tools",
    "ScriptError": "nbacp.answers",
    "MagicError": "nbacp.magics",
    "ElicitationUnsupportedError": "nbacp.questions",
    "InvalidQuestionResponse": "nbacp.questions",
    "InvalidQuestionFallback": "nbacp.questions",
}

__all__ = [
    "AgentError",
    "AttachmentError",
    "AuthenticationError",
    "ConnectError",
    "Connection",
    "ConnectionLost",
    "ElicitationForm",
    "ElicitationUnsupportedError",
    "Form",
    "FormCard",
    "FormValidationError",
    "InvalidQuestionFallback",
    "InvalidQuestionResponse",
    "InvalidSchemaError",
    "MagicError",
    "NbacpError",
    "NotSupportedByAgent",
    "NotebookClient",
    "PermissionCard",
    "PromptResult",
    "ScriptError",
    "Session",
    "ToolsUnsupportedError",
    "Turn",
    "UrlConsentCard",
    "__version__",
    "connect",
    "kernel_tools",
]

if TYPE_CHECKING:
    from nbacp.answers import ScriptError
    from nbacp.client import Connection, NotebookClient, PromptResult, Session, Turn, connect
    from nbacp.client.attachments import AttachmentError
    from nbacp.client.tools import ToolsUnsupportedError, kernel_tools
    from nbacp.errors import (
        AgentError,
        AuthenticationError,
        ConnectError,
        ConnectionLost,
        NbacpError,
        NotSupportedByAgent,
    )
    from nbacp.form import Form, FormValidationError, InvalidSchemaError
    from nbacp.magics import MagicError
    from nbacp.questions import ElicitationUnsupportedError, InvalidQuestionFallback, InvalidQuestionResponse
    from nbacp.widgets import ElicitationForm, FormCard, PermissionCard, UrlConsentCard


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext nbacp``: the ``%%agent`` / ``%agent`` magics (see ``nbacp.magics``)."""
    # Imported here, not at the top: ``import nbacp`` stays free of IPython and the client
    # (the root is a lazy facade, tests/form/test_form_import.py); only ``%load_ext`` needs them.
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
