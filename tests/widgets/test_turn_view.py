"""The turn view's wire (docs/turn-view.md): ONE model per turn; what a page builds from the
snapshot and the patches after it is the kernel's tree, whenever the page arrived.

``Page`` applies the operations as js/src/turn_view.js does (its own tests: js/test/turn_view.test.js).
"""

from __future__ import annotations

from typing import Any

from acp import schema
from support.builders import start_tool_call, update_agent_message_text, update_agent_thought_text
from support.comm_support import RecordingComms, turn_ops

from nbacp.render.html_tree import html_tree
from nbacp.widgets import FormCard
from nbacp.widgets.transcript import Transcript, nodes
from nbacp.widgets.transcript.patches import MAX_OPS


class Page:
    """One view: the nodes it knows, current to ``seq`` (-1: it has had no snapshot yet)."""

    def __init__(self) -> None:
        self.nodes: dict[int, dict[str, Any]] = {}
        self.seq = -1

    def take(self, content: dict[str, Any]) -> None:
        if "snap" in content:
            self.nodes, self.seq = {}, content["seq"]
            for op in content["snap"]:
                self.apply(op)
        elif self.seq >= 0 and content["seq"] > self.seq:
            for op in content["ops"]:
                self.apply(op)
            self.seq = content["seq"]

    def apply(self, op: list[Any]) -> None:
        code, node, value = op
        if code == "n":
            self.nodes[node] = dict(value)
        elif code == "x":
            for gone in value:
                self.nodes.pop(gone, None)
        elif node in self.nodes:
            self.nodes[node][{"v": "v", "k": "k", "c": "c", "T": "T"}[code]] = value

    def tree(self, node: int | str = 0) -> Any:
        """The shown tree from the root: what the page's elements hold."""
        if isinstance(node, str):
            return ("card", node)
        found = self.nodes[node]
        kids = [self.tree(k) for k in found.get("k", []) if isinstance(k, str) or k in self.nodes]
        return (found["t"], tuple(found.get("c", ())), found.get("v"), found.get("T"), tuple(kids))


def kernel_tree(node: Any) -> Any:
    """The same shape read from the kernel's nodes."""
    if not isinstance(node, nodes.Node):
        return ("card", node.model_id)
    value = (
        node.value if isinstance(node, nodes.Text) else html_tree(node.value) if isinstance(node, nodes.Html) else None
    )
    title = node.titles[0] if isinstance(node, nodes.Fold) else None
    return (node.kind, node._dom_classes, value, title, tuple(kernel_tree(c) for c in node.children))


def messages(comms: RecordingComms, view: Transcript, since: int = 0) -> list[dict[str, Any]]:
    return [s.data["content"] for s in comms.sent_to(view)[since:] if s.data.get("method") == "custom"]


def busy_turn(view: Transcript, card: Any, pause: Any) -> None:
    """Messages, a thought, tool calls (updated in place), a plan, lines, a card; ``pause`` between."""
    for i in range(40):
        view.add(update_agent_message_text(f"word{i} " + ("\n\n" if i % 9 == 0 else "")))
        if i % 7 == 0:
            pause()
    view.add(update_agent_thought_text("thinking <b>hard</b>"))
    view.add(start_tool_call("c1", "Run ls"))
    pause()
    view.add(schema.ToolCallProgress(session_update="tool_call_update", tool_call_id="c1", status="completed"))
    view.add_card(card)
    view.add(schema.UsageUpdate(session_update="usage_update", used=10, size=100))
    pause()
    view.add(schema.UsageUpdate(session_update="usage_update", used=20, size=100))
    for i in range(70):  # more than two pages of blocks
        view.note_line(f"k{i}", f"line {i}")
    view.flush()


def test_patches_after_a_snapshot_make_the_kernels_tree_whenever_the_page_arrived(comms: RecordingComms) -> None:
    view = Transcript(prompt="go **on**", seal_at=40)
    card = FormCard("Name it", {"type": "object", "properties": {"x": {"type": "string"}}})
    early, late = Page(), Page()
    early_at = len(comms.sent_to(view))
    comms.custom(view, {"type": "sync"})  # the first view renders
    count = [0]

    def pause() -> None:
        view.flush()
        count[0] += 1
        if count[0] == 3:  # a second tab, a reloaded page: arrives mid-turn
            comms.custom(view, {"type": "sync"})

    busy_turn(view, card, pause)
    snapshots = 0
    for content in messages(comms, view, early_at):
        early.take(content)  # every view gets every message (a snapshot too: it replaces what it had)
        snapshots += "snap" in content
        if snapshots == 2:  # the second view sees nothing before its snapshot
            late.take(content)
    expected = kernel_tree(view.root)
    assert early.tree() == expected and late.tree() == expected
    assert ("card", card.model_id) in _flat(expected)
    assert len([c for c in messages(comms, view) if "snap" in c]) == 2  # one per view that asked


def test_one_model_per_turn_and_patches_are_bounded(comms: RecordingComms) -> None:
    before = {s.comm_id for s in comms.sent if s.msg_type == "comm_open"}
    view = Transcript(prompt="go")
    card = FormCard("Name it", {"type": "object", "properties": {"x": {"type": "string"}}})
    busy_turn(view, card, view.flush)
    opened = {s.comm_id for s in comms.sent if s.msg_type == "comm_open"} - before
    shared = {s.comm_id for s in comms.sent if s.msg_type == "comm_open" and s.comm_id in opened} - {
        view.model_id,
        card.model_id,
    }
    # the turn's own models: the view and its card (plus, once per kernel, the shared code and layout)
    assert {view.model_id, card.model_id} <= opened and len(shared) <= 2
    for content in messages(comms, view):
        assert len(content.get("ops") or content.get("snap") or []) <= MAX_OPS
    assert all(op[0] in "nvkcTx" for s in comms.sent_to(view) for op in turn_ops(s))


def test_replaced_nodes_are_forgotten_by_the_page(comms: RecordingComms) -> None:
    """A message rendered whole at its end replaces its streamed pieces: the page drops them (bounded)."""
    view = Transcript(prompt="go", seal_at=40)
    page = Page()
    at = len(comms.sent_to(view))
    comms.custom(view, {"type": "sync"})
    for i in range(200):
        view.add(update_agent_message_text(f"word{i} " + ("\n\n" if i % 5 == 0 else "")))
        if i % 10 == 0:
            view.flush()
    view.add(start_tool_call("c1", "Run ls"))  # ends the message: rendered whole
    view.flush()
    for content in messages(comms, view, at):
        page.take(content)
    live = sum(1 for _ in _nodes(view.root))
    assert len(page.nodes) == live  # nothing kept of the replaced pieces
    assert page.tree() == kernel_tree(view.root)


def _nodes(root: nodes.Node) -> Any:
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, nodes.Node):
            yield item
            stack.extend(item.children)


def _flat(tree: Any) -> list[Any]:
    out, stack = [], [tree]
    while stack:
        item = stack.pop()
        out.append(item)
        if item[0] != "card":
            stack.extend(item[4])
    return out
