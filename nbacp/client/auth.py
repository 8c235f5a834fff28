"""Authentication: the agent's methods from ``initialize``, ``authenticate``, and retry-once on "auth required".

Agents answer ``session/new`` or ``session/prompt`` with -32000 "Authentication required"
until the client calls ``authenticate`` (codex-acp does even with an API key set). nbacp then
shows an ``AuthCard`` in the cell (or lets the headless policy pick, ``{"authenticate": id}``),
calls ``authenticate`` with the chosen method and retries the failed request exactly once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from acp import RequestError

from nbacp.client.connection_view import ConnectionView
from nbacp.client.surface import QuietSurface, Surface
from nbacp.display import Static, show
from nbacp.errors import AgentError, AuthenticationError
from nbacp.widgets.auth_card import AuthCard
from nbacp.widgets.shared import close_tree

T = TypeVar("T")
AUTH_REQUIRED = -32000


@dataclass(frozen=True)
class AuthMethod:
    """One authentication method as the agent sent it in ``initialize`` (the same on both SDK lines).

    ``type`` is None for ACP's default kind ("agent": the agent signs in by itself), else
    "env_var" (``vars`` names the variables it reads) or "terminal". SDK 1.0's parser reads a
    method without ``type`` as a terminal sign-in, so nbacp reads the raw list (docs/protocol.md,
    'Two SDK lines').
    """

    id: str
    name: str
    description: str | None = None
    type: str | None = None
    vars: tuple[dict[str, Any], ...] = ()
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> AuthMethod:
        def text(key: str) -> str | None:
            value = raw.get(key)
            return value if isinstance(value, str) else None

        variables = raw.get("vars")
        meta = raw.get("_meta")
        return cls(
            id=str(raw.get("id", "")),
            name=text("name") or str(raw.get("id", "")),
            description=text("description"),
            type=text("type"),
            vars=tuple(v for v in variables if isinstance(v, dict)) if isinstance(variables, list) else (),
            meta=meta if isinstance(meta, dict) else {},
        )


def is_auth_required(exc: RequestError | AgentError) -> bool:
    """ACP's ``auth_required`` error: code -32000, or an agent that says so in its message."""
    text = " ".join(str(part) for part in exc.args).lower()
    return exc.code == AUTH_REQUIRED or "auth_required" in text or "authentication required" in text


def method_ids(methods: list[Any]) -> list[str]:
    return [str(getattr(m, "id", None) or (m.get("id") if isinstance(m, dict) else "")) for m in methods]


async def authenticate(conn: ConnectionView, method_id: str, surface: Surface | None = None) -> Any:
    """Call ``authenticate``; an unknown method or the agent's refusal raises AuthenticationError.

    A question the agent asks while signing in (codex's device code: a URL elicitation scoped to
    this request, then ``elicitation/complete``) is shown in ``surface``, else in the cell that
    called (docs/agents.md, 'Sign-in in the notebook').
    """
    ids = method_ids(conn.auth_methods)
    if method_id not in ids:
        offered = ", ".join(map(repr, ids)) or "none"
        raise AuthenticationError(method_id, -32602, f"the agent does not offer this method (it offers: {offered})")
    client = conn.client
    previous, client.surfaces.auth = client.surfaces.auth, surface if surface is not None else _CellSlot()
    try:
        return await conn.agent.authenticate(method_id=method_id)
    except RequestError as exc:
        raise AuthenticationError(method_id, exc.code, str(exc), exc.data) from None
    finally:
        client.surfaces.auth = previous


async def ask_method(conn: ConnectionView, reason: str, surface: Surface | None) -> str | None:
    """Show the auth card (in ``surface``, else the current cell) and wait for a method or cancel."""
    card = AuthCard(conn.auth_methods, agent=conn.client.questions.agent_name, reason=reason)
    where = surface if surface is not None else _ThisCell()
    return await conn.client.questions.ask_card(None, card, "auth", "Authentication required", surface=where)  # type: ignore[no-any-return]


class _CellSlot(QuietSurface):
    """The calling cell, kept for cards that arrive later from the agent's own tasks.

    Made in the cell's task: an empty display with an id, which a card then replaces
    (``update_display_data`` reaches that output whichever cell is running by then).
    """

    def __init__(self) -> None:
        self._handle = show({"text/plain": ""}, raw=True, display_id=True)

    def add_card(self, card: Any) -> None:
        if self._handle is not None:
            self._handle.update(card)


class _ThisCell(QuietSurface):
    """Outside a turn (session/new), the card goes to the cell that is waiting for it."""

    def add_card(self, card: Any) -> None:
        view = show(card, display_id=True)
        if view is None:
            return

        def settled(summary: Any) -> None:  # answered: a line of text, no widget (docs/record.md, 'Saved notebooks')
            view.update(Static(summary))
            close_tree([card])

        card.on_settle(settled)


async def retrying(conn: ConnectionView, call: Callable[[], Awaitable[T]], surface: Surface | None = None) -> T:
    """Run ``call``; on "auth required" ask for a method, authenticate, and run it once more.

    Errors come out as nbacp's: AgentError for the agent's own refusal, AuthenticationError
    naming the method when ``authenticate`` itself fails.
    """
    try:
        return await call()
    except RequestError as exc:
        if not is_auth_required(exc) or not conn.auth_methods:
            raise AgentError(exc.code, str(exc), exc.data) from None
        first = exc
    method_id = await ask_method(conn, f"The agent answered: {first}", surface)
    if method_id is None:
        raise AgentError(first.code, f"{first} (no authentication method was chosen)", first.data)
    await authenticate(conn, method_id, surface)
    try:
        return await call()
    except RequestError as exc:
        if is_auth_required(exc):
            message = f"still not authenticated after it: {exc}"
            raise AuthenticationError(method_id, exc.code, message, exc.data) from None
        raise AgentError(exc.code, str(exc), exc.data) from None
