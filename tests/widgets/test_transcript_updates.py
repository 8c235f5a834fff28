"""Every ACP 0.12 session update kind renders into the transcript.

Updates are built from wire JSON with acp.schema models (the objects the SDK hands to
``Client.session_update``). No event loop runs here, so each ``add`` renders at once.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pytest
from acp import schema
from pydantic import TypeAdapter
from support.comm_support import walk

from nbacp.client.wire.sdk_compat import with_tool_name  # the client's step before the transcript
from nbacp.form.card_answer import CardAnswer
from nbacp.widgets.transcript import Transcript, nodes

UPDATE = TypeAdapter(
    schema.UserMessageChunk
    | schema.AgentMessageChunk
    | schema.AgentThoughtChunk
    | schema.ToolCallStart
    | schema.ToolCallProgress
    | schema.AgentPlanUpdate
    | schema.AgentPlanContentUpdate
    | schema.AgentPlanRemovedUpdate
    | schema.AvailableCommandsUpdate
    | schema.CurrentModeUpdate
    | schema.ConfigOptionUpdate
    | schema.SessionInfoUpdate
    | schema.UsageUpdate
)


def wire(data: dict[str, Any]) -> Any:
    update = UPDATE.validate_python(data)
    assert update.session_update == data["sessionUpdate"]
    return update


def text_chunk(kind: str, text: str, message_id: str | None = None) -> Any:
    data: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    if message_id:
        data["messageId"] = message_id
    return wire(data)


def labels(root: widgets.Widget) -> list[str]:
    """Every label's text but the You / Agent role labels."""
    return [w.value for w in walk(root) if isinstance(w, nodes.Text) and w.value and w.value not in ("You", "Agent")]


def html(root: widgets.Widget) -> str:
    return "".join(w.value for w in walk(root) if isinstance(w, nodes.Html))


def test_agent_message_chunks_render_as_markdown_and_make_text() -> None:
    t = Transcript(prompt="say hi")
    for piece in ["Hello ", "**bold", "** world", "\n\n- a\n- b"]:
        t.add(text_chunk("agent_message_chunk", piece))
    t.finish("end_turn")
    assert t.text == "Hello **bold** world\n\n- a\n- b"
    assert "<strong>bold</strong>" in html(t) and "<li>a</li>" in html(t)
    assert labels(t)[-1] == "Turn ended: end_turn"
    assert t.stop_reason == "end_turn"


def test_user_chunks_and_thoughts_are_not_agent_text() -> None:
    t = Transcript(prompt="p")
    t.add(text_chunk("user_message_chunk", "replayed question"))
    t.add(text_chunk("agent_thought_chunk", "pondering *deeply*"))
    t.add(text_chunk("agent_message_chunk", "answer"))
    t.finish("end_turn")
    assert t.text == "answer"
    accordions = [w for w in walk(t) if isinstance(w, nodes.Fold)]
    assert len(accordions) == 1
    thought = accordions[0]
    assert thought.selected_index is None  # collapsed by default
    assert thought.titles == ("Thinking",)
    assert "<em>deeply</em>" in html(thought)
    assert "User" in labels(t) and "replayed question" in html(t)


def test_message_ids_and_interleaving_split_messages() -> None:
    t = Transcript(prompt="p")
    t.add(text_chunk("agent_message_chunk", "one", "m1"))
    t.add(text_chunk("agent_message_chunk", " more", "m1"))
    t.add(text_chunk("agent_message_chunk", "two", "m2"))
    t.add(wire({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Look"}))
    t.add(text_chunk("agent_message_chunk", "three", "m2"))
    t.finish("end_turn")
    messages = [w for w in walk(t) if isinstance(w, nodes.Box) and "nbacp-agent" in w._dom_classes]
    assert [html(m) for m in messages] == ["<p>one more</p>\n", "<p>two</p>\n", "<p>three</p>\n"]
    assert t.text == "one more\n\ntwo\n\nthree"  # separate messages stay separate paragraphs


def test_tool_call_updated_in_place_with_text_diff_terminal_and_locations() -> None:
    t = Transcript(prompt="p")
    t.add(
        wire(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "c1",
                "title": "Edit config",
                "kind": "edit",
                "status": "pending",
                "locations": [{"path": "/w/a.py", "line": 3}, {"path": "/w/b.py"}],
            }
        )
    )
    assert labels(t)[0:2] == ["○ Edit config · edit · pending", "at /w/a.py:3, /w/b.py"]
    t.add(wire({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "in_progress"}))
    t.add(wire({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed", "content": [
        {"type": "content", "content": {"type": "text", "text": "Done: <b>ok</b>"}},
        {"type": "diff", "path": "/w/a.py", "oldText": "x = 1\n", "newText": "x = 2\n"},
        {"type": "diff", "path": "/w/new.py", "newText": "print()\n"},
        {"type": "terminal", "terminalId": "term-1"},
    ]}))  # fmt: skip
    t.terminal_output("term-1", "$ make\nok <script>\n")
    t.add(wire({"sessionUpdate": "tool_call_update", "toolCallId": "c2", "status": "failed"}))
    t.finish("end_turn")
    tools = [w for w in walk(t) if "nbacp-tool-call" in getattr(w, "_dom_classes", ())]
    assert len(tools) == 2  # c1 once, updated in place; c2 created by a progress update alone
    first, second = tools
    assert labels(first) == [
        "✓ Edit config · edit · completed", "at /w/a.py:3, /w/b.py",
        "edit: /w/a.py", "new file: /w/new.py", "terminal term-1",
    ]  # fmt: skip
    shown = html(first)
    assert "Done: &lt;b&gt;ok&lt;/b&gt;" in shown
    assert '<code class="language-diff">--- /w/a.py\n+++ /w/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n' in shown
    assert "--- /dev/null\n+++ /w/new.py" in shown
    assert "$ make\nok &lt;script&gt;\n" in shown
    assert labels(second) == ["✗ c2 · failed"]


def test_plans_update_in_place_and_can_be_removed() -> None:
    t = Transcript(prompt="p")
    entry = {"content": "Read the code", "priority": "high", "status": "pending"}
    t.add(wire({"sessionUpdate": "plan", "entries": [entry]}))
    t.add(
        wire(
            {
                "sessionUpdate": "plan",
                "entries": [
                    {**entry, "status": "completed"},
                    {"content": "Fix", "priority": "low", "status": "in_progress"},
                ],
            }
        )
    )
    plans = [w for w in walk(t) if "nbacp-plan" in getattr(w, "_dom_classes", ())]
    assert len(plans) == 1
    assert labels(plans[0]) == ["Plan", "✓ Read the code (high)", "◐ Fix (low)"]
    t.add(wire({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p2", "entries": [entry]}}))
    t.add(wire({"sessionUpdate": "plan_update", "plan": {"type": "markdown", "planId": "p2", "content": "# Steps"}}))
    t.add(wire({"sessionUpdate": "plan_update", "plan": {"type": "file", "planId": "p3", "uri": "file:///plan.md"}}))
    plans = [w for w in walk(t) if "nbacp-plan" in getattr(w, "_dom_classes", ())]
    assert [labels(p)[0] for p in plans] == ["Plan", "Plan p2", "Plan p3"]
    assert html(plans[1]) == "<h1>Steps</h1>\n" and labels(plans[2])[1] == "plan file: file:///plan.md"
    t.add(wire({"sessionUpdate": "plan_removed", "planId": "p2"}))
    t.add(wire({"sessionUpdate": "plan_removed", "planId": "nope"}))
    t.finish("end_turn")
    plans = [w for w in walk(t) if "nbacp-plan" in getattr(w, "_dom_classes", ())]
    assert [labels(p)[0] for p in plans] == ["Plan", "Plan p3"]
    assert "Plan removed: nope" in labels(t)


def test_status_lines_are_compact_and_updated_in_place() -> None:
    t = Transcript(prompt="p")
    t.add(
        wire(
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [
                    {"name": "web", "description": "search"},
                    {"name": "test", "description": "run", "input": {"hint": "x"}},
                ],
            }
        )
    )
    t.add(wire({"sessionUpdate": "current_mode_update", "currentModeId": "ask"}))
    t.add(wire({"sessionUpdate": "current_mode_update", "currentModeId": "code"}))
    t.add(
        wire(
            {
                "sessionUpdate": "config_option_update",
                "configOptions": [
                    {
                        "type": "select",
                        "id": "model",
                        "name": "Model",
                        "currentValue": "fast",
                        "options": [{"value": "fast", "name": "Fast model"}, {"value": "big", "name": "Big"}],
                    },
                    {
                        "type": "select",
                        "id": "g",
                        "name": "Grouped",
                        "currentValue": "b",
                        "options": [{"group": "x", "name": "X", "options": [{"value": "b", "name": "Bee"}]}],
                    },
                    {"type": "boolean", "id": "web", "name": "Web", "currentValue": False},
                ],
            }
        )
    )
    t.add(wire({"sessionUpdate": "session_info_update", "title": "Trip", "updatedAt": "2026-01-01T00:00:00Z"}))
    t.add(wire({"sessionUpdate": "usage_update", "used": 1200, "size": 4000}))
    t.add(wire({"sessionUpdate": "usage_update", "used": 2000, "size": 4000,
                "cost": {"amount": 0.0123, "currency": "USD"}}))  # fmt: skip
    assert labels(t) == [
        "Commands: /web, /test",
        "Mode: code",
        "Config: Model = Fast model; Grouped = Bee; Web = off",
        "Session: Trip · updated 2026-01-01T00:00:00Z",
        "Usage: 2,000 / 4,000 tokens (50%) · cost 0.0123 USD",
    ]
    assert len(t.updates) == 7


@pytest.mark.parametrize(
    ("update", "line"),
    [
        ({"sessionUpdate": "future_kind", "x": 1}, "Unsupported update: future_kind"),
        ({"no": "kind"}, "Unsupported update: dict"),
        (schema.Cost(amount=1, currency="EUR"), "Unsupported update: Cost"),
        (42, "Unsupported update: int"),
        (
            schema.ToolCallStart.model_construct(session_update="tool_call"),
            "Unsupported update: tool_call (AttributeError)",
        ),
    ],
)
def test_unknown_updates_become_one_compact_line_and_never_raise(update: Any, line: str) -> None:
    t = Transcript(prompt="p")
    t.add(update)
    t.add(text_chunk("agent_message_chunk", "still fine"))
    t.finish("end_turn")
    assert line in labels(t)
    assert t.updates[0] is update and t.text == "still fine"


def test_repeated_unknown_kinds_are_counted_not_dropped() -> None:
    t = Transcript(prompt="p")
    for _ in range(3):
        t.add({"sessionUpdate": "future_kind"})
    assert labels(t) == ["Unsupported update: future_kind (×3)"]
    assert len(t.updates) == 3


def test_non_text_content_is_described_never_loaded() -> None:
    t = Transcript(prompt="p")
    t.add(
        wire(
            {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "image", "data": "AAAA", "mimeType": "image/png", "uri": "http://evil/x.png"},
            }
        )
    )
    t.add(
        wire(
            {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "resource_link", "name": "spec", "uri": "file:///spec.md"},
            }
        )
    )
    t.add(
        wire(
            {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "audio", "data": "AA", "mimeType": "audio/wav"},
            }
        )
    )
    t.finish("end_turn")
    assert labels(t)[:3] == [
        "[image image/png http://evil/x.png]",
        "[resource spec: file:///spec.md]",
        "[audio audio/wav]",
    ]
    assert not any(isinstance(w, widgets.Image) for w in walk(t))
    assert t.text == ""


def test_cards_are_placed_at_the_current_point_and_answers_recorded() -> None:
    t = Transcript(prompt="Book it")
    t.add(text_chunk("agent_message_chunk", "Before the question."))
    card = widgets.Button(description="a card")
    t.add_card(card)
    t.note_answers([CardAnswer("question", "Which city?", "accept", "paris", line="Accepted: Paris")])
    t.add(text_chunk("agent_message_chunk", " After."))
    t.note_answers([CardAnswer("permission", "Write /w/a.py?", "accept", "allow_once", line="Chose: allow_once")])
    t.finish("end_turn")
    kids = list(t.shown)
    position = kids.index(card)
    assert "Before the question." in html(kids[position - 1]) and "After." in html(kids[position + 1])
    assert t.answers == [
        ("question", "Which city?", "Accepted: Paris"),
        ("permission", "Write /w/a.py?", "Chose: allow_once"),
    ]
    assert [a.value for a in t.answers] == ["paris", "allow_once"]
    record = t.record_markdown()
    for expected in ("Book it", "Before the question\\. After\\.", "Which city\\?", "Paris",
                     "Write \\/w\\/a\\.py\\?", "allow\\_once", "end\\_turn"):  # fmt: skip
        assert expected in record
    assert record.index("Paris") < record.index("allow\\_once") < record.index("Stop reason")


def test_record_before_finish_says_not_finished() -> None:
    assert "not finished" in Transcript(prompt="p").record_markdown()


def test_plan_entry_status_changes_keep_the_same_widgets() -> None:
    t = Transcript(prompt="p")
    entries = [
        {"content": "A", "priority": "high", "status": "pending"},
        {"content": "B", "priority": "low", "status": "pending"},
    ]
    t.add(wire({"sessionUpdate": "plan", "entries": entries}))
    before = [w for w in walk(t) if isinstance(w, nodes.Text)]
    t.add(wire({"sessionUpdate": "plan", "entries": [{**entries[0], "status": "in_progress"}, entries[1]]}))
    after = [w for w in walk(t) if isinstance(w, nodes.Text)]
    assert before == after and [w.value for w in after] == ["You", "Plan", "◐ A (high)", "○ B (low)"]


def test_an_untitled_tool_call_is_headed_by_its_name() -> None:
    """Schema 1.22's ``name`` (on SDK 0.12 given by nbacp.client.wire.sdk_compat.with_tool_name)."""
    t = Transcript(prompt="go")
    start = wire({"sessionUpdate": "tool_call", "toolCallId": "toolu_1", "title": "", "kind": "other"})
    t.add(with_tool_name(start, "NotebookEdit"))
    t.add(wire({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_1", "status": "completed"}))
    t.add(
        with_tool_name(
            wire(
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": "toolu_2",
                    "title": "Read a.csv",
                    "kind": "read",
                    "status": "completed",
                }
            ),
            "Read",
        )
    )
    t.finish("end_turn")
    shown = labels(t)
    assert any(label.startswith("✓ NotebookEdit · other") for label in shown), shown
    assert any(label.startswith("✓ Read a.csv · read") for label in shown), shown
    assert not any("toolu_1" in label for label in shown)
