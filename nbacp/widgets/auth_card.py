"""The card shown when an agent answers "Authentication required": its methods, one button each.

One anywidget model (``nbacp.widgets.card.Card``, docs/consent-cards.md, 'Authentication card'). It
never asks for a secret. A password box would send the key through widget state, which the
notebook saves; an env-var method instead names the variables the agent reads, to be set in
the kernel's environment (the agent inherits it) or given with ``connect(env=...)``.
Choosing a method (``{"event": "authenticate", "method_id"}`` from the page, ``choose()`` from
Python: the same handler) makes the client call ``authenticate`` and retry the failed request
once; ``await card`` gives the chosen method id, or None when the person cancelled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nbacp.render.page_text import PageText
from nbacp.widgets.card import Card
from nbacp.widgets.text import safe_text, visible_controls

TERMINAL_NOTE = "Terminal sign-in is not supported in the notebook."
CANCEL_ACTION = {
    "event": "cancel",
    "label": "Cancel",
    "style": "default",
    "hint": "Do not authenticate; the request fails",
}


def method_kind(method: Any) -> str:
    """ "env_var", "terminal" or "agent" (ACP's default type) for any auth-method shape."""
    kind = getattr(method, "type", None)
    if kind is None and isinstance(method, dict):
        kind = method.get("type")
    return str(kind or "agent")


def _get(method: Any, name: str) -> Any:
    return method.get(name) if isinstance(method, dict) else getattr(method, name, None)


def _visible(text: Any) -> str:
    return visible_controls(safe_text(str(text)))


def env_vars(method: Any) -> list[dict[str, Any]]:
    """The variables an env-var method reads, ``[{"name", "optional"}]``; [] for other kinds."""
    found = _get(method, "vars") or ()
    return [{"name": _visible(_get(var, "name")), "optional": bool(_get(var, "optional"))} for var in found]


def method_row(method: Any) -> dict[str, Any]:
    """One method as the card shows it (docs/consent-cards.md, 'Authentication card')."""
    kind = method_kind(method)
    method_id = str(_get(method, "id"))
    link = _get(method, "link") if kind == "env_var" else None
    return {
        "id": method_id,
        "name": _visible(_get(method, "name") or method_id),
        "description": _visible(_get(method, "description") or ""),
        "vars": env_vars(method) if kind == "env_var" else [],
        "link": _visible(link) if link else "",
        # nbacp does not advertise clientCapabilities.auth.terminal: it cannot run a login terminal
        "usable": kind != "terminal",
        "note": TERMINAL_NOTE if kind == "terminal" else "",
    }


def auth_spec(methods: Sequence[Any], agent: str | None, reason: str, notes: Sequence[str] = ()) -> dict[str, Any]:
    """The card's ``spec``; ``notes``: lines shown under the methods (e.g. a repeated method id)."""
    return {
        "kind": "auth",
        "header": f"{_visible(agent or 'The agent')} needs you to sign in before it can go on",
        "message": _visible(reason),
        "methods": [method_row(m) for m in methods],
        "notes": [_visible(note) for note in notes],
        "actions": [dict(CANCEL_ACTION)],
    }


def distinct_methods(methods: Sequence[Any]) -> tuple[list[Any], list[str]]:
    """One method per id, in the agent's order, and a note per id listed more than once.

    Two methods with one id cannot both be chosen (``authenticate`` names only the id); the one
    kept is the first this client can use (not a terminal sign-in), so no button that shows is dead.
    """
    kept: dict[str, Any] = {}
    repeated: dict[str, int] = {}
    for method in methods:
        method_id = str(_get(method, "id"))
        if method_id not in kept:
            kept[method_id] = method
            continue
        repeated[method_id] = repeated.get(method_id, 1) + 1
        if method_kind(kept[method_id]) == "terminal" and method_kind(method) != "terminal":
            kept[method_id] = method
    notes = [
        f"The agent listed authentication method {visible_controls(mid)[:80]!r} {count} times; one is shown."
        for mid, count in repeated.items()
    ]
    return list(kept.values()), notes


class AuthCard(Card["str | None"]):
    """Lists the agent's authentication methods; ``choose(id or name)`` or ``cancel()``."""

    def __init__(self, methods: Sequence[Any], *, agent: str | None = None, reason: str = "") -> None:
        distinct, repeats = distinct_methods(methods)
        spec = auth_spec(distinct, agent, reason, repeats)
        self._ids = PageText()  # method ids as the page holds them, and back
        for row in spec["methods"]:
            row["id"] = self._ids.page(row["id"])
        super().__init__(spec, _dom_classes=("nbacp-auth-card",))
        self.methods = distinct
        self.agent = agent

    def choose(self, method_id_or_name: str) -> bool:
        """Choose a method by id or name, through the handler a click's message runs."""
        method_id = self._find(method_id_or_name)
        if method_kind(self._method(method_id)) == "terminal":
            raise ValueError(f"{method_id!r} is a terminal sign-in, which nbacp does not support.")
        return self._handle({"event": "authenticate", "method_id": self._ids.page(method_id)})  # as a click

    def cancel(self) -> bool:
        return self._handle({"event": "cancel"})

    def _find(self, key: str) -> str:
        for method in self.methods:
            if str(_get(method, "id")) == key:
                return key
        named = [str(_get(m, "id")) for m in self.methods if _get(m, "name") == key]
        if len(named) == 1:
            return named[0]
        choices = ", ".join(repr(str(_get(m, "id"))) for m in self.methods) or "none"
        raise ValueError(f"{key!r} is not one of the agent's authentication methods; choices: {choices}")

    def _method(self, method_id: str) -> Any:
        return next((m for m in self.methods if str(_get(m, "id")) == method_id), None)

    def _action(self, event: str, content: Mapping[str, Any]) -> bool:
        if event == "cancel":
            return self._resolve(None, "Cancelled: did not authenticate")
        method_id = self._ids.original(str(content.get("method_id")))
        method = self._method(method_id) if event == "authenticate" else None
        if method is None or method_kind(method) == "terminal":
            self.errors = {"": [f"Not an action of this card: {event!r} {content.get('method_id')!r}."]}
            return False
        name = _get(method, "name") or _get(method, "id")
        return self._resolve(str(_get(method, "id")), f"Authenticating with: {_visible(name)}")

    def _cancel_response(self) -> str | None:
        return None
