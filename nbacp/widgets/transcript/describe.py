"""One-line plain-text descriptions of ACP update parts (shown through Labels, never HTML)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from acp import schema

from nbacp.render.safe_text import safe_text

LIMIT = 300
TOOL_GLYPH = {"pending": "○", "in_progress": "◐", "completed": "✓", "failed": "✗", "cancelled": "⊘"}
PLAN_GLYPH = {"pending": "○", "in_progress": "◐", "completed": "✓"}


def clip(text: str, limit: int = LIMIT) -> str:
    """One line of at most ``limit`` characters: agent strings can be arbitrarily long (and hostile)."""
    flat = " ".join(safe_text(str(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def content_block(block: Any) -> str:
    """A short description of a non-text content block (images are never loaded)."""
    if isinstance(block, schema.TextContentBlock):
        return clip(block.text)
    if isinstance(block, schema.ImageContentBlock):
        where = f" {block.uri}" if block.uri else ""
        return f"[image {block.mime_type}{where}]"
    if isinstance(block, schema.AudioContentBlock):
        return f"[audio {block.mime_type}]"
    if isinstance(block, schema.ResourceContentBlock):
        return clip(f"[resource {block.title or block.name}: {block.uri}]")
    if isinstance(block, schema.EmbeddedResourceContentBlock):
        return clip(f"[embedded resource {block.resource.uri}]")
    return f"[{type(block).__name__}]"


def tool_header(state: dict[str, Any]) -> str:
    status = state.get("status") or "pending"
    glyph = TOOL_GLYPH.get(status, "?")
    kind = state.get("kind")
    parts = [f"{glyph} {clip(state.get('title') or state.get('name') or state['id'], 160)}"]
    if kind:
        parts.append(str(kind))
    parts.append(status.replace("_", " "))
    return " · ".join(parts)


def locations(locs: Sequence[schema.ToolCallLocation] | None) -> str:
    if not locs:
        return ""
    shown = [f"{loc.path}:{loc.line}" if loc.line is not None else loc.path for loc in locs[:8]]
    more = f" (+{len(locs) - 8} more)" if len(locs) > 8 else ""
    return clip("at " + ", ".join(shown) + more)


def unified_diff(edit: schema.FileEditToolCallContent) -> str:
    old = (edit.old_text or "").splitlines(keepends=True)
    new = edit.new_text.splitlines(keepends=True)
    before = edit.path if edit.old_text is not None else "/dev/null"
    lines = difflib.unified_diff(old, new, fromfile=before, tofile=edit.path)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def plan_entry(entry: schema.PlanEntry) -> str:
    return f"{PLAN_GLYPH.get(entry.status, '?')} {clip(entry.content, 200)} ({entry.priority})"


def commands(update: schema.AvailableCommandsUpdate) -> str:
    names = [f"/{c.name}" for c in update.available_commands]
    shown = ", ".join(names[:12]) + (f" (+{len(names) - 12} more)" if len(names) > 12 else "")
    return clip(f"Commands: {shown or 'none'}")


def config(update: schema.ConfigOptionUpdate) -> str:
    parts: list[str] = []
    for option in update.config_options:
        value: object = option.current_value
        if isinstance(option, schema.SessionConfigOptionSelect):
            choices: list[schema.SessionConfigSelectOption] = []
            for item in option.options:
                choices.extend(item.options if isinstance(item, schema.SessionConfigSelectGroup) else [item])
            value = next((c.name for c in choices if c.value == option.current_value), option.current_value)
        elif isinstance(value, bool):
            value = "on" if value else "off"
        parts.append(f"{option.name} = {value}")
    return clip("Config: " + ("; ".join(parts) or "none"))


def session_info(update: schema.SessionInfoUpdate) -> str:
    parts = [f"Session: {update.title}" if update.title else "Session info"]
    if update.updated_at:
        parts.append(f"updated {update.updated_at}")
    return clip(" · ".join(parts))


def usage(update: schema.UsageUpdate) -> str:
    share = f" ({100 * update.used / update.size:.0f}%)" if update.size > 0 else ""
    text = f"Usage: {update.used:,} / {update.size:,} tokens{share}"
    if update.cost is not None:
        text += f" · cost {update.cost.amount:.4g} {update.cost.currency}"
    return clip(text)


def update_kind(update: object) -> str:
    """The wire name of an update (``sessionUpdate``), or its type name when it has none."""
    if isinstance(update, dict):
        kind = update.get("sessionUpdate") or update.get("session_update")
        return clip(str(kind), 60) if kind else "dict"
    kind = getattr(update, "session_update", None)
    return clip(str(kind), 60) if isinstance(kind, str) else type(update).__name__
