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
    "FormCard": "nbacp.widgets",
    "UrlConsentCard": "nbacp.widgets",
    "PermissionCard": "nbacp.widgets",
    "NotebookClient": "nbacp.client",
    "Connection": "nbacp.client",
    "Session": "nbacp.client",
    "Turn": "nbacp.client",
    "PromptResult": "nbacp.client",
    "connect": "nbacp.client",
    "kernel_tools": "nbacp.client.tools",
    "NbacpError": "nbacp.errors",
    "ConnectError": "nbacp.errors",
    "ConnectionLostError": "nbacp.errors",
    "AgentError": "nbacp.errors",
    "AuthenticationError": "nbacp.errors",
    "NotSupportedError": "nbacp.errors",
    "NotSupportedByAgentError": "nbacp.errors",
    "ToolsNotSupportedError": "nbacp.errors",
    "ElicitationNotSupportedError": "nbacp.errors",
    "QuestionReplyError": "nbacp.errors",
    "InvalidQuestionResponseError": "nbacp.errors",
    "InvalidQuestionFallbackError": "nbacp.errors",
    "InvalidSchemaError": "nbacp.errors",
    "FormValidationError": "nbacp.errors",
    "AttachmentError": "nbacp.errors",
    "ScriptError": "nbacp.errors",
    "MagicError": "nbacp.errors",
    "CellWaitUnavailableError": "nbacp.errors",
    "NotebookUnavailableError": "nbacp.errors",
}

__all__ = [
    "AgentError",
    "AttachmentError",
    "AuthenticationError",
    "CellWaitUnavailableError",
    "ConnectError",
    "Connection",
    "ConnectionLostError",
    "ElicitationNotSupportedError",
    "Form",
    "FormCard",
    "FormValidationError",
    "InvalidQuestionFallbackError",
    "InvalidQuestionResponseError",
    "InvalidSchemaError",
    "MagicError",
    "NbacpError",
    "NotSupportedByAgentError",
    "NotSupportedError",
    "NotebookClient",
    "NotebookUnavailableError",
    "PermissionCard",
    "PromptResult",
    "QuestionReplyError",
    "ScriptError",
    "Session",
    "ToolsNotSupportedError",
    "Turn",
    "UrlConsentCard",
    "__version__",
    "connect",
    "kernel_tools",
]

if TYPE_CHECKING:
    from nbacp.client import Connection, NotebookClient, PromptResult, Session, Turn, connect
    from nbacp.client.tools import kernel_tools
    from nbacp.errors import (
        AgentError,
        AttachmentError,
        AuthenticationError,
        CellWaitUnavailableError,
        ConnectError,
        ConnectionLostError,
        ElicitationNotSupportedError,
        FormValidationError,
        InvalidQuestionFallbackError,
        InvalidQuestionResponseError,
        InvalidSchemaError,
        MagicError,
        NbacpError,
        NotebookUnavailableError,
        NotSupportedByAgentError,
        NotSupportedError,
        QuestionReplyError,
        ScriptError,
        ToolsNotSupportedError,
    )
    from nbacp.form import Form
    from nbacp.widgets import FormCard, PermissionCard, UrlConsentCard


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
