"""Errors of the form model: a broken schema versus an answer that does not fit it."""

from __future__ import annotations

from collections.abc import Mapping

from nbacp.errors import NbacpError


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
