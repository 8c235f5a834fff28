"""What nbacp tells an agent about the notebook it works in: the client system prompt.

Agents that advertise ``sessionCapabilities.systemPrompt`` in ``initialize`` (an object; its
``mode.override`` adds override to the ``append`` every advertising agent supports) take a
``systemPrompt: {mode, content: [text blocks]}`` on ``session/new``, ``load``, ``resume`` and
``fork``, and keep it only for that session's process: the client re-sends it each time.
nbacp sends ``append`` only, so the agent's own instructions stay; the text is short and is
quoted in docs/protocol.md, 'The client system prompt'. Neither SDK line carries the field
(pydantic drops it), so it goes on the wire through the raw tap (``raw_tap.outgoing``) and the
capability is read from the raw ``initialize`` result.

With the notebook tools on, claude-agent-acp is also asked not to use its own ``NotebookEdit``
(``_meta.claudeCode.options.disallowedTools`` on ``session/new``): it writes the ``.ipynb`` on
disk, behind the open document's back.

In a marimo notebook the text names marimo and its ``.py`` file instead (the caller says which
runtime it is in: this module only composes text); the notebook tools are not offered there
(``nbacp.client.tools.kernel_tools``), so the text says to show code in the answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from nbacp.client.tools import KernelTools

__all__ = [
    "APPEND",
    "NOTEBOOK_TOOLS",
    "Runtime",
    "SystemPrompt",
    "advertised",
    "compose",
    "field",
    "has_notebook_tools",
    "request_field",
    "session_meta",
]

SystemPrompt = str | bool
"""``new_session(system_prompt=...)``: True (the notebook's text), a str (the notebook's text,
then the person's), False (none)."""

APPEND = "append"
NOTEBOOK_TOOLS = ("notebook_read", "notebook_edit")
AGENT_NOTEBOOK_TOOLS = ("NotebookEdit",)
"""claude-agent-acp's built-in tools that write a notebook file themselves."""
MAX_OWN_CHARS = 20_000
"""The person's own text, beyond this, is refused (it travels on every new / load / resume / fork)."""

Runtime = Literal["jupyter", "marimo"]
"""The notebook the prompt cell is in: a Jupyter kernel (or a plain Python) or a marimo kernel."""

CELLS = (
    "The person writes each prompt in a notebook cell, and your answer is shown in that cell's "
    "output, rendered as Markdown (HTML and LaTeX math are shown as plain text)."
)
BASE = f"You are connected to a Jupyter notebook through nbacp, an Agent Client Protocol client. {CELLS}"
MARIMO_BASE = f"You are connected to a marimo notebook through nbacp, an Agent Client Protocol client. {CELLS}"
KERNEL = (
    'The MCP server "notebook" is the person\'s running Python kernel: list_variables and describe '
    "read the variables defined in the notebook, and run_python runs code there after the person "
    "allows it."
)
MARIMO_KERNEL = "Names that run_python defines do not make marimo re-run the cells that read them."
EDIT_WITH_TOOLS = (
    "To change the notebook, use notebook_read (its cells, by id) and notebook_edit (insert after, "
    "replace or delete a cell, by id); the person reviews each edit before it is applied."
)
EDIT_WITHOUT_TOOLS = "To suggest a new or changed cell, show its code in your answer."
NEVER_WRITE = (
    "Never write, edit or replace the open .ipynb file itself (no file writes, shell commands or "
    "notebook-editing tools of your own on it): the notebook is open in Jupyter, and writing its "
    "file loses the person's unsaved work."
)
MARIMO_NEVER_WRITE = (
    "Never write, edit or replace the open notebook's .py file itself (no file writes, shell commands "
    "or notebook-editing tools of your own on it): the notebook is open in marimo, whose editor keeps "
    "its own copy of the cells and saves it over the file."
)


def compose(
    choice: SystemPrompt, *, kernel_tools: bool = False, notebook_tools: bool = False, runtime: Runtime = "jupyter"
) -> str | None:
    """The text to send, or None for ``False``. ``kernel_tools`` / ``notebook_tools``: what the
    session was given (only tools it has are named); ``runtime``: which notebook it is."""
    if choice is False:
        return None
    if not isinstance(choice, str | bool):
        raise TypeError(f"system_prompt takes a str, True or False, not {type(choice).__name__}")
    if isinstance(choice, str) and len(choice) > MAX_OWN_CHARS:
        raise ValueError(f"system_prompt is {len(choice):,} characters; at most {MAX_OWN_CHARS:,} are sent")
    marimo = runtime == "marimo"
    parts = [MARIMO_BASE if marimo else BASE]
    if kernel_tools:
        parts += [KERNEL, MARIMO_KERNEL] if marimo else [KERNEL]
    parts.append(EDIT_WITH_TOOLS if notebook_tools else EDIT_WITHOUT_TOOLS)
    parts.append(MARIMO_NEVER_WRITE if marimo else NEVER_WRITE)
    text = " ".join(parts)
    own = choice.strip() if isinstance(choice, str) else ""
    return f"{text}\n\n{own}" if own else text


def advertised(agent_capabilities: Any) -> bool:
    """Whether raw ``agentCapabilities`` (the JSON of ``initialize``) advertise a client system prompt.

    The schema's capability is an object (``{}`` means append); anything else (``null``, ``true``,
    a list) advertises nothing, so nothing is sent.
    """
    session = agent_capabilities.get("sessionCapabilities") if isinstance(agent_capabilities, dict) else None
    return isinstance(session, dict) and isinstance(session.get("systemPrompt"), dict)


def field(text: str) -> dict[str, Any]:
    """The ``systemPrompt`` field of a session request: ``append``, one text block."""
    return {"mode": APPEND, "content": [{"type": "text", "text": text}]}


def session_meta(notebook_tools: bool) -> dict[str, Any]:
    """The ``_meta`` of ``session/new`` (the SDK's keyword arguments): with the notebook tools,
    claude-agent-acp's own notebook writer is turned off (other agents ignore the key)."""
    if not notebook_tools:
        return {}
    return {"claudeCode": {"options": {"disallowedTools": list(AGENT_NOTEBOOK_TOOLS)}}}


def has_notebook_tools(tools: KernelTools | None) -> bool:
    """Whether a session's kernel tools include the notebook tools (a link to the open notebook)."""
    return tools is not None and tools.notebook is not None


def request_field(
    raw_capabilities: Any, choice: SystemPrompt, tools: KernelTools | None = None, *, runtime: Runtime = "jupyter"
) -> dict[str, Any]:
    """The ``systemPrompt`` entry of a session request (``{}`` where the raw ``agentCapabilities``
    do not advertise it); a wrong ``choice`` is refused either way."""
    if not advertised(raw_capabilities):
        compose(choice)
        return {}
    text = compose(choice, kernel_tools=tools is not None, notebook_tools=has_notebook_tools(tools), runtime=runtime)
    return {"systemPrompt": field(text)} if text is not None else {}
