"""What a turn shows of a terminal: the end of its output and its exit, bounded.

Two sources feed it (docs/files-and-terminals.md): nbacp's own client terminals (the whole
kept output each time it changes), and the "display terminals" of claude-agent-acp and
codex-acp, which run the command themselves and put its output in a tool call's ``_meta``:
``terminal_output`` (claude: the whole output; codex: one chunk), ``terminal_output_delta``
(a chunk to append) and ``terminal_exit``. Only the last ``SHOWN_CHARS`` characters are kept
for the view, so a command that prints gigabytes costs the page a constant amount.
``Terminals`` holds what a turn shows of each terminal, which its tool call blocks read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nbacp.render.exit_status import ExitStatus, exit_line

SHOWN_CHARS = 16_000
"""The end of a terminal's output a turn shows (and keeps); earlier output is counted, not kept."""


@dataclass
class TerminalText:
    """The shown tail of one terminal's output, how much was cut, and its exit."""

    tail: str = ""
    cut: bool = False  # earlier output is not shown (cut here, or never handed over)
    exit: str | None = None  # "exit code 0", "killed by SIGKILL", ... once it ended

    def replace(self, text: str, *, cut: bool = False) -> None:
        self.tail, self.cut = "", cut
        self.append(text)

    def append(self, text: str) -> None:
        self.tail += text
        if len(self.tail) > SHOWN_CHARS:
            self.tail = self.tail[len(self.tail) - SHOWN_CHARS :]
            self.cut = True

    def shown(self) -> str:
        """The text the turn shows: a note that earlier output was cut, the tail, the exit."""
        head = "… (earlier output not shown)\n" if self.cut else ""
        end = ""
        if self.exit:
            end = f"[{self.exit}]" if not self.tail or self.tail.endswith("\n") else f"\n[{self.exit}]"
        return head + self.tail + end


class Terminals:
    """What a turn shows of each terminal it heard of, by terminal id."""

    def __init__(self) -> None:
        self.shown: dict[str, str] = {}  # what each terminal's tool calls show (TerminalText.shown)
        self._texts: dict[str, TerminalText] = {}

    def output(self, terminal_id: str, output: str, *, exit_status: ExitStatus | None = None, omitted: int = 0) -> str:
        """A client-side terminal's output: ``output`` is its end, after ``omitted`` earlier bytes
        (not kept, or not handed over). Returns what the turn now shows of it."""
        text = self._text(terminal_id)
        text.replace(output, cut=omitted > 0)
        if exit_status is not None:
            text.exit = exit_status.line()
        return self._changed(terminal_id)

    def display(self, meta: Any) -> list[str]:
        """claude-agent-acp's and codex-acp's display terminals in a tool call's ``_meta``
        (docs/files-and-terminals.md); returns the ids of the terminals that changed, in order."""
        changed: list[str] = []
        for terminal_id, kind, value in display_updates(meta):
            text = self._text(terminal_id)
            if kind == "output":
                text.replace(value)
            elif kind == "delta":
                text.append(value)
            else:
                text.exit = value
            self._changed(terminal_id)
            changed.append(terminal_id)
        return changed

    def _text(self, terminal_id: str) -> TerminalText:
        text = self._texts.get(terminal_id)
        if text is None:
            text = self._texts[terminal_id] = TerminalText()
        return text

    def _changed(self, terminal_id: str) -> str:
        shown = self.shown[terminal_id] = self._texts[terminal_id].shown()
        return shown


def display_updates(meta: Mapping[str, Any] | None) -> list[tuple[str, str, Any]]:
    """The display-terminal parts of a tool call's ``_meta``: (terminal id, "output"|"delta"|"exit", value)."""
    if not isinstance(meta, Mapping):
        return []
    found: list[tuple[str, str, Any]] = []
    for key, kind in (("terminal_output", "output"), ("terminal_output_delta", "delta"), ("terminal_exit", "exit")):
        part = meta.get(key)
        if not isinstance(part, Mapping) or not isinstance(part.get("terminal_id"), str):
            continue
        if kind == "exit":
            found.append((part["terminal_id"], kind, exit_line(part.get("exit_code"), part.get("signal"))))
        elif isinstance(part.get("data"), str):
            found.append((part["terminal_id"], kind, part["data"]))
    return found
