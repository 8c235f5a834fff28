"""The transcript of one turn: every session update, shown by ONE anywidget model.

The model's synced state is only what a late view needs besides the blocks (the shared code's
reference, the record once the turn ended); the blocks are a tree of nodes kept here
(``nodes``) and patched into every view by one custom message per frame (``patches``;
docs/turn-view.md). Cards stay their own models, drawn in their place by reference.

``Transcript`` is what the client talks to; it composes one collaborator per idea: the
frames and pages that decide when and how the blocks are shown (``frames``), the dispatch of
session updates to blocks (``dispatch``), the record of the turn (``record``), what the turn
shows of terminals (``terminals``) and its subagents, each a block with a transcript of its own
(``subagents``); a card is placed as it is, and once settled its summary line (a node) takes its
place and its model closes (``_watch``). ``add`` only updates
model state (O(size of the update)); nodes change in frames (see ``frames``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import anywidget
import traitlets
from acp.schema import ToolCallProgress, ToolCallStart

from nbacp import marimo_runtime
from nbacp.form.card_answer import CardAnswer
from nbacp.render.exit_status import ExitStatus
from nbacp.render.html_tree import html_tree
from nbacp.render.markdown import render_markdown
from nbacp.render.tool_calls import ActivityLog
from nbacp.updates import UpdateLog, UpdateView
from nbacp.widgets import card_code, shared
from nbacp.widgets.card import Card
from nbacp.widgets.shared import close_tree
from nbacp.widgets.transcript import describe
from nbacp.widgets.transcript.blocks import CardBlock, LineBlock
from nbacp.widgets.transcript.dispatch import CONNECTION_LOG, Dispatch
from nbacp.widgets.transcript.frames import FRAME, Frames
from nbacp.widgets.transcript.nodes import Box, Node, answered_line, cards_in, html_view, text_line
from nbacp.widgets.transcript.patches import Patches
from nbacp.widgets.transcript.record import TurnRecord
from nbacp.widgets.transcript.subagents import Subagents
from nbacp.widgets.transcript.terminals import Terminals


class Transcript(anywidget.AnyWidget):
    """The live view of a turn plus what the client reports from it (text, updates, answers)."""

    # Declared on the class, as the cards' are (nbacp.widgets.card): anywidget's add_traits would
    # otherwise make a class per instance.
    _esm = traitlets.Unicode(card_code.turn_module()).tag(sync=True)
    _css = traitlets.Unicode("" if card_code.HOST_LOOKUP else card_code.css_source()).tag(sync=True)
    _anywidget_id = traitlets.Unicode("nbacp.widgets.transcript.view.Transcript").tag(sync=True)
    code = traitlets.Unicode("").tag(sync=True)
    ended = traitlets.Bool(False).tag(sync=True)
    """The turn is over: every view then shows the record in place of the live view, asking for
    it (``{"type": "sync"}``) and getting its HTML as a tree (``{"type": "record", "tree": ...}``,
    ``nbacp.render.html_tree``). The record is built for the view that asks, not kept in the
    model: an ended view may stay open all day (docs/reload.md), and the tree, ten or so small lists
    and dicts per answered card, would cost the kernel several times the record's text."""

    def __init__(
        self,
        prompt: str = "",
        *,
        frame: float = FRAME,
        seal_at: int = 1024,
        updates: UpdateLog | None = None,
        session_facts: Callable[[Any], bool] | None = None,
        root: str = "",
        **kwargs: Any,
    ) -> None:
        """``updates``: the session's log, which the client fills (the transcript then keeps no
        copy, and ``updates`` is the window of it this transcript saw); without one it keeps its own.
        ``session_facts``: takes session-level updates (mode, commands, title) shown once per
        session instead of as lines in every turn; returns True for those it took.
        ``root``: the session's folder, so the record names files under it relative to it."""
        kwargs.setdefault("_dom_classes", ("nbacp-transcript",))
        kwargs.setdefault("layout", shared.layout())
        card_code.own_code_in_marimo(kwargs)
        if "code" not in kwargs and self._esm == card_code.TURN_STUB:
            kwargs["code"] = f"anywidget:{card_code.card_code().model_id}"
        super().__init__(**kwargs)
        if marimo_runtime.running_in_marimo():  # its view's "sync" must reach it while the cell awaits
            marimo_runtime.forward_model(self)
        self._patches = Patches(lambda message: self.send(message))
        self._retired: list[Any] = []  # answered cards whose line replaced them: closed after the next patch
        try:  # where frames run: a card answered on another thread (a subshell) hands its line over to it
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        self.prompt = prompt
        self.seal_at = seal_at
        self._owns_log = updates is None
        self._log = UpdateLog() if updates is None else updates
        self._updates = self._log.view(len(self._log))
        self._record = TurnRecord(prompt, root)
        # a due frame runs this transcript's flush, looked up when it runs (a wrapper set on
        # the instance, as tests and benchmarks do to time frames, sees every frame)
        self._frames = Frames(self._patches.root, frame, due=lambda: self.flush())
        self._terminals = Terminals()
        self._dispatch = Dispatch(
            self._frames,
            self._record,
            self._terminals,
            seal_at=seal_at,
            agent_labelled=not prompt,
            session_facts=session_facts,
        )
        self._subagents = Subagents(self._frames, self._dispatch, self._record.events, seal_at, lambda: self.flush())
        self._frames.append(CardBlock(_header(prompt)))
        self.flush()

    # -- what the client reads -------------------------------------------------------
    @property
    def updates(self) -> UpdateView:
        """Every update this transcript was given, in order (held once, in the log)."""
        return self._updates

    @property
    def text(self) -> str:
        """All agent_message_chunk text of the turn, in arrival order."""
        return self._record.agent_text.value

    @property
    def answers(self) -> list[CardAnswer]:
        """The typed answers of the turn's cards, in the order they were noted."""
        return self._record.answers

    @property
    def activity(self) -> ActivityLog:
        """The tool calls and plan, for the record (nbacp.render.tool_calls)."""
        return self._record.activity

    @property
    def stop_reason(self) -> str | None:
        """Why the turn ended (None while it runs)."""
        return self._record.stop_reason

    @property
    def frame(self) -> float:
        """Seconds between two frames of this transcript."""
        return self._frames.frame

    @property
    def frames(self) -> int:
        """How many frames changed the view (for tests and benchmarks)."""
        return self._frames.count

    @property
    def shown(self) -> tuple[Any, ...]:
        """The blocks' nodes (and cards) in order (the root's children are pages of them)."""
        return self._frames.shown

    @property
    def root(self) -> Box:
        """The tree the views show: its children are the pages of blocks (docs/turn-view.md)."""
        return self._patches.root

    def __repr__(self) -> str:
        # The cell's text/plain: stable, unlike ipywidgets' default repr of the whole tree.
        prompt = self.prompt if len(self.prompt) <= 60 else self.prompt[:57] + "..."
        return f"<nbacp turn: {prompt!r}>" if self.prompt else "<nbacp inbox>"

    def record_markdown(self) -> str:
        """The static, widget-free record of the turn (inert markdown, see nbacp.render.turn_record_text)."""
        return self._record.markdown()

    def record_text(self) -> str:
        """The record as plain text (``text/plain``: nbval, terminals)."""
        return self._record.text()

    def record_html(self) -> str:
        """The record as HTML (what a saved notebook shows; docs/record.md)."""
        return self._record.html()

    def notes(self, title: str) -> tuple[str, str] | None:
        """(text, HTML) of what this view holds outside any turn (the inbox), or None when it holds nothing."""
        return self._record.notes(title, self._dispatch.line_texts(skip=(CONNECTION_LOG,)))

    # -- what the client calls -------------------------------------------------------
    def add(self, update: Any) -> None:
        """Take any session update; unknown or malformed ones become a compact line."""
        if self._owns_log:
            self._log.append(update)
        try:
            taken = self._subagents.take(update)
        except Exception:  # an odd update must never break the turn: the dispatch makes it one line
            taken = False
        if not taken:
            self._dispatch.take(update)
            tool_call_id = getattr(update, "tool_call_id", None)
            if isinstance(update, ToolCallStart | ToolCallProgress) and isinstance(tool_call_id, str):
                self._subagents.tool_shown(tool_call_id)
        self._frames.schedule()

    def add_child(self, child_id: str, update: Any) -> None:
        """Take an update of a subagent session (its own id): shown in that child's block."""
        try:
            self._subagents.take_child(child_id, update)
        except Exception as error:  # an odd update must never break the turn
            why = type(error).__name__
            self._dispatch.line("unsupported:child", describe.clip(f"Unsupported subagent update ({why})"))
        self._frames.schedule()

    def add_child_card(self, child_id: str, card: Any) -> None:
        """A card a subagent waits on, in its block (after everything so far when it has none here)."""
        self._dispatch.close_message()
        block, now = CardBlock(card), getattr(card, "settled", False) is not True
        relayout = self._subagents.card(child_id, block, now=now)
        if relayout is None:
            self._frames.place(block, now=now)
            relayout = lambda: self._frames.relayout(block)  # noqa: E731
        self._watch(block, relayout)

    def add_card(self, card: Any) -> None:
        """Place an interactive card after everything received so far: now, since a person may
        be waiting for it; a card already answered (by a policy) in the next frame, as any other
        block. Once answered (settled), its place holds its summary line, a node of this view,
        and the card's model closes (``_watch``; docs/cards.md, 'State keys')."""
        self._dispatch.close_message()
        block = CardBlock(card)
        self._frames.append(block)
        self._watch(block, lambda: self._frames.relayout(block))
        if getattr(card, "settled", False) is True:
            self._frames.schedule()
        else:
            self.flush()

    def _watch(self, block: CardBlock, relayout: Callable[[], None]) -> None:
        """Once the block's card is settled (its answer taken and noted), its summary line takes
        its place and the card's model closes after the patch that shows the line: nothing here
        keeps the card (its answers live on in the record). A card still open, or sent and
        waiting (a URL card's completion, a review card's outcome), stays as it is."""
        card = block.widget
        if not isinstance(card, Card):
            return

        def settled(_summary: str) -> None:
            self._on_loop(lambda: self._answered(block, relayout))

        card.on_settle(settled)

    def _answered(self, block: CardBlock, relayout: Callable[[], None]) -> None:
        card = block.widget
        if not isinstance(card, Card) or self._frames.stopped:  # ended: the turn closed its cards
            return
        block.answered(answered_line(card.summary, card.line_classes()))
        relayout()
        self._retired.append(card)
        self._frames.schedule()

    def _on_loop(self, step: Callable[[], None]) -> None:
        """Run ``step`` where the frames run (now when that is here, or nothing runs a loop)."""
        loop = self._loop
        if loop is None or loop.is_closed() or not loop.is_running():
            step()
            return
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is loop:
            step()
        else:
            loop.call_soon_threadsafe(step)

    def note_answers(self, answers: list[CardAnswer]) -> None:
        """An answered card's typed answers, for ``result.answers`` and the record (docs/record.md, 'Answers')."""
        self._record.answers.extend(answers)

    def note_line(self, key: str, text: str) -> None:
        """Show one plain line (an extension notification, an agent status); the same key replaces it."""
        self._dispatch.close_message()
        self._dispatch.line(key, describe.clip(text, 300))
        self._frames.schedule()

    def note(self, text: str) -> None:
        """The connection's latest log line (a refused request, an SDK error): one line, updated."""
        self._dispatch.line(CONNECTION_LOG, describe.clip(f"Connection: {text}"))
        self._frames.schedule()

    def terminal_output(
        self, terminal_id: str, output: str, *, exit_status: ExitStatus | None = None, omitted: int = 0
    ) -> None:
        """Show a client-side terminal's output in the tool calls that embed it: ``output`` is its
        end, after ``omitted`` earlier bytes (not kept, or not handed over)."""
        shown = self._terminals.output(terminal_id, output, exit_status=exit_status, omitted=omitted)
        self._dispatch.terminal_changed(terminal_id)
        self._record.activity.terminal_output(terminal_id, shown)
        self._frames.schedule()

    def terminal_shown(self, terminal_id: str) -> str:
        """What the turn shows of a terminal: the end of its output and its exit ("" if none yet)."""
        return self._terminals.shown.get(terminal_id, "")

    def file_written(self, path: str, old_text: str | None, new_text: str, summary: str) -> None:
        """A file the agent wrote through the client: a diff block in the turn."""
        self._dispatch.written(path, old_text, new_text, summary)
        self._frames.schedule()

    def cancel_tools(self) -> None:
        """The person cancelled the turn: its unfinished tool calls show as cancelled, not failed."""
        self._dispatch.cancel()
        self._subagents.cancel()
        self._frames.schedule()

    def finish(self, stop_reason: str) -> None:
        """End the turn: render everything pending now and show the stop reason."""
        self._record.stop_reason = stop_reason
        if stop_reason == "cancelled":  # ACP: the turn's unfinished tool calls end cancelled with it
            self.cancel_tools()
        self._updates = self._updates.freeze()  # the turn's updates end here; the log goes on
        self._dispatch.close_message()
        self._subagents.finish()
        self._frames.append(LineBlock(f"Turn ended: {describe.clip(stop_reason, 80)}", "nbacp-stop"))
        self.flush()

    def flush(self) -> None:
        """Render every pending change now (one frame, one patch message)."""
        self._frames.render()
        retired, self._retired = self._retired, []
        gone = [str(card.comm.comm_id) for card in retired if card.comm is not None]
        if gone:  # the page may forget the cards' places (their line is shown instead)
            self._patches.op(["x", 0, gone])
        self._patches.flush()
        close_tree(retired)  # after the patch: the page shows the line before the card's model goes

    def _handle_custom_msg(self, content: Any, buffers: Any) -> None:
        """A view asks for the whole tree (it just rendered: the first, a second tab, a reload), or
        for the record once the turn ended."""
        if isinstance(content, dict) and content.get("type") == "sync":
            self.send(self._record_message() if self.ended else self._patches.snapshot())
        super()._handle_custom_msg(content, buffers)

    def close(self) -> None:
        """Close the turn's model and its cards' (they are shown only inside it). The nodes stay
        readable (``shown``, ``root``) for whoever holds the closed view, as its text, answers
        and record do; an ended view shown in a page forgets them (``show_record``)."""
        if not hasattr(self, "_patches"):  # ipywidgets' __init__ failed before ours ran
            super().close()
            return
        cards = [*cards_in(self._patches.root.children), *self._retired]
        self._retired = []
        super().close()
        close_tree(cards)

    def _forget_view(self) -> None:
        """Let the blocks, their nodes and cards go: after the end only the record is read."""
        self._frames.forget()
        self._patches.drop()
        self._retired = []
        self._dispatch = Dispatch(
            self._frames, self._record, self._terminals, seal_at=self.seal_at, agent_labelled=True
        )
        self._subagents = Subagents(self._frames, self._dispatch, self._record.events, self.seal_at, lambda: None)

    def show_record(self) -> None:
        """The turn is over: this same model now shows the record, its blocks forgotten and its cards closed.

        A page that re-read the model (reloaded, reopened, a second tab) sees the record take the
        live view's place, as the page that started the turn does through the display id
        (docs/reload.md). What remains is this one model: a view that sees ``ended`` asks for the
        record, whose tree is built then from the record (``record_html``, already safe:
        ``nbacp.render.turn_record_html``) and not kept.
        """
        self.flush()
        cards = [*cards_in(self._patches.root.children), *self._retired]
        self._forget_view()
        # marimo: the cell's output now shows the record in this view's place, and a page's later
        # "sync" waits for the cell to end like any widget message: nothing left to let through
        marimo_runtime.forget_model(self)
        box: Any = self  # ipywidgets' traits are untyped
        with self.hold_sync():
            box.ended = True
            box._dom_classes = (*(c for c in box._dom_classes if c != "nbacp-transcript"), "nbacp-ended")
        close_tree(cards)

    def record_tree(self) -> list[Any]:
        """The record's HTML as the tree a view builds (``nbacp.render.html_tree``)."""
        return html_tree(self.record_html())

    def _record_message(self) -> dict[str, Any]:
        return {"type": "record", "tree": self.record_tree()}


def _header(prompt: str) -> Node:
    """The person's text, through the same sanitizing render all the same; labelled as in the
    record: You, then Agent on the first agent message."""
    header = html_view(render_markdown(prompt))
    header.add_class("nbacp-prompt")
    if not prompt:
        return header
    return Box((text_line("You", "nbacp-role"), header), ("nbacp-you",))
