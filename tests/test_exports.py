"""The public surface of ``nbacp``: exactly these names, each resolving, errors all under NbacpError."""

from __future__ import annotations

import nbacp

PUBLIC = [
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
ERRORS = {
    "AgentError": RuntimeError,
    "AttachmentError": ValueError,
    "AuthenticationError": RuntimeError,
    "ConnectError": ConnectionError,
    "ConnectionLost": ConnectionError,
    "ElicitationUnsupportedError": RuntimeError,
    "FormValidationError": ValueError,
    "InvalidQuestionFallback": ValueError,
    "InvalidQuestionResponse": RuntimeError,
    "InvalidSchemaError": ValueError,
    "MagicError": Exception,  # IPython's UsageError
    "NotSupportedByAgent": RuntimeError,
    "ScriptError": ValueError,
    "ToolsUnsupportedError": RuntimeError,
}


def test_all_is_pinned() -> None:
    assert sorted(nbacp.__all__) == nbacp.__all__ == PUBLIC
    assert sorted(dir(nbacp)) == PUBLIC


def test_every_name_resolves() -> None:
    for name in PUBLIC:
        assert getattr(nbacp, name) is not None, name


def test_every_error_is_an_nbacp_error_and_keeps_its_standard_base() -> None:
    exported = {name for name in PUBLIC if isinstance(getattr(nbacp, name), type)
                and issubclass(getattr(nbacp, name), BaseException) and name != "NbacpError"}
    assert exported == set(ERRORS)
    for name, standard in ERRORS.items():
        error = getattr(nbacp, name)
        assert issubclass(error, nbacp.NbacpError) and issubclass(error, standard), name
        # NbacpError first, the standard base second (AuthenticationError inherits both through AgentError)
        assert error.__mro__[1] is nbacp.NbacpError or name == "AuthenticationError", name


def test_the_old_names_are_the_same_objects() -> None:
    from nbacp import form, widgets

    assert nbacp.ElicitationForm is nbacp.FormCard is widgets.FormCard is widgets.ElicitationForm
    assert form.Option is form.ChoiceOption and form.Question is form.FormQuestion


def test_the_version_has_one_home() -> None:
    from importlib.metadata import version

    from nbacp._version import __version__

    assert nbacp.__version__ == __version__ == version("nbacp")
