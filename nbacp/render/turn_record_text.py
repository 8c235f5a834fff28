"""The static record of a turn: markdown that stays inert in any renderer that shows it.

The record is displayed as ``text/markdown`` and read later on GitHub, nbviewer, JupyterLab
(which trusts outputs made in the session and does not sanitize them) and nbval. Agent text
in it must therefore not be able to produce tags, links or images in any of those renderers,
whatever their dialect. ``inert_markdown`` gets there without parsing: every ASCII
punctuation character is backslash-escaped (CommonMark and GFM show an escaped punctuation
character literally, so no emphasis, link, image, autolink, raw HTML, heading, list, table or
fence can start), leading indentation becomes non-breaking spaces (so no indented code block,
where escapes would show), and each line ends in a hard break so the text keeps its lines.
The cost is that the agent's formatting is shown as its source characters, as plain text.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

from nbacp.render.safe_text import no_math_markdown, safe_text

_PUNCT = re.compile("([" + re.escape(string.punctuation) + "])")
_LEAD = re.compile(r"^[ \t]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
LABELS = {"permission": ("Permission", "Decision"), "write": ("File written", "Change")}
"""How the record names each kind of answer-like entry; anything else is a question and its answer."""


def _line(line: str) -> str:
    lead = _LEAD.match(line)
    indent = ""
    if lead:
        indent = "&nbsp;" * len(lead.group(0).replace("\t", "    "))
        line = line[lead.end() :]
    return indent + _PUNCT.sub(r"\\\1", line.rstrip())


def inert_markdown(text: str) -> str:
    """``text`` as markdown that renders as exactly its characters, line by line."""
    text = _CONTROL.sub("", safe_text(text).replace("\r\n", "\n").replace("\r", "\n"))
    paragraphs: list[str] = []
    for block in re.split(r"\n[ \t]*\n", text.strip("\n")):
        lines = [_line(line) for line in block.split("\n")]
        lines = [line for line in lines if line]
        if lines:
            paragraphs.append("  \n".join(lines))
    return "\n\n".join(paragraphs)


def record_markdown(
    prompt: str,
    text: str,
    answers: Iterable[tuple[str, str, str]],
    stop_reason: str | None,
) -> str:
    """The widget-free record of one turn (prompt, agent text, answers, decisions, stop)."""
    parts = ["**You:**", inert_markdown(prompt) or "*(empty prompt)*", "**Agent:**"]
    parts.append(inert_markdown(text) or "*(no message text)*")
    for kind, question, answer in answers:
        label, verdict = LABELS.get(kind, ("Question", "Answer"))
        parts.append(f"**{label}:** {inert_markdown(question)}  \n**{verdict}:** {inert_markdown(answer)}")
    ended = inert_markdown(stop_reason) if stop_reason else "not finished"
    parts.append(f"*Stop reason: {ended}*")
    return no_math_markdown("\n\n".join(parts))


def record_text(
    prompt: str,
    text: str,
    answers: Iterable[tuple[str, str, str]],
    stop_reason: str | None,
) -> str:
    """The same record as plain text, for ``text/plain`` (terminals, nbval's stored outputs)."""
    lines = [f"You: {prompt.strip()}", f"Agent: {text.strip() or '(no message text)'}"]
    for kind, question, answer in answers:
        label, verdict = LABELS.get(kind, ("Question", "Answer"))
        lines.append(f"{label}: {question.strip()}\n  {verdict}: {answer.strip()}")
    lines.append(f"Stop reason: {stop_reason or 'not finished'}")
    return _CONTROL.sub("", safe_text("\n".join(lines)))
