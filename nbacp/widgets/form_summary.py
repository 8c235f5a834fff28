"""What an accepted form says afterwards: its summary line, and one typed answer per question.

The summary is the line an answered card keeps in its place and in the turn's record; the
typed answers are what ``result.answers`` and the record list (docs/record.md, 'Answers').
Both read the content the card sent, with secrets shown as ``•••`` (docs/agents.md, 'Secret
questions and deadlines'), and shorten each value to ``SUMMARY_VALUE_CHARS``.
"""

from __future__ import annotations

from typing import Any

from nbacp.form import ChoiceField, Form, FormQuestion, WireValue
from nbacp.widgets.form_spec import is_secret

SUMMARY_VALUE_CHARS = 80

TypedAnswer = tuple[str, Any, str | None, str]
"""(title, value, custom, line) of one question."""


def describe_content(form: Form, content: dict[str, WireValue]) -> str:
    """The summary of an accepted ``content``: each question's label and its answer."""
    content = form.shown(content)  # secrets never reach the summary or the record
    parts: list[str] = []
    for item in form.items:
        if isinstance(item, FormQuestion):
            text = describe_question(item, content)
            if text and item.choice.title is None and len(form.items) == 1:
                parts.append(text)
            elif text:
                parts.append(f"{item.choice.label} = {text}")
        elif item.name in content:
            value = "•••" if is_secret(item) else short(wire_text(content[item.name]))
            parts.append(f"{item.label} = {value}")
    return "; ".join(parts)


def describe_question(question: FormQuestion, content: dict[str, WireValue]) -> str:
    """The labels picked for ``question`` and its Other text, shortened."""
    choice: ChoiceField = question.choice
    picked = content.get(choice.name)
    labels: list[str] = []
    for value in picked if isinstance(picked, list) else ([picked] if isinstance(picked, str) else []):
        option = choice.option(value)
        labels.append(short(option.label if option is not None else value))
    text = ", ".join(labels)
    custom = content.get(question.custom.name) if question.custom is not None else None
    if isinstance(custom, str):
        quoted = f"“{short(custom)}”"
        text = f"{text} + {quoted}" if text else quoted
    return text


def typed_answers(form: Form, message: str, content: dict[str, WireValue]) -> list[TypedAnswer]:
    """(title, value, custom, line) per question.

    A lone question is titled by the card's message (what the person read: ACP Kit's
    ``ask_choice`` titles its one property "Choice"); each of several by its own title.
    """
    lone = len(form.items) == 1 and bool(message.strip())
    out: list[TypedAnswer] = []
    for item in form.items:
        if isinstance(item, FormQuestion):
            title = message if lone else item.choice.label
            value: Any = content.get(item.choice.name)
            raw = content.get(item.custom.name) if item.custom is not None else None
            custom = raw if isinstance(raw, str) else None
            if value is None and custom is not None and item.exclusive:
                value = custom  # a single-select's Other text is its answer
            shown = describe_question(item, content)
        else:
            title = message if lone else item.label
            value, custom = content.get(item.name), None
            shown = short(wire_text(content[item.name])) if item.name in content else ""
        out.append((title, value, custom, f"Accepted: {shown}" if shown else "Accepted with no answer."))
    return out


def wire_text(value: WireValue) -> str:
    """A sent value as text: yes/no, a list joined by commas."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value)
    return str(value)


def short(text: str) -> str:
    """``text`` on one line, cut to ``SUMMARY_VALUE_CHARS``."""
    text = " ".join(text.split())
    return text if len(text) <= SUMMARY_VALUE_CHARS else text[: SUMMARY_VALUE_CHARS - 1] + "…"
