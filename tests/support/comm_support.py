"""Front-end simulation for widget tests without a kernel (the unit tier's browser).

Widgets normally talk to the browser over a comm. ``RecordingComms.install(monkeypatch)``
makes every widget created afterwards get a ``RecordingComm`` that keeps what Python sent,
and lets a test deliver the exact ``comm_msg`` packets the JS widget manager would send, so
tests exercise the same code path a person's click does.

Tests ask for the ``comms`` fixture (tests/conftest.py), which installs it::

    def test_click(comms: RecordingComms) -> None:
        button = widgets.Button(description="Go")
        comms.click(button)  # its on_click handlers run, as for a person's click
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import comm
import ipywidgets as widgets
import pytest
from comm.base_comm import BaseComm


@dataclass
class Sent:
    """One message Python published on a comm (open, msg or close)."""

    comm_id: str
    msg_type: str
    data: dict[str, Any]
    buffers: list[Any]


class RecordingComm(BaseComm):
    """A comm that records outgoing messages instead of sending them to a kernel client."""

    def __init__(self, log: list[Sent], **kwargs: Any) -> None:
        self._log = log
        super().__init__(**kwargs)

    def publish_msg(
        self,
        msg_type: str,
        data: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        buffers: list[Any] | None = None,
        **keys: Any,
    ) -> None:
        self._log.append(Sent(self.comm_id or "", msg_type, dict(data or {}), list(buffers or [])))


@dataclass
class RecordingComms:
    """Handle on every comm created while installed; sends front-end messages to widgets."""

    sent: list[Sent] = field(default_factory=list)

    @classmethod
    def install(cls, monkeypatch: pytest.MonkeyPatch) -> RecordingComms:
        recorder = cls()

        def create_comm(*args: Any, **kwargs: Any) -> BaseComm:
            return RecordingComm(recorder.sent, *args, **kwargs)

        monkeypatch.setattr(comm, "create_comm", create_comm)
        return recorder

    # -- front end -> kernel ------------------------------------------------------------
    def deliver(self, widget: widgets.Widget, data: dict[str, Any], buffers: list[Any] | None = None) -> None:
        """Hand ``widget`` one comm_msg as the JS widget manager would send it."""
        widget_comm = widget.comm
        if not isinstance(widget_comm, RecordingComm):
            raise AssertionError(f"{type(widget).__name__} was created before the recording comms were installed")
        widget_comm.handle_msg(
            {"content": {"comm_id": widget_comm.comm_id, "data": data}, "buffers": list(buffers or [])}
        )

    def click(self, button: widgets.Button) -> None:
        """A person's click: the ButtonView sends ``{"event": "click"}`` as a custom message."""
        self.custom(button, {"event": "click"})

    def update(self, widget: widgets.Widget, **state: Any) -> None:
        """The front end changed synced traits (typing, picking, toggling)."""
        self.deliver(widget, {"method": "update", "state": state, "buffer_paths": []})

    def custom(self, widget: widgets.Widget, content: Any) -> None:
        """A custom message from the front end (anywidget ``model.send(content)``)."""
        self.deliver(widget, {"method": "custom", "content": content})

    # -- kernel -> front end ------------------------------------------------------------
    def sent_to(self, widget: widgets.Widget) -> list[Sent]:
        """Everything Python published on ``widget``'s comm, oldest first."""
        return [s for s in self.sent if s.comm_id == widget.model_id]

    def state_updates(self, widget: widgets.Widget) -> list[dict[str, Any]]:
        """The ``update`` states Python pushed to ``widget``'s view, oldest first."""
        return [
            s.data["state"]
            for s in self.sent_to(widget)
            if s.msg_type == "comm_msg" and s.data.get("method") == "update"
        ]


# -- looking at what a card would put on screen ------------------------------------------
HTML_MODELS = ("HTMLModel", "HTMLMathModel")
TEXT_TRAITS = ("value", "description", "tooltip", "placeholder", "label", "url")


def _transcript() -> Any:
    """nbacp's turn view and nodes, imported when first used: importing this module (every
    test's conftest does) must not need the built front-end code (tests/test_first_run.py)."""
    from nbacp.widgets.transcript import Transcript, nodes

    return Transcript, nodes


def kids_of(item: Any) -> tuple[Any, ...]:
    """What is shown inside ``item``: a turn view's tree (its root node), a box's or node's children."""
    transcript, _ = _transcript()
    if isinstance(item, transcript):
        return (item.root,)
    return tuple(getattr(item, "children", ()))


def walk(root: Any) -> list[Any]:
    """``root`` and every widget or node inside it (box children, accordion/tab pages; a turn
    view's tree of nodes, whose boxes also list the cards shown in them)."""
    found: list[Any] = []
    stack = [root]
    while stack:
        widget = stack.pop()
        found.append(widget)
        stack.extend(reversed(kids_of(widget)))
    return found


def answered_lines(root: Any) -> list[tuple[tuple[str, ...], str]]:
    """The answered cards' lines under ``root``, in tree order: (the line's classes, its summary)
    (a card's place once its model closed: docs/turn-view.md, 'Answered cards')."""
    _, nodes = _transcript()
    found = []
    for item in walk(root):
        if isinstance(item, nodes.Box) and "nbacp-answered" in item._dom_classes:
            (line,) = item.children
            assert isinstance(line, nodes.Text) and line._dom_classes == ("nbacp-summary",)
            found.append((item._dom_classes, line.value))
    return found


def texts(root: Any) -> list[str]:
    """Every string a view would show as text, in tree order (a turn view's text nodes and fold titles)."""
    out: list[str] = []
    _, nodes = _transcript()
    for widget in walk(root):
        if isinstance(widget, nodes.Text) and widget.value:
            out.append(widget.value)
        elif isinstance(widget, nodes.Fold) and widget.titles[0]:
            out.append(widget.titles[0])
        if not isinstance(widget, widgets.Widget):
            continue
        for name in TEXT_TRAITS:
            value = getattr(widget, name, None) if widget.has_trait(name) else None
            if isinstance(value, str) and value:
                out.append(value)
    return out


def assert_shown_as_text(root: widgets.Widget, payload: str, comms: RecordingComms | None = None) -> None:
    """``payload`` is on screen, and only in text traits: never in HTML, never typeset.

    With ``comms`` it also checks the model states actually sent to the front end.
    """
    assert any(payload in text for text in texts(root)), f"{payload!r} is not shown at all"
    _, nodes = _transcript()
    for widget in walk(root):
        if isinstance(widget, widgets.HTML | widgets.HTMLMath | nodes.Html):
            assert payload not in widget.value, f"{payload!r} inside an HTML widget or node"
        if getattr(widget, "description_allow_html", False):
            assert payload not in widget.description, f"{payload!r} in a description rendered as HTML"
        if isinstance(widget, widgets.Label) and payload in widget.value:
            assert "mathjax_ignore" in widget._dom_classes, "a Label with agent text would be typeset"
        # a turn view's text nodes are never typeset: js/src/turn_view.js marks the view's element
    if comms is not None:
        for sent in comms.sent:
            state = sent.data.get("state", {})
            if sent.msg_type == "comm_open" and state.get("_model_name") in HTML_MODELS:
                assert payload not in str(state.get("value", "")), f"{payload!r} sent in an HTML model"
            for op in turn_ops(sent):  # a turn view's html nodes, as sent (trees: nbacp.render.html_tree)
                tree = op[2].get("v") if op[0] == "n" and op[2].get("t") == "html" else None
                assert payload not in json.dumps(tree, ensure_ascii=False), f"{payload!r} sent in an html node"


def turn_ops(sent: Sent) -> list[list[Any]]:
    """The node operations a message to a turn view carries (a patch or a snapshot; docs/turn-view.md)."""
    content = sent.data.get("content") if sent.data.get("method") == "custom" else None
    if not isinstance(content, dict):
        return []
    return list(content.get("ops") or content.get("snap") or [])


def kids_sent(sent: list[Sent]) -> list[int]:
    """The length of every children list sent: a box widget's ``children`` update, or a turn
    view's ``k`` operation (a box's new children, docs/turn-view.md)."""
    out: list[int] = []
    for message in sent:
        state = message.data.get("state", {})
        if message.msg_type == "comm_msg" and "children" in state:
            out.append(len(state["children"]))
        out.extend(len(op[2]) for op in turn_ops(message) if op[0] == "k")
    return out
