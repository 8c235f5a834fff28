"""The agent's JSON-RPC refusals turned into nbacp's ``AgentError``, in one place.

The SDK raises its own ``RequestError`` when the agent answers a request with an error; a
notebook user should meet ``nbacp.AgentError`` (an ``NbacpError``) instead, with the code, the
agent's message and its data. Every call that sends a request goes through ``agent_errors()``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from acp import RequestError

from nbacp.errors import AgentError


@contextlib.contextmanager
def agent_errors(doing: str = "") -> Iterator[None]:
    """``with agent_errors("setting mode 'x'"):`` re-raises the SDK's RequestError as AgentError.

    ``doing`` (what the call was for) goes before the agent's message when given.
    """
    try:
        yield
    except RequestError as exc:
        message = f"{doing}: {exc}" if doing else str(exc)
        raise AgentError(exc.code, message, exc.data) from None
