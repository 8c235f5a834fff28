"""What a transcript shows, and when: its blocks in order, rendered in frames, laid out in pages.

Changes only mark blocks; their nodes change in frames (sent as one patch per frame, see
``patches``), at most one per ``FRAME`` seconds per transcript, so a fast agent cannot flood the
front end and a long message costs linear time overall (see ``nbacp.render.stream``). Without a
running event loop each change renders at once, since nothing would run a later frame. The
blocks are grouped in pages of ``PAGE``, so adding a block (a card) re-sends one page's ids, not
every block's, and a frame lays out only the pages whose blocks changed (a turn of 1,000 cards
used to validate every shown widget of every page twice per card: quadratic).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from nbacp.widgets.transcript.blocks import Block
from nbacp.widgets.transcript.nodes import Box, forget

FRAME = 0.05
"""Seconds between two frames of one transcript."""
PAGE = 32
"""Blocks per page: the transcript's children are pages of blocks, so adding a block (a card)
re-sends one page's ids, not every block's (docs/notebooks.md, 'What a card costs'). A page
shows the nodes (or cards) of its blocks that have one."""


class Frames:
    """The ordered blocks of one container and the frames that render their changes into it."""

    def __init__(self, host: Box, frame: float = FRAME, *, due: Callable[[], None] | None = None) -> None:
        """``host``: the box whose children are the pages (the transcript's root). ``due``: what
        runs a frame that is due (the host's own ``flush``, so every frame passes one entry
        point); without it, ``render``."""
        self.host = host
        self.frame = frame
        self._due = self.render if due is None else due
        self.count = 0  # how many frames changed the view (for tests and benchmarks)
        self._blocks: list[Block] = []
        self._index: dict[int, int] = {}  # id(block) -> its place in _blocks
        self._dirty: dict[int, Block] = {}
        self._stale: set[int] = set()  # pages to lay out again in the next frame
        self._handle: asyncio.TimerHandle | None = None
        self._last_frame: float | None = None
        self._pages: list[Box] = []
        self._stopped = False

    def stop(self) -> None:
        """Render nothing more into the host (its children now belong to someone else: the record)."""
        self._stopped = True
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    @property
    def stopped(self) -> bool:
        """Whether nothing more is rendered into the host (``stop``)."""
        return self._stopped

    def forget(self) -> None:
        """Render nothing more and let every block go (the turn ended: only its record is kept)."""
        self.stop()
        self._blocks, self._index, self._dirty, self._stale, self._pages = [], {}, {}, set(), []

    # -- changes -----------------------------------------------------------------------
    def append(self, block: Block) -> None:
        """Show ``block`` after every block so far (from the next frame)."""
        self._index[id(block)] = len(self._blocks)
        self._blocks.append(block)
        self.mark(block)
        self._stale.add(self._index[id(block)] // PAGE)

    def insert_after(self, anchor: Block, block: Block) -> None:
        """Show ``block`` right after ``anchor`` (at the end when ``anchor`` is not shown here)."""
        at = self._index.get(id(anchor))
        if at is None:
            self.append(block)
            return
        at += 1
        self._blocks.insert(at, block)
        for i in range(at, len(self._blocks)):
            self._index[id(self._blocks[i])] = i
        self.mark(block)
        self._stale.update(range(at // PAGE, len(self._pages) + 1))

    def holds(self, block: Block) -> bool:
        return id(block) in self._index

    def mark(self, block: Block) -> None:
        """``block`` changed: the next frame renders it (and lays out its page if it has no widget yet)."""
        self._dirty[id(block)] = block
        if block.widget is None:
            self.relayout(block)

    def remove(self, block: Block) -> None:
        """Stop showing ``block`` (from the next frame): the blocks after it move up a place."""
        at = self._index.pop(id(block))
        del self._blocks[at]
        for i in range(at, len(self._blocks)):
            self._index[id(self._blocks[i])] = i
        self._dirty.pop(id(block), None)
        self._stale.update(range(at // PAGE, len(self._pages) + 1))

    def relayout(self, block: Block | None = None) -> None:
        """``block``'s widget was replaced (None: any block's): the next frame lays its page out again."""
        at = None if block is None else self._index.get(id(block))
        if at is None:
            self._stale.update(range(len(self._pages) + 1))
        else:
            self._stale.add(at // PAGE)

    # -- frames ----------------------------------------------------------------------
    def place(self, block: Block, *, now: bool) -> None:
        """Append ``block``: laid out at once when a person may be waiting on it (an open card),
        otherwise with the next frame (an answered one)."""
        self.append(block)
        if now:
            self.flush()
        else:
            self.schedule()

    def schedule(self) -> None:
        """Render the pending changes in the next frame (now, without a running event loop)."""
        if self._handle is not None or self._stopped:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        wait = 0.0 if self._last_frame is None else self._last_frame + self.frame - loop.time()
        self._handle = loop.call_later(max(wait, 0.0), self._on_frame)

    def _on_frame(self) -> None:
        self._handle = None
        self.flush()

    def flush(self) -> None:
        """Run a frame now, through ``due``."""
        self._due()

    def render(self) -> None:
        """Render every pending change now (one frame)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._stopped or (not self._dirty and not self._stale):
            return
        dirty, self._dirty = list(self._dirty.values()), {}
        for block in dirty:
            block.render()
        if self._stale:
            stale, self._stale = sorted(self._stale), set()
            self._lay_out(stale)
        self.count += 1
        try:
            self._last_frame = asyncio.get_running_loop().time()
        except RuntimeError:
            self._last_frame = None

    # -- pages -----------------------------------------------------------------------
    @property
    def shown(self) -> tuple[Any, ...]:
        """The blocks' nodes (or cards) in order (the host's children are pages of them)."""
        return tuple(w for page in self._pages for w in page.children)

    def _lay_out(self, stale: list[int]) -> None:
        """Set the children of the ``stale`` pages (page k shows blocks ``k * PAGE`` on); only a
        page whose list changed is assigned (and re-sent), so an appended card costs one page's
        ids and a frame costs the pages it touched, not the whole transcript."""
        count = -(-len(self._blocks) // PAGE)
        before = len(self._pages)
        while len(self._pages) < count:
            self._pages.append(Box(classes=("nbacp-page",)))
        for k in stale:
            if k >= count:
                break
            group = tuple(w for b in self._blocks[k * PAGE : (k + 1) * PAGE] if (w := b.widget) is not None)
            page = self._pages[k]
            if page.children != group:
                page.children = group
        forget(self._pages[count:])
        del self._pages[count:]
        if len(self._pages) != before or len(self.host.children) != len(self._pages):
            self.host.children = tuple(self._pages)
