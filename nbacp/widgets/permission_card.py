"""The card for ``session/request_permission``: what the tool wants to do, and the agent's options.

One anywidget model (``nbacp.widgets.card.Card``). Its ``spec`` is
``nbacp.render.permission.permission_spec`` (the command as code, files, coloured diffs, the
arguments table, ids under a fold) plus one action button per agent option; a click sends
``{"event": "option", "option_id", "seq"}`` and ``choose()`` runs the same handler
(docs/consent-cards.md, 'Permission card').

A person's "no" is the agent's ``reject_*`` option; ``cancelled`` is reserved for a turn
that ended while the card was open (``cancel_pending``), because agents treat it as an abort.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from acp.schema import AllowedOutcome, DeniedOutcome, PermissionOption, RequestPermissionResponse, ToolCallUpdate

from nbacp.render.page_text import PageText
from nbacp.render.permission import permission_spec, shown
from nbacp.widgets.card import Card

# The button's look by option kind: allowing once is the primary action; every other option
# is a plain button (its hint says what the kind means). The same buttons as every card.
BUTTON_STYLES = {"allow_once": "primary"}


def card_spec(
    tool_call: ToolCallUpdate,
    options: Sequence[PermissionOption],
    agent: str | None,
    ids: PageText,
    warning: str = "",
) -> dict[str, Any]:
    """The card's ``spec``: the permission body, its header and one action per option (its id as
    ``ids`` puts it on the page: an id that is not clean text still goes onto the comm)."""
    # rawInput/rawOutput stay Python values: pydantic refuses to serialise a 3,000-deep one, and
    # permission_spec bounds them itself (bounded_json).
    wire = tool_call.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"raw_input", "raw_output"})
    if tool_call.raw_input is not None:
        wire["rawInput"] = tool_call.raw_input
    body = permission_spec(wire, [o.model_dump(mode="json", by_alias=True) for o in options], agent)
    actions = [
        {
            "event": "option",
            "data": {"option_id": ids.page(row["id"])},
            "label": row["label"],
            "style": BUTTON_STYLES.get(row["kind"], "default"),
            "hint": f"{row['hint']} ({row['kind']})" if row["kind"] else row["hint"],
            "kind": row["kind"],
        }
        for row in body.pop("options")
    ]
    # e.g. a write to a notebook open in Jupyter (nbacp.client.questions.notebook_writes)
    lines = [warning] if warning else []
    if not options:
        lines.append("The agent offered no options; only cancelling the turn can close this.")
    message = "\n".join(lines)
    header = f"{body['agent']} asks permission to {body['what']}"
    return {**body, "header": header, "message": message, "actions": actions}


class PermissionCard(Card[RequestPermissionResponse]):
    """One button per agent option; ``await card`` gives the response with the chosen option id."""

    def __init__(
        self,
        tool_call: ToolCallUpdate,
        options: Sequence[PermissionOption],
        *,
        agent: str | None = None,
        warning: str = "",
        opened: bool = True,
    ) -> None:
        """``warning``: a line the card shows above its options (the client's, never the agent's);
        ``opened``: see ``Card``."""
        self._ids = PageText()  # option ids as the page holds them, and back
        super().__init__(
            card_spec(tool_call, options, agent, self._ids, warning),
            opened=opened,
            _dom_classes=("nbacp-permission-card",),
        )
        self.tool_call = tool_call
        self.options = list(options)
        self.agent = agent
        self.warning = warning

    def choose(self, option_id_or_label: str) -> bool:
        """Pick an option by id or by its label, through the handler a click's message runs."""
        option_id = self._ids.page(self._find(option_id_or_label).option_id)  # as the button sends it
        return self._handle({"event": "option", "option_id": option_id})

    def _find(self, key: str) -> PermissionOption:
        for option in self.options:
            if option.option_id == key:
                return option
        named = [option for option in self.options if option.name == key]
        if len(named) == 1:
            return named[0]
        choices = ", ".join(f"{o.option_id!r} ({o.name!r})" for o in self.options) or "none"
        problem = "is ambiguous between several labels" if named else "is not an option"
        raise ValueError(f"{key!r} {problem}; choices: {choices}")

    def _action(self, event: str, content: Mapping[str, Any]) -> bool:
        option_id = content.get("option_id")
        option_id = self._ids.original(option_id) if isinstance(option_id, str) else option_id
        option = next((o for o in self.options if o.option_id == option_id), None) if event == "option" else None
        if option is None:  # a stale or foreign page: say so on the card, answer nothing
            self.errors = {"": [f"Not an action of this card: {event!r} {option_id!r}."]}
            return False
        response = RequestPermissionResponse(outcome=AllowedOutcome(option_id=option.option_id, outcome="selected"))
        return self._resolve(response, f"Chose: {shown(option.name)} ({option.kind})")

    def _cancel_response(self) -> RequestPermissionResponse:
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    def _answer_value(self, response: Any) -> tuple[str, Any]:
        """An allow option is an accept (its id the value), a reject option a decline."""
        outcome = getattr(response, "outcome", None)
        option_id = getattr(outcome, "option_id", None)
        if not isinstance(option_id, str):
            return "cancel", None
        kind = next((str(o.kind) for o in self.options if o.option_id == option_id), "")
        return ("decline", None) if kind.startswith("reject") else ("accept", option_id)
