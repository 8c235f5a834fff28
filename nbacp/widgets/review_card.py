"""The review card: one proposed cell edit, which the person accepts (maybe edited), or rejects.

One anywidget model (``nbacp.widgets.card.Card``; docs/cards.md, 'The review card'). The spec
shows the proposal as a diff (a new cell in full, a replaced cell's changed lines with +N / -M,
a deleted cell struck through); ``draft.source`` is the editable source, and Accept / Accept &
run carry it, so the person's version is what goes in. Accept & run is only ever the person's
choice: the agent's arguments cannot ask for it.

An accepted card does not settle at once: it waits in phase ``sent`` ("Applying…") until the
notebook tool read the edit back and calls ``finish`` with the true outcome, which becomes the
summary line (accepted as cell X, stale, not applied). A rejected or cancelled card settles at
once. Several open cards of one session share a ``ReviewGroup``: Accept all / Reject all on any
of them answers every open one, each with the source its own page last synced.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import traitlets

from nbacp.render.cell_names import CellName
from nbacp.render.cells import diff_lines, source_problem
from nbacp.widgets.card import Card
from nbacp.widgets.text import visible_controls

Action = Literal["accept", "reject", "cancel"]


@dataclass(frozen=True)
class ReviewAnswer:
    """The person's answer: ``source`` is their version (the agent's unless ``edited``)."""

    action: Action
    source: str | None = None
    run: bool = False
    edited: bool = False


@dataclass(frozen=True)
class Proposal:
    """What the agent proposed, as the card shows it."""

    mode: Literal["insert", "replace", "delete"]
    cell_type: str
    target: str | None
    """The cell replaced or deleted, or the cell the new one goes after (None: at the top)."""
    old_source: str
    """The target's source as the agent read it ("" for an insert)."""
    new_source: str
    """The proposed source ("" for a delete)."""
    placement: str = ""
    """Where a new cell goes, when the card cannot name a cell (the notebook could not be read)."""
    name: CellName | None = None
    """``target`` as the person sees it (place, execution count, first line), as of the read the
    proposal was checked against; without it the card names the cell by its id."""


ACCEPT: dict[str, Any] = {
    "event": "accept",
    "label": "Accept",
    "style": "primary",
    "draft": True,
    "default": True,
    "hint": "Put this cell into the notebook (your edits included)",
}
ACCEPT_RUN: dict[str, Any] = {
    "event": "accept_run",
    "label": "Accept & run",
    "style": "default",
    "draft": True,
    "hint": "Put it in and run it (your choice; the agent cannot ask for it)",
}
REJECT: dict[str, Any] = {
    "event": "reject",
    "label": "Reject",
    "style": "default",
    "hint": "Nothing changes; the agent is told",
}


def _shown(text: str) -> str:
    return visible_controls(text)


def review_spec(proposal: Proposal, agent: str | None, path: str, live: bool, why_not_live: str) -> dict[str, Any]:
    """The card's ``spec`` (docs/cards.md, 'The review card')."""
    who = _shown(agent or "The agent")
    kind = "Markdown cell" if proposal.cell_type == "markdown" else f"{proposal.cell_type} cell"
    target = "" if proposal.placement else _shown(proposal.target or "")
    named = _shown(str(proposal.name) if proposal.name is not None else f"cell {target}")
    if proposal.mode == "insert":
        where = _shown(proposal.placement) or (f"after {named}" if target else "at the top")
        header = f"{who} proposes a new {kind} {where}"
        lines = [("+", _shown(line)) for line in proposal.new_source.splitlines()]
        diff = {"lines": lines, "added": len(lines), "removed": 0, "more": 0}
    elif proposal.mode == "replace":
        header = f"{who} proposes to change {named}"
        rows, added, removed, more = diff_lines(proposal.old_source, proposal.new_source)
        diff = {"lines": [(tag, _shown(text)) for tag, text in rows], "added": added, "removed": removed, "more": more}
    else:
        header = f"{who} proposes to delete {named}"
        lines = [("-", _shown(line)) for line in proposal.old_source.splitlines()]
        diff = {"lines": lines, "added": 0, "removed": len(lines), "more": 0}
    actions = [dict(REJECT)] if proposal.mode == "delete" else [dict(ACCEPT), dict(REJECT)]
    if proposal.mode == "delete":
        actions.insert(0, {**ACCEPT, "label": "Delete", "hint": "Delete this cell from the notebook"})
    elif proposal.cell_type == "code":
        actions.insert(1, dict(ACCEPT_RUN))
    instead = (
        ""
        if live
        else (
            "Accepting still goes through the notebook tools; the agent is told exactly what happened "
            "(applied another way, or not applied and why)."
        )
    )
    return {
        "kind": "review",
        "header": header,
        "message": "",
        "mode": proposal.mode,
        "cell_type": proposal.cell_type,
        "target": target,
        "target_line": _shown(proposal.name.line) if proposal.name is not None and target else "",
        "path": _shown(path),
        "diff": diff,
        "editable": proposal.mode != "delete",
        "proposed": proposal.new_source,
        "live": live,
        "why_not_live": "" if live else _shown(why_not_live or "The notebook page did not answer."),
        "instead": instead,
        "status": "",
        "actions": actions,
    }


class ReviewGroup:
    """The open review cards of one session: Accept all / Reject all answer every one of them."""

    def __init__(self) -> None:
        self.cards: list[ReviewCard] = []

    def add(self, card: ReviewCard) -> None:
        self.cards.append(card)
        card.on_resolve(lambda _answer: self._gone(card))
        self._count()

    def _gone(self, card: ReviewCard) -> None:
        if card in self.cards:
            self.cards.remove(card)
        self._count()

    def _count(self) -> None:
        for card in list(self.cards):
            card.pending = len(self.cards)

    def answer_all(self, accept: bool) -> None:
        """Every open card of the group, each with its own synced draft (the page's last edit)."""
        for card in list(self.cards):
            if accept:
                card.accept()
            else:
                card.reject()


class ReviewCard(Card[ReviewAnswer]):
    """``await card`` gives the ``ReviewAnswer``; ``finish(line)`` ends an accepted card."""

    pending = traitlets.Int(1).tag(sync=True)
    """Open review cards of this session (this one included): the page offers Accept all /
    Reject all while there are several."""

    def __init__(
        self,
        proposal: Proposal,
        *,
        agent: str | None = None,
        path: str = "",
        live: bool = True,
        why_not_live: str = "",
        group: ReviewGroup | None = None,
    ) -> None:
        spec = review_spec(proposal, agent, path, live, why_not_live)
        super().__init__(spec, {"source": proposal.new_source}, _dom_classes=("nbacp-review-card",))
        self.proposal = proposal
        self.group = group
        if group is not None:
            group.add(self)

    # -- Python's way to the same handler a click runs ---------------------------------
    def edit(self, source: str) -> None:
        """Change the editable source, as typing on the page does."""
        self.draft = {**self.draft, "source": source}

    def accept(self, source: str | None = None, *, run: bool = False) -> bool:
        """Accept (``source``: the person's version; default the current draft)."""
        draft = {**self.draft, **({"source": source} if source is not None else {})}
        return self._handle({"event": "accept_run" if run else "accept", "draft": draft})

    def reject(self) -> bool:
        return self._handle({"event": "reject"})

    def accept_all(self) -> bool:
        return self._handle({"event": "accept_all", "draft": dict(self.draft)})

    def reject_all(self) -> bool:
        return self._handle({"event": "reject_all"})

    def cancel(self) -> bool:
        """Escape: the same as Reject (nothing applied), said as a cancel."""
        return self._handle({"event": "cancel"})

    def _action(self, event: str, content: Mapping[str, Any]) -> bool:
        if event in ("reject", "cancel"):
            return self._resolve(
                ReviewAnswer("cancel" if event == "cancel" else "reject"),
                "Rejected" if event == "reject" else "Dismissed (not applied)",
            )
        if event == "reject_all":
            answered = self._resolve(ReviewAnswer("reject"), "Rejected (Reject all)")
            if answered and self.group is not None:
                self.group.answer_all(accept=False)
            return answered
        if event not in ("accept", "accept_run", "accept_all"):
            self.errors = {"": [f"Not an action of this card: {_shown(event)!r}."]}
            return False
        answer = self._accepted(content.get("draft"), run=event == "accept_run")
        if answer is None:
            return False
        done = "Accepted" + (" as edited" if answer.edited else "") + (" and run" if answer.run else "")
        if not self._resolve(answer, f"{done}; applying…"):
            return False
        self.errors = {}
        self.spec = {**self.spec, "status": "Applying…", "actions": []}
        if event == "accept_all" and self.group is not None:
            self.group.answer_all(accept=True)
        return True

    def _accepted(self, draft: Any, *, run: bool) -> ReviewAnswer | None:
        """The answer an accept carries, or None (errors set) when its source cannot go in."""
        if self.proposal.mode == "delete":
            return ReviewAnswer("accept")
        source = draft.get("source") if isinstance(draft, Mapping) else None
        if not isinstance(source, str):
            self.errors = {"source": ["The accept carried no source; edit the cell or accept again."]}
            return None
        problem = source_problem(source)
        if problem is not None:
            self.errors = {"source": [_shown(problem.replace(" Nothing was applied.", ""))]}
            return None
        return ReviewAnswer(
            "accept", source, run and self.proposal.cell_type == "code", source != self.proposal.new_source
        )

    def finish(self, line: str, *, copy: str | None = None) -> None:
        """The edit's true outcome (read back from the notebook): the card's summary, then settled.

        ``copy``: the source did not go in; the card stays (phase ``sent``) showing the outcome
        and that source to copy, so nothing the person accepted is lost. Later calls change nothing.
        """
        with self._lock:
            if self.settled or self.spec.get("copy") is not None:
                return
            if copy is None:
                self.summary = visible_controls(line)
                self._settle()
                return
            with self.hold_sync():
                self.summary = visible_controls(line)
                self.spec = {**self.spec, "status": visible_controls(line), "actions": [], "copy": copy}

    def _settles_on_resolve(self) -> bool:
        answer = self._response
        return not (isinstance(answer, ReviewAnswer) and answer.action == "accept")

    def _cancel_response(self) -> ReviewAnswer:
        return ReviewAnswer("cancel")

    def recorded_answers(self, kind: str, question: str) -> list[Any]:
        """None at resolve time: the notebook tool notes the outcome once read back (the record
        must say what happened to the notebook, not what was clicked)."""
        return []
