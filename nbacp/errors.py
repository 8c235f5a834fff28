"""Every error nbacp raises to a user, each saying what happened in plain words.

The tree (a standard base in parentheses is the class's second base, inherited by its subclasses)::

    NbacpError
        ConnectError (ConnectionError)
        ConnectionLostError (ConnectionError)
        AgentError (RuntimeError)
            AuthenticationError
        NotSupportedError (RuntimeError)
            NotSupportedByAgentError
                ToolsNotSupportedError
            ElicitationNotSupportedError
        QuestionReplyError
            InvalidQuestionResponseError (RuntimeError)
            InvalidQuestionFallbackError (ValueError)
        InvalidSchemaError (ValueError)
        FormValidationError (ValueError)
        AttachmentError (ValueError)
        ScriptError (ValueError)
        MagicError
        CellWaitUnavailableError (RuntimeError)
        NotebookUnavailableError (RuntimeError)

``except nbacp.NbacpError`` catches anything nbacp raised; the standard second base keeps
``except ValueError:`` and the like working. Errors that one handler treats alike share a base:
a capability the other side lacks, a reply that does not answer the questions asked. The table
of when each is raised and what to do is docs/errors.md; tests/test_exports.py holds this tree
to the classes.

This module imports nothing but the standard library, so every layer may import it and the
pure form model stays light. That is why ``MagicError`` has no IPython ``UsageError`` base:
importing IPython would load it into every process that imports any nbacp error (the agent
side, the form model). IPython prints a short usage message only for exactly ``UsageError``,
so the magics turn a ``MagicError`` into one at their boundary (``nbacp.magics``).
"""

from __future__ import annotations

from collections.abc import Mapping


class NbacpError(Exception):
    """The base of every error nbacp raises to a user (see docs/errors.md)."""


class ConnectError(NbacpError, ConnectionError):
    """The agent could not be reached or refused the connection (wrong token, bad command, no server)."""


class ConnectionLostError(NbacpError, ConnectionError):
    """The agent went away mid-turn (process exited, websocket dropped, connection closed)."""


class AgentError(NbacpError, RuntimeError):
    """The agent answered a request with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        self.code = code
        self.data = data
        super().__init__(f"The agent answered with error {code}: {message}" + (f" ({data})" if data else ""))


class AuthenticationError(AgentError):
    """Authentication with one of the agent's methods failed; names the method and the agent's reason."""

    def __init__(self, method_id: str, code: int, message: str, data: object = None) -> None:
        self.method_id = method_id
        AgentError.__init__(self, code, message, data)
        reason = f"{message} ({data})" if data else message
        self.args = (f"Authentication with method {method_id!r} failed: the agent answered {code}: {reason}",)


class NotSupportedError(NbacpError, RuntimeError):
    """The other side did not advertise a capability the call needs; nothing was sent."""


class NotSupportedByAgentError(NotSupportedError):
    """The agent does not advertise the capability a call needs (e.g. ``session/list``)."""


class ToolsNotSupportedError(NotSupportedByAgentError):
    """The agent cannot be given the kernel tools (it accepts no MCP transport nbacp can serve)."""


class ElicitationNotSupportedError(NotSupportedError):
    """Agent side: the client did not advertise form elicitation and no fallback was given.

    nbacp's own class (not pydantic-acp's) so that nbacp.questions imports without ACP Kit.
    """


class QuestionReplyError(NbacpError):
    """A reply to ``ask_questions`` does not answer the questions that were asked.

    ``question_id`` names the offending question; it is ``None`` when the reply as a whole is
    malformed (wrong envelope, unknown action).
    """

    def __init__(self, message: str, question_id: str | None = None) -> None:
        super().__init__(message)
        self.question_id = question_id


class InvalidQuestionResponseError(QuestionReplyError, RuntimeError):
    """The client's reply breaks the questions' rules: a broken client."""


class InvalidQuestionFallbackError(QuestionReplyError, ValueError):
    """A fallback returned something that could not have come from the offered questions."""


class InvalidSchemaError(NbacpError, ValueError):
    """The agent sent a schema that cannot be read as an ACP elicitation form.

    The message names the offending property so that the client can answer the agent with a
    JSON-RPC -32602 that says what to fix.
    """


class FormValidationError(NbacpError, ValueError):
    """The values do not make a schema-conforming answer; ``errors`` maps property to messages."""

    def __init__(self, errors: Mapping[str, list[str]]) -> None:
        self.errors: dict[str, list[str]] = {name: list(messages) for name, messages in errors.items()}
        summary = "; ".join(f"{name}: {' '.join(messages)}" for name, messages in self.errors.items())
        super().__init__(f"The answer does not fit the form: {summary}")


class AttachmentError(NbacpError, ValueError):
    """An object cannot be sent to this agent; raised before anything is sent."""


class ScriptError(NbacpError, ValueError):
    """An answer script entry does not fit the card it was matched to."""


class MagicError(NbacpError):
    """A %%agent cell that cannot be sent: no session, a bad name, an expression that failed."""


class CellWaitUnavailableError(NbacpError, RuntimeError):
    """A cell cannot wait for a person's answer in this front end, and the message says why.

    Raised before the cell waits, instead of a wait no click could ever end: in a marimo cell
    whose runtime lacks what nbacp forwards the cards' messages through (docs/marimo.md).
    """


class NotebookUnavailableError(NbacpError, RuntimeError):
    """The open notebook cannot be read or edited from this kernel, and the message says why.

    No page with nbacp's front-end piece answered, or nbacp cannot be sure which notebook holds
    the prompt cell (no cell id came with the request, the pages that answered do not hold it,
    the server runs this kernel for another notebook). Nothing was changed.
    """
