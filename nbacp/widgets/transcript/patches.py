"""The turn view's patch buffer: what its nodes changed since the last frame, and the whole tree
for a view that arrives late (docs/turn-view.md, 'Patches').

The view's synced state holds no blocks: ipywidgets would re-send a trait whole on every change,
so a long turn would cost the page its whole list per frame. The nodes' changes go as ONE custom
message per frame instead, numbered (``seq``); a view that renders (the first, a second tab, a
reloaded page) asks for the tree and gets it as one message with the number it is current to,
and applies only the patches numbered after it. The tree is bounded as the blocks are (pages of
``frames.PAGE`` blocks, bounded blocks), so a snapshot is too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nbacp.widgets.transcript.nodes import Box, Node, Op

MAX_OPS = 4_096
"""Operations per message: a frame with more goes as several messages (each well under the
websocket's limit: an op carries at most one block's part, itself bounded)."""


class Patches:
    """The tree of one turn view (``root``, node id 0) and the operations not sent yet."""

    def __init__(self, send: Callable[[dict[str, Any]], None]) -> None:
        """``send``: puts one custom message on the view's comm."""
        self._send = send
        self._ops: list[Op] = []
        self._next = 0
        self.seq = 0
        self.root = Box(classes=("nbacp-pages",))
        ops: list[Op] = []
        self.root.attach(self, ops)
        self._ops.extend(ops)

    # -- the Sink the nodes write to -------------------------------------------------------
    def new_id(self) -> int:
        found = self._next
        self._next += 1
        return found

    def op(self, op: Op) -> None:
        self._ops.append(op)

    # -- what the view calls ---------------------------------------------------------------
    def flush(self) -> None:
        """Send what changed since the last flush (nothing when nothing did)."""
        while self._ops:
            batch, self._ops = self._ops[:MAX_OPS], self._ops[MAX_OPS:]
            self.seq += 1
            self._send({"seq": self.seq, "ops": batch})

    def snapshot(self) -> dict[str, Any]:
        """The whole tree, current to ``seq`` (pending operations are flushed first)."""
        self.flush()
        ops: list[Op] = []
        _define(self.root, ops)
        return {"seq": self.seq, "snap": ops}

    def drop(self) -> None:
        """Forget the tree: nothing more is sent (the record took the view's place)."""
        self._ops.clear()
        list(self.root.detach())
        self.root.children = ()  # detached: nothing is sent, and the nodes are let go


def _define(node: Node, ops: list[Op]) -> None:
    """``node``'s definition after its children's (the page knows a child before its box)."""
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        item, done = stack.pop()
        if done:
            ops.append(["n", item.id, item.definition()])
            continue
        stack.append((item, True))
        stack.extend((c, False) for c in reversed(item.children) if isinstance(c, Node))
