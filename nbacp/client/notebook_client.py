"""NotebookClient: the ACP client half that lives in the kernel and answers through widgets.

It is the routing table of the client's incoming methods: each ``acp.Client`` method below
is one line naming the handler family that answers it, each living with its capability:
``questions.handler``, ``turns.updates_handler``, ``turns.extension_notes``,
``workspace.fs_handler`` and ``workspace.terminal_handler``. The families share the
connection's surfaces (``nbacp.client.surface``) and the sessions' folders.
A method the client did not advertise is answered "Method not found", as if it did not exist.
"""

from __future__ import annotations

from typing import Any

from acp.schema import (
    AuthCapabilities,
    BooleanConfigOptionCapabilities,
    ClientCapabilities,
    ClientSessionCapabilities,
    CreateTerminalResponse,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ElicitationUrlCapabilities,
    EnvVariable,
    FileSystemCapabilities,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    SessionConfigOptionsCapabilities,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from nbacp.client.questions.handler import AnswerPolicy, Questions
from nbacp.client.subagents import Subagents
from nbacp.client.surface import Surfaces
from nbacp.client.turns.extension_notes import ExtensionNotes
from nbacp.client.turns.updates_handler import Updates
from nbacp.client.wire.guard import Guard
from nbacp.client.workspace.fs_handler import FileAccess, Files, Roots
from nbacp.client.workspace.terminal_handler import TerminalHandlers
from nbacp.client.workspace.terminals import Terminals
from nbacp.widgets.card import Card

RAW_CAPABILITIES: dict[str, Any] = {"subagents": {}, "session": {"notices": {}, "compaction": {}}}
"""Capabilities the SDK's models drop (both lines: schema 1.25 and later), merged into the raw
``initialize`` by the raw tap: subagent sessions, notices and context compaction (docs/protocol.md,
'Subagents, notices, compaction')."""
DISPLAY_TERMINALS = {"terminal_output_delta": True}
"""The ``clientCapabilities._meta`` opt-in to claude-agent-acp's and codex-acp's display terminals
(docs/files-and-terminals.md, 'Display terminals')."""


class NotebookClient:
    """Implements ``acp.Client`` for one connection. Sessions register their surfaces here."""

    def __init__(
        self,
        *,
        answers: AnswerPolicy | None = None,
        agent_name: str | None = None,
        fs: FileAccess = True,
        terminal: bool = True,
    ) -> None:
        self.surfaces = Surfaces()
        self.roots = Roots()
        self.subagents = Subagents()  # the children the agent announced, by session (docs/protocol.md)
        self.roots.parent_of = self.subagents.parent_of  # a child reads and writes in its parent's folders
        self.questions = Questions(self.surfaces, answers, agent_name, self.subagents)
        self.session_updates = Updates(self.surfaces, self.subagents)
        self.files = Files(fs, self.roots, self.surfaces)
        self.terminal_handlers = TerminalHandlers(terminal, self.roots, self.surfaces)
        self.notes = ExtensionNotes(self.surfaces)
        self.guard: Guard | None = None  # installed on the SDK connection as soon as it exists

    # -- acp.Client: the table -----------------------------------------------------------
    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        return await self.questions.create_elicitation(message, mode)

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        self.questions.complete_elicitation(elicitation_id)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> Any:
        return await self.questions.request_permission(session_id, tool_call, options)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.session_updates.session_update(session_id, update, kwargs)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        self.notes.ext_notification(method, params)

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        return await self.files.read_text_file(session_id, path, line, limit)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> WriteTextFileResponse:
        return await self.files.write_text_file(session_id, path, content)

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        return await self.terminal_handlers.create_terminal(session_id, command, args, env, cwd, output_byte_limit)

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> TerminalOutputResponse:
        return self.terminal_handlers.terminal_output(session_id, terminal_id)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        return await self.terminal_handlers.wait_for_terminal_exit(session_id, terminal_id)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> KillTerminalResponse:
        return await self.terminal_handlers.kill_terminal(session_id, terminal_id)

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> ReleaseTerminalResponse:
        return await self.terminal_handlers.release_terminal(session_id, terminal_id)

    def cancel_request(self, request_id: Any) -> bool:
        """``$/cancel_request`` (seen by the raw tap): close the card answering that request."""
        return self.questions.cancel_request(request_id)

    def on_connect(self, conn: Any) -> None:
        """Called by the SDK's ClientSideConnection at the end of its constructor, before any
        message is read: the guard is in place for the agent's very first frame."""
        if self.guard is not None:
            self.guard.install(conn)

    # -- what the connection and its sessions use ------------------------------------------
    def capabilities(self) -> ClientCapabilities:
        """Only what is implemented: form and URL elicitation, boolean config options, the file
        system and terminals as chosen in ``connect(fs=..., terminal=...)``, and display terminals.

        No terminal sign-in (``auth.terminal`` stays false). ``RAW_CAPABILITIES`` go beside these
        on the wire (the SDK's model would drop them).
        """
        return ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=self.files.read, write_text_file=self.files.write),
            terminal=self.terminal_handlers.enabled,
            elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities(), url=ElicitationUrlCapabilities()),
            session=ClientSessionCapabilities(
                config_options=SessionConfigOptionsCapabilities(boolean=BooleanConfigOptionCapabilities())
            ),
            auth=AuthCapabilities(terminal=False),
            field_meta=dict(DISPLAY_TERMINALS),
        )

    @property
    def terminals(self) -> Terminals:
        """The client terminals the agent started, by session (``nbacp.client.workspace.terminals``)."""
        return self.terminal_handlers.terminals

    def open_cards(self, session_id: str | None = None) -> list[Card[Any]]:
        """The cards still waiting for the person (of one session, or all)."""
        return self.questions.open_cards(session_id)

    def cancel_cards(self, reason: str, session_id: str | None = None) -> int:
        """Resolve every open card (of one session, or all) as cancelled; returns how many."""
        return self.questions.cancel_cards(reason, session_id)

    async def aclose(self) -> None:
        await self.terminal_handlers.aclose()
        await self.questions.aclose()
