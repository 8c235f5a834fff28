"""The card for ``session/request_permission``: what the tool wants to do, and the agent's options.

A person's "no" is the agent's ``reject_*`` option; ``cancelled`` is reserved for a turn
that ended while the card was open (``cancel_pending``), because agents treat it as an abort.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
from acp.schema import (
    AllowedOutcome,
    ContentToolCallContent,
    DeniedOutcome,
    EmbeddedResourceContentBlock,
    FileEditToolCallContent,
    PermissionOption,
    RequestPermissionResponse,
    ResourceContentBlock,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallUpdate,
)

from nbacp.render.safe_text import bounded_json
from nbacp.widgets import shared
from nbacp.widgets.card import Card
from nbacp.widgets.text import card_style, text_block, text_label, visible_controls

BUTTON_STYLES = {
    "allow_once": "success",
    "allow_always": "success",
    "reject_once": "warning",
    "reject_always": "danger",
}
KIND_HINTS = {
    "allow_once": "Allow this time",
    "allow_always": "Allow, and do not ask again",
    "reject_once": "Reject this time",
    "reject_always": "Reject, and do not ask again",
}


def unified_diff(path: str, old_text: str | None, new_text: str) -> str:
    """A unified diff of one file edit; a missing ``old_text`` is a new file."""
    old_lines = [] if old_text is None else old_text.splitlines(keepends=True)
    new_lines = new_text.splitlines(keepends=True)
    lines = difflib.unified_diff(
        old_lines,
        new_lines,
        fromfile="/dev/null" if old_text is None else f"a/{path}",
        tofile=f"b/{path}",
    )
    out: list[str] = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out).rstrip("\n") or "(no changes)"


def _content_widgets(item: Any) -> list[widgets.Widget]:
    """Widgets for one tool-call content item, all plain text."""
    if isinstance(item, FileEditToolCallContent):
        title = "New file" if item.old_text is None else "Edit"
        diff = unified_diff(item.path, item.old_text, item.new_text)
        area = text_block(diff, max_rows=20, layout=shared.full_width())
        area.add_class("nbacp-diff")
        return [text_label(f"{title}: {item.path}", "nbacp-diff-path", bold=True), area]
    if isinstance(item, TerminalToolCallContent):
        return [text_label(f"Terminal: {item.terminal_id}", "nbacp-terminal")]
    if isinstance(item, ContentToolCallContent):
        block = item.content
        if isinstance(block, TextContentBlock):
            area = text_block(block.text, layout=shared.full_width())
            area.add_class("nbacp-text")
            return [area]
        if isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            text = getattr(resource, "text", None)
            rows: list[widgets.Widget] = [text_label(f"Resource: {resource.uri}", "nbacp-resource")]
            if isinstance(text, str):
                rows.append(text_block(text, layout=shared.full_width()))
            return rows
        if isinstance(block, ResourceContentBlock):
            return [text_label(f"Resource link: {block.name} ({block.uri})", "nbacp-resource")]
        mime = getattr(block, "mime_type", "")
        return [text_label(f"[{block.type} content {mime}]".replace(" ]", "]"), "nbacp-media")]
    return [text_label(f"[unknown content {type(item).__name__}]")]


def _raw_input_widget(raw_input: Any) -> widgets.Widget:
    """The tool's raw input as pretty JSON, collapsed so it does not crowd the decision."""
    text = bounded_json(raw_input)  # any depth (a 3,000-deep rawInput), any size: bounded
    area = text_block(text, max_rows=8, layout=shared.full_width())
    area.add_class("nbacp-raw-input")
    accordion = widgets.Accordion(children=[area], titles=("Raw input",))
    accordion.selected_index = None
    return accordion


class PermissionCard(Card[RequestPermissionResponse]):
    """One button per agent option; ``await card`` gives the response with the chosen option id."""

    def __init__(
        self,
        tool_call: ToolCallUpdate,
        options: Sequence[PermissionOption],
        *,
        agent: str | None = None,
    ) -> None:
        super().__init__(_dom_classes=("nbacp-card", "nbacp-permission-card"))
        self.tool_call = tool_call
        self.options = list(options)
        self.agent = agent

        who = visible_controls(agent or "The agent")
        title = tool_call.title or tool_call.tool_call_id
        rows: list[widgets.Widget] = [
            card_style(),
            text_label(f"{who} asks permission to run a tool", "nbacp-agent", bold=True),
            text_label(visible_controls(title), "nbacp-tool-title", bold=True),
        ]
        facts = [f"kind: {tool_call.kind}" if tool_call.kind else "", f"status: {tool_call.status}" if
                 tool_call.status else "", f"id: {tool_call.tool_call_id}"]
        rows.append(text_label(" · ".join(f for f in facts if f), "nbacp-tool-facts"))
        for item in tool_call.content or ():
            rows.extend(_content_widgets(item))
        for location in tool_call.locations or ():
            where = location.path if location.line is None else f"{location.path}:{location.line}"
            rows.append(text_label(f"Location: {where}", "nbacp-location"))
        if tool_call.raw_input is not None:
            rows.append(_raw_input_widget(tool_call.raw_input))

        self.buttons: dict[str, widgets.Button] = {}
        for option in self.options:
            button = widgets.Button(
                description=visible_controls(option.name),
                button_style=BUTTON_STYLES.get(option.kind, ""),
                tooltip=f"{KIND_HINTS.get(option.kind, option.kind)} ({option.kind})",
                layout=widgets.Layout(width="auto"),
            )
            button.add_class(f"nbacp-option-{option.kind.replace('_', '-')}")
            button.on_click(lambda _b, option_id=option.option_id: self._select(option_id))
            self.buttons[option.option_id] = button
        if not self.options:
            rows.append(text_label("The agent offered no options; only cancelling the turn can close this."))
        rows.append(widgets.HBox(list(self.buttons.values())))
        self.children = tuple(rows)

    def choose(self, option_id_or_label: str) -> bool:
        """Pick an option by id or by its label, as clicking its button would."""
        return self._select(self._find(option_id_or_label).option_id)

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

    def _select(self, option_id: str) -> bool:
        option = self._find(option_id)
        response = RequestPermissionResponse(outcome=AllowedOutcome(option_id=option_id, outcome="selected"))
        return self._resolve(response, f"Chose: {option.name} ({option.kind})")

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
