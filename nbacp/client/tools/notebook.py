"""``notebook_read`` and ``notebook_edit``: the agent reads the prompt's notebook and proposes cells.

Every proposal is a review card (``nbacp.widgets.review_card``); the call returns only once the
person acted, with the true outcome, and nothing is reported as applied until the notebook
link read it back (``nbacp.kernel.notebook_edits.EditResult``). The arguments and their checks:
``notebook_args``; what the agent and the person are told: ``notebook_texts``.

Per session, the tools keep the source of each cell as the agent last read it: a replace or
delete carries it as ``expected_source``, so an edit made from a stale copy is refused (before
the card when the cell already differs, by the page when it changes while the card is open).

At most ``MAX_WAITING`` proposals of a session wait for the person at once: a proposal over it
is answered at once (``waiting_text``) before the notebook is read or any widget is built, so an
agent firing hundreds of calls neither fills the person's page with cards nor keeps the kernel
busy building them.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from nbacp.client.tools.notebook_args import edit_args, same_notebook, target_cell
from nbacp.client.tools.notebook_texts import (
    name_in,
    outcome,
    question,
    render_view,
    shown,
    stale_line,
    stale_text,
    waiting_text,
)
from nbacp.errors import NbacpError
from nbacp.form.card_answer import CardAnswer
from nbacp.kernel.notebook_edits import CellEdit, CellType, EditResult, NotebookLink, NotebookView
from nbacp.render.cell_names import CellName
from nbacp.render.cells import diff_text
from nbacp.widgets.review_card import Proposal, ReviewCard, ReviewGroup

if TYPE_CHECKING:
    from nbacp.client.notebook_client import NotebookClient

MAX_WAITING = 32
"""Proposals of one session waiting for the person at once (being checked, on a card, or being
applied); each further one is refused at once with ``waiting_text``."""
STOPPED = "The person stopped the turn before this proposal was shown to them; nothing was applied."
FALLBACK_PLACE = "below your prompt cell"
"""Where a new cell goes when the notebook cannot be read (IPython's ``set_next_input``)."""


class _NotApplied(ValueError):
    """A proposal refused before any card: the tool result says why; nothing was applied."""


class NotebookTools:
    """One session's notebook tools over one ``NotebookLink``."""

    def __init__(self, link: NotebookLink, client: NotebookClient) -> None:
        self.link = link
        self.client = client
        self.session_id: str | None = None
        self.read_sources: dict[str, str] = {}
        """Each cell's source as the agent last read it (or as an accepted edit left it)."""
        self.group = ReviewGroup()
        self.outcomes: list[str] = []
        """Every notebook_edit's result text, in order."""
        self.waiting = 0
        """Proposals in flight now (at most ``MAX_WAITING``)."""
        self.refused_over_bound = 0
        """Proposals answered with ``waiting_text`` so far."""
        self.turns = 0
        self.stopped = -1
        """The turn the person stopped last (``turns`` counts the turns started)."""

    def turn_started(self) -> None:
        """A turn began (in its prompt cell): the link notes that cell."""
        self.turns += 1
        self.link.turn_started()

    def turn_stopped(self) -> None:
        """The stop button: open cards close through the questions; a proposal still being checked
        (reading the notebook) is refused once it would build its card, so nothing lands after the stop."""
        self.stopped = self.turns

    async def read(self) -> str:
        view = await self._view()
        for cell in view.cells:
            self.read_sources[cell.id] = cell.source
        return render_view(view)

    async def edit(self, args: dict[str, Any]) -> tuple[str, bool]:
        """(the outcome text, whether it was applied)."""
        # Counted before the first await, so concurrent calls cannot all pass the check.
        if self.stopped == self.turns:
            raise _NotApplied(STOPPED)
        if self.waiting >= MAX_WAITING:
            self.refused_over_bound += 1
            raise _NotApplied(waiting_text(self.waiting))
        self.waiting += 1
        try:
            return await self._edit(args, self.turns)
        finally:
            self.waiting -= 1

    async def _edit(self, args: dict[str, Any], turn: int) -> tuple[str, bool]:
        mode, cell_id, source, cell_type = edit_args(args)
        try:
            view: NotebookView | None = await self._view()
        except _NotApplied:
            # A link that is not live may still take a new cell another way (IPython's
            # set_next_input): the card says so, and the link's result says what became of it.
            if mode != "insert" or self.link.live:
                raise
            view = None
        if view is not None and not same_notebook(str(args["notebook_path"]), view.path):
            raise _NotApplied(
                f"Edits go only to the notebook the prompt came from, {view.path!r}, not "
                f"{args['notebook_path']!r}. Nothing was applied."
            )
        target = target_cell(view, cell_id) if view is not None else None
        if view is not None and mode != "insert" and cell_id == view.prompt_cell_id:
            raise _NotApplied(
                f"Cell {cell_id} holds the person's running prompt: it cannot be "
                f"{'deleted' if mode == 'delete' else 'replaced'}. Insert a new cell instead. Nothing was applied."
            )
        if self.stopped == turn:  # stopped while the notebook was read
            raise _NotApplied(STOPPED)
        name = name_in(view, cell_id)
        if view is None:  # the fallback places a new cell below the prompt cell, whatever was asked
            asked = "notebook_edit: insert a new cell (below the prompt cell, where the front end allows)"
        else:
            asked = question(mode, cell_id, name)
        expected: str | None = None
        if mode != "insert":
            assert target is not None and cell_id is not None
            if cell_id not in self.read_sources:
                raise _NotApplied(f"Read cell {cell_id} with notebook_read before changing it. Nothing was applied.")
            expected = self.read_sources[cell_id]
            if target.source != expected:
                value = {"outcome": "stale", "cell_id": cell_id, "diff": diff_text(expected, source)}
                why = "the person changed it"
                return self._done(
                    stale_text(cell_id, why),
                    applied=False,
                    question=asked,
                    action="decline",
                    value=value,
                    line=stale_line(shown(name, cell_id), why),
                )
        kind: CellType = cell_type or (target.cell_type if target is not None and mode == "replace" else "code")
        placement = "" if view is not None else FALLBACK_PLACE
        proposal = Proposal(mode, kind, cell_id, expected or "", source if mode != "delete" else "", placement, name)
        path = view.path if view is not None else str(args["notebook_path"])
        card = ReviewCard(
            proposal,
            agent=self.client.questions.agent_name,
            path=path,
            live=self.link.live,
            why_not_live=self.link.why_not_live,
            group=self.group,
        )
        answer = await self.client.questions.ask_card(self.session_id, card, "review", asked)
        if answer.action != "accept":
            why = (
                "Rejected by the person"
                if answer.action == "reject"
                else "Not applied: the review card closed without an answer (the turn ended)"
            )
            proposed: dict[str, Any] = {
                "outcome": answer.action,
                "cell_id": None,
                "diff": diff_text(expected or "", source),
            }
            return self._done(
                f"{why}; nothing was changed.",
                applied=False,
                card=card,
                question=asked,
                action="decline" if answer.action == "reject" else "cancel",
                value=proposed,
            )
        edit = CellEdit(mode, cell_id, answer.source or "", kind, expected, run=answer.run)
        try:
            result = await self.link.apply(edit)
        except (NbacpError, OSError, LookupError, ValueError) as exc:
            result = EditResult("not_applied", None, None, str(exc) or type(exc).__name__)
        except asyncio.CancelledError:  # the request was withdrawn while the page applied it
            card.finish("Withdrawn while applying: whether the notebook changed is not known; look at it.")
            raise
        self._remember(edit, result)
        text, line = self._outcome(edit, result, answer.edited, name)
        if result.outcome == "applied" and mode != "delete" and self.link.live:
            try:  # the cells' places now, which other accepted edits or the person may have moved
                text, line = self._outcome(edit, result, answer.edited, name, await self.link.read())
            except NbacpError:
                pass  # the places as of the proposal's read
            except asyncio.CancelledError:
                card.finish(line)
                raise
        diff = diff_text(expected or "", result.source if result.source is not None else edit.source)
        if result.outcome != "applied" and mode != "delete":  # the person's version stays on the card to copy
            card.finish(line, copy=edit.source)
        return self._done(
            text,
            applied=result.outcome == "applied",
            card=card,
            question=asked,
            line=line,
            action="accept",
            value={"outcome": result.outcome, "cell_id": result.cell_id, "edited": answer.edited, "diff": diff},
        )

    def _outcome(
        self, edit: CellEdit, result: EditResult, edited: bool, name: CellName | None, now: NotebookView | None = None
    ) -> tuple[str, str]:
        """``notebook_texts.outcome`` with the person's names: from ``now`` (a read after the
        edit) when given, else from the proposal's read (``name``: the target's)."""
        target = name_in(now, edit.cell_id) or name
        made = name_in(now, result.cell_id)
        source = result.source if result.source is not None else edit.source
        if made is None and name is not None:  # where the edit put it, as of the proposal's read
            made = CellName.of(name.place + (1 if edit.mode == "insert" else 0), None, source)
        elif made is None and edit.mode == "insert" and edit.cell_id is None:
            made = CellName.of(1, None, source)
        return outcome(
            edit, result, edited=edited, target=shown(target, edit.cell_id), made=shown(made, result.cell_id)
        )

    def _remember(self, edit: CellEdit, result: EditResult) -> None:
        """The sources the agent may edit next without reading again: what its accepted edit left."""
        if result.outcome != "applied":
            return
        if edit.mode == "delete" or (edit.mode == "replace" and edit.cell_id not in (None, result.cell_id)):
            self.read_sources.pop(edit.cell_id or "", None)
        if result.source is not None and result.cell_id is not None:
            self.read_sources[result.cell_id] = result.source

    def _done(
        self,
        text: str,
        *,
        applied: bool,
        card: ReviewCard | None = None,
        question: str = "",
        action: str = "",
        value: Any = None,
        line: str | None = None,
    ) -> tuple[str, bool]:
        """The outcome, once: on the card (its summary), in the record, to the agent."""
        self.outcomes.append(text)
        line = line if line is not None else text.split("\n", 1)[0]
        if card is not None:
            card.finish(line)
        if question:
            surface = self.client.surfaces.for_session(self.session_id)
            if surface is not None:
                surface.note_answers([CardAnswer("review", question, action, value, line=line)])
        return text, applied

    async def _view(self) -> NotebookView:
        try:
            return await self.link.read()
        except NbacpError as exc:
            reason = str(exc).rstrip()
            end = "" if reason.endswith((".", "!", "?")) else "."
            raise _NotApplied(f"The notebook cannot be reached: {reason}{end} Nothing was applied.") from None
