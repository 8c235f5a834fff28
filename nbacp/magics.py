"""``%load_ext nbacp``: prompt without boilerplate, ``%%agent [session]`` and ``%agent ...``.

The cell body (or the rest of the line) is the prompt. ``{expr}`` is evaluated in the user
namespace: DataFrames, figures and paths are attached (see ``nbacp.client.turns.attachments``) and
named in the text; any other value is formatted into the text with ``str``. ``{{`` and ``}}``
are literal braces. Without a session name the last session used (or created) is prompted.

A magic is a plain function, and a plain function cannot await the turn in the kernel's own
loop. So the extension also registers an input transformer that rewrites an ``%%agent`` cell,
and every top-level ``%agent`` line, into ``await ...`` before IPython sees it; IPython's
autoawait then runs the cell as a coroutine. On kernels where a cell cannot await widgets
(``nbacp.kernel.can_await_widgets()`` is False) the rewrite uses ``start()`` instead, which
returns at once and shows the turn live; the registered magics do the same when IPython calls
them directly (``run_cell_magic``, terminal IPython).
"""

from __future__ import annotations

import os
import shlex
from typing import Any

from IPython.core.error import UsageError

from nbacp import kernel
from nbacp.client.sessions.session import Session, last_session
from nbacp.client.turns.attachments import is_dataframe, is_figure, is_series
from nbacp.client.turns.namespace import user_namespace
from nbacp.errors import MagicError

__all__ = ["agent_prompt", "expand", "load_ipython_extension", "pick_session", "unload_ipython_extension"]


# -- the prompt text ------------------------------------------------------------------------
def _attachable(value: Any) -> bool:
    return is_dataframe(value) or is_series(value) or is_figure(value) or isinstance(value, os.PathLike)


def _expression_end(text: str, start: int) -> int:
    """Index of the ``}`` closing the expression that starts at ``start`` (just after ``{``)."""
    depth, quote, i = 0, "", start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif text.startswith(quote, i):
                i += len(quote) - 1
                quote = ""
        elif ch in "'\"":
            quote = text[i : i + 3] if text[i : i + 3] in ("'''", '"""') else ch
            i += len(quote) - 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                if ch == "}":
                    return i
                break
            depth -= 1
        i += 1
    raise MagicError(f"Unclosed '{{' in the prompt at character {start}; write '{{{{' for a literal brace.")


def expand(template: str, namespace: dict[str, Any]) -> tuple[str, list[Any]]:
    """The prompt text and the objects to attach, from a body with ``{expr}`` fields."""
    out: list[str] = []
    objects: list[Any] = []
    i = 0
    while i < len(template):
        ch = template[i]
        if template.startswith("{{", i) or template.startswith("}}", i):
            out.append(ch)
            i += 2
            continue
        if ch == "}":
            raise MagicError(f"Single '}}' in the prompt at character {i}; write '}}}}' for a literal brace.")
        if ch != "{":
            out.append(ch)
            i += 1
            continue
        end = _expression_end(template, i + 1)
        source = template[i + 1 : end].strip()
        if not source:
            raise MagicError("Empty '{}' in the prompt; write '{{}}' for literal braces.")
        try:
            value = eval(source, namespace)  # noqa: S307 - the person's own cell, in their own namespace
        except Exception as exc:
            raise MagicError(f"{{{source}}} failed: {type(exc).__name__}: {exc}") from None
        if _attachable(value):
            objects.append(value)
            out.append(source)
        else:
            out.append(str(value))
        i = end + 1
    return "".join(out), objects


# -- which session --------------------------------------------------------------------------
def pick_session(name: str, namespace: dict[str, Any]) -> Session:
    """The session named by ``name`` (a Session, or a Connection's latest session); '' = the last used."""
    if not name:
        session = last_session()
        if session is None:
            raise MagicError(
                "No open session: `conn = await nbacp.connect(...)`, "
                "`session = await conn.new_session()`, then %%agent (or name one: %%agent session)."
            )
        return session
    if name not in namespace:
        raise MagicError(f"No variable named {name!r}: %%agent takes the name of a session (or connection).")
    value = namespace[name]
    if isinstance(value, Session):
        return value
    sessions = getattr(value, "sessions", None)
    if isinstance(sessions, list) and sessions and isinstance(sessions[-1], Session):
        return sessions[-1]
    raise MagicError(f"{name!r} is a {type(value).__name__}, not an nbacp session or a connection with one.")


def _prepare(args: str, body: str) -> tuple[Session, str, list[Any]]:
    try:
        return _parse(args, body)
    except MagicError as exc:  # IPython shows a plain UsageError (exactly that class) without a traceback
        raise UsageError(str(exc)) from None


def _parse(args: str, body: str) -> tuple[Session, str, list[Any]]:
    namespace = user_namespace()
    words = shlex.split(args)
    if len(words) > 1:
        raise MagicError(f"%%agent takes at most one session name, got {args.strip()!r}.")
    session = pick_session(words[0] if words else "", namespace)
    text, objects = expand(body.strip("\n"), namespace)
    if not text.strip() and not objects:
        raise MagicError("The prompt is empty: write it in the cell below %%agent.")
    return session, text, objects


async def agent_prompt(args: str, body: str) -> None:
    """What an ``%%agent`` cell becomes where cells can await widgets: the awaited turn.

    Returns None so the cell shows the turn and its record, not a repr; ``session.turn``
    (and ``await session.turn``) holds the result.
    """
    __tracebackhide__ = True  # hidden from IPython tracebacks (docs/kernels.md, 'The stop button')
    session, text, objects = _prepare(args, body)
    await session.prompt(text, *objects)


def agent_start(args: str, body: str) -> Any:
    """The fallback: start the turn and return its handle (``await`` it in a later cell)."""
    session, text, objects = _prepare(args, body)
    return session.start(text, *objects)


# -- IPython wiring -------------------------------------------------------------------------
_CALL = "__import__('nbacp.magics').magics"


def _rewrite(lines: list[str]) -> list[str]:
    """Input transformer: ``%%agent`` cells and top-level ``%agent`` lines become awaited calls."""
    if not lines:
        return lines
    awaited = kernel.can_await_widgets()
    call = f"await {_CALL}.agent_prompt" if awaited else f"{_CALL}.agent_start"
    end = "" if awaited else ";"  # start(): no repr of the Turn under its live view (session.turn has it)
    first = lines[0].rstrip("\r\n")
    if first.split(maxsplit=1)[:1] == ["%%agent"]:
        args = first[len("%%agent") :]
        body = "".join(lines[1:])
        return [f"{call}({args!r}, {body!r}){end}\n"]
    out = []
    for line in lines:
        if line.split(maxsplit=1)[:1] == ["%agent"] and not line[:1].isspace():
            text = line.rstrip("\r\n")[len("%agent") :].strip()
            out.append(f"{call}('', {text!r}){end}\n")
        else:
            out.append(line)
    return out


def load_ipython_extension(ipython: Any) -> None:
    from IPython.core.magic import no_var_expand

    @no_var_expand
    def agent(line: str, cell: str | None = None) -> Any:
        """%agent <prompt>  or  %%agent [session] + prompt body: prompt the last (or named) session."""
        return agent_start(line, cell) if cell is not None else agent_start("", line)

    ipython.register_magic_function(agent, magic_kind="line_cell", magic_name="agent")
    cleanup = ipython.input_transformers_cleanup
    if _rewrite not in cleanup:
        cleanup.append(_rewrite)


def unload_ipython_extension(ipython: Any) -> None:
    cleanup = ipython.input_transformers_cleanup
    if _rewrite in cleanup:
        cleanup.remove(_rewrite)
