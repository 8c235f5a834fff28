"""The card shown when an agent answers "Authentication required": its methods, one button each.

It never asks for a secret. A password box would send the key through widget state, which
the notebook saves; an env-var method instead names the variables the agent reads, to be set
in the kernel's environment (the agent inherits it) or given with ``connect(env=...)``.
Choosing a method makes the client call ``authenticate`` and retry the failed request once;
``await card`` gives the chosen method id, or None when the person cancelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets

from nbacp.widgets.card import Card
from nbacp.widgets.text import card_style, text_label, visible_controls


def method_kind(method: Any) -> str:
    """ "env_var", "terminal" or "agent" (ACP's default type) for any auth-method shape."""
    kind = getattr(method, "type", None)
    if kind is None and isinstance(method, dict):
        kind = method.get("type")
    return str(kind or "agent")


def _get(method: Any, name: str) -> Any:
    return method.get(name) if isinstance(method, dict) else getattr(method, name, None)


def env_var_names(method: Any) -> list[str]:
    """The variables an env-var method reads (optional ones marked), [] for other kinds."""
    names = []
    for var in _get(method, "vars") or ():
        name = str(_get(var, "name"))
        names.append(f"{name} (optional)" if _get(var, "optional") else name)
    return names


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
    notes = [f"The agent listed authentication method {visible_controls(mid)[:80]!r} {count} times; one is shown."
             for mid, count in repeated.items()]
    return list(kept.values()), notes


class AuthCard(Card["str | None"]):
    """Lists the agent's authentication methods; ``choose(id or name)`` or ``cancel()``."""

    def __init__(self, methods: Sequence[Any], *, agent: str | None = None, reason: str = "") -> None:
        super().__init__()
        self.add_class("nbacp-auth-card")
        self.methods, repeats = distinct_methods(methods)
        self.agent = agent
        who = visible_controls(agent or "The agent")
        rows: list[widgets.Widget] = [
            card_style(),
            text_label(f"{who} needs you to sign in before it can go on", "nbacp-agent", bold=True),
        ]
        if reason:
            rows.append(text_label(visible_controls(reason), "nbacp-auth-reason"))
        self.buttons: dict[str, widgets.Button] = {}
        for method in self.methods:
            rows.append(self._method_row(method))
        rows.extend(text_label(note, "nbacp-auth-repeated") for note in repeats)
        if not self.methods:
            rows.append(text_label("The agent offered no authentication methods; only cancelling closes this."))
        cancel = widgets.Button(description="Cancel", tooltip="Do not authenticate; the request fails")
        cancel.add_class("nbacp-auth-cancel")
        cancel.on_click(lambda _b: self.cancel())
        self.cancel_button = cancel
        rows.append(cancel)
        self.children = (*rows, self.summary)

    def _method_row(self, method: Any) -> widgets.Widget:
        method_id, name = str(_get(method, "id")), str(_get(method, "name") or _get(method, "id"))
        kind = method_kind(method)
        parts: list[widgets.Widget] = []
        description = _get(method, "description")
        if description:
            parts.append(text_label(visible_controls(str(description)), "nbacp-auth-description"))
        if kind == "env_var":
            names = env_var_names(method)
            parts.append(
                text_label(
                    "Reads " + ", ".join(names) + " from the agent's environment: set it in the kernel "
                    "(os.environ) or pass connect(env={...}), then choose this.",
                    "nbacp-auth-vars",
                )
            )
            link = _get(method, "link")
            if link:
                parts.append(text_label(f"Get credentials at: {visible_controls(str(link))}", "nbacp-auth-link"))
        button = widgets.Button(
            description=visible_controls(name),
            tooltip=f"Authenticate with {method_id!r}",
            layout=widgets.Layout(width="auto"),
            button_style="primary",
        )
        button.add_class("nbacp-auth-method")
        if kind == "terminal":
            # nbacp does not advertise clientCapabilities.auth.terminal: it cannot run a login terminal
            button.disabled = True
            parts.append(text_label("Terminal sign-in is not supported in the notebook.", "nbacp-auth-terminal"))
        else:
            button.on_click(lambda _b, chosen=method: self._choose_method(chosen))
        self.buttons[method_id] = button
        return widgets.VBox([button, *parts], layout=widgets.Layout(margin="4px 0"))

    def choose(self, method_id_or_name: str) -> bool:
        """Choose a method by id or name, as clicking its button would."""
        return self._choose(self._find(method_id_or_name))

    def cancel(self) -> bool:
        return self._resolve(None, "Cancelled: did not authenticate")

    def _find(self, key: str) -> str:
        for method in self.methods:
            if str(_get(method, "id")) == key:
                return key
        named = [str(_get(m, "id")) for m in self.methods if _get(m, "name") == key]
        if len(named) == 1:
            return named[0]
        choices = ", ".join(repr(str(_get(m, "id"))) for m in self.methods) or "none"
        raise ValueError(f"{key!r} is not one of the agent's authentication methods; choices: {choices}")

    def _choose(self, method_id: str) -> bool:
        return self._choose_method(next(m for m in self.methods if str(_get(m, "id")) == method_id))

    def _choose_method(self, method: Any) -> bool:
        method_id = str(_get(method, "id"))
        if method_kind(method) == "terminal":
            raise ValueError(f"{method_id!r} is a terminal sign-in, which nbacp does not support.")
        return self._resolve(method_id, f"Authenticating with: {_get(method, 'name') or method_id}")

    def _cancel_response(self) -> str | None:
        return None
