"""Content blocks and session updates for test agents, on both SDK lines.

SDK 1.0 removed ``acp.helpers`` (``text_block``, ``update_agent_message``...); the schema
constructors exist on both lines, and 0.12 needs the discriminator written out.
"""

from __future__ import annotations

from typing import Any

from acp import schema

from nbacp.client.wire.sdk_compat import text_block

__all__ = [
    "start_tool_call",
    "text_block",
    "update_agent_message",
    "update_agent_message_text",
    "update_agent_thought_text",
    "update_user_message",
]


def update_agent_message(content: Any) -> schema.AgentMessageChunk:
    return schema.AgentMessageChunk(session_update="agent_message_chunk", content=content)


def update_agent_message_text(text: str) -> schema.AgentMessageChunk:
    return update_agent_message(text_block(text))


def update_agent_thought_text(text: str) -> schema.AgentThoughtChunk:
    return schema.AgentThoughtChunk(session_update="agent_thought_chunk", content=text_block(text))


def update_user_message(content: Any) -> schema.UserMessageChunk:
    return schema.UserMessageChunk(session_update="user_message_chunk", content=content)


def start_tool_call(tool_call_id: str, title: str, **fields: Any) -> schema.ToolCallStart:
    return schema.ToolCallStart(session_update="tool_call", tool_call_id=tool_call_id, title=title, **fields)
