"""The person's say over ``run_python``: a permission card that shows the code, before anything runs.

Three answers: allow once, allow for this session (a separate, explicit button; later runs in
the same session then go ahead, each noted in the turn), reject. Headless policies answer it
like any permission card, so a script must name ``allow_once`` or ``allow_session``; nothing
here allows by default, and a card closed by the turn ending counts as not allowed.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Literal

from acp.schema import (
    AllowedOutcome,
    ContentToolCallContent,
    PermissionOption,
    TextContentBlock,
    ToolCallUpdate,
)

from nbacp.form.card_answer import CardAnswer
from nbacp.widgets.permission_card import PermissionCard

if TYPE_CHECKING:
    from nbacp.client.notebook_client import NotebookClient

ALLOW_ONCE, ALLOW_SESSION, REJECT = "allow_once", "allow_session", "reject"
OPTIONS = [
    PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
    PermissionOption(option_id=ALLOW_SESSION, name="Allow for this session", kind="allow_always"),
    PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
]
TITLE = "run_python: run this code in your notebook"

Verdict = Literal["allowed", "rejected", "cancelled"]
_ids = itertools.count(1)


class RunPermission:
    """Asks before each run; remembers only an explicit "Allow for this session"."""

    def __init__(self, client: NotebookClient, agent: str | None) -> None:
        self.client = client
        self.agent = agent
        self.session_id: str | None = None
        self.allowed_for_session = False

    async def ask(self, code: str) -> Verdict:
        shown = code if len(code) <= 300 else code[:297] + "..."
        question = f"run_python: {shown}"
        if self.allowed_for_session:  # no card, but the turn's view and record still say what ran
            surface = self.client.surfaces.for_session(self.session_id)
            if surface is not None:
                line = "Allowed for this session (chosen earlier)"
                surface.note_answers([CardAnswer("permission", question, "accept", "allow_always", line=line)])
            return "allowed"
        call = ToolCallUpdate(
            tool_call_id=f"nbacp-run-python-{next(_ids)}",
            title=TITLE,
            kind="execute",
            status="pending",
            content=[ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=code))],
        )
        who = f"{self.agent or 'The agent'} (through the kernel tools)"
        card = PermissionCard(call, OPTIONS, agent=who, opened=False)
        response: Any = await self.client.questions.ask_card(self.session_id, card, "permission", question)
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return "cancelled"
        if outcome.option_id == ALLOW_SESSION:
            self.allowed_for_session = True
        return "allowed" if outcome.option_id in (ALLOW_ONCE, ALLOW_SESSION) else "rejected"
