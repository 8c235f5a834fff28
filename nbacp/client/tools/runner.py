"""``run_python``'s execution: one piece of code in the person's namespace, its output captured and bounded.

Like a cell: statements run, and a final expression's value is shown (its repr, or an image for
a figure). stdout and stderr are captured, an exception becomes its traceback (frames of the
agent's code only), and matplotlib figures the code opened come back as PNG and are closed.
Nothing here asks for permission; the server does that before calling :func:`run_code`.
"""

from __future__ import annotations

import ast
import contextlib
import io
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any

from nbacp.client.turns.attachments import figure_png, is_figure

MAX_OUTPUT = 10_000
"""Characters of text output returned to the agent (stdout + stderr + value + error)."""
MAX_IMAGES = 4
"""Figures returned per run; more are counted, not sent."""
FILENAME = "<agent code>"


@dataclass
class RunOutput:
    stdout: str = ""
    stderr: str = ""
    value: str | None = None  # repr of the final expression, when there is one and it is not None
    error: str | None = None  # the traceback, when the code raised
    images: list[bytes] = field(default_factory=list)
    images_dropped: int = 0

    def text(self, limit: int = MAX_OUTPUT) -> str:
        """Everything textual, labelled, bounded to ``limit`` characters (and saying so)."""
        parts = []
        if self.stdout:
            parts.append(self.stdout.rstrip("\n"))
        if self.stderr:
            parts.append("[stderr]\n" + self.stderr.rstrip("\n"))
        if self.value is not None:
            parts.append(self.value)
        if self.error is not None:
            parts.append("[error]\n" + self.error.rstrip("\n"))
        if self.images or self.images_dropped:
            note = f"[{len(self.images)} figure(s) attached as PNG"
            parts.append(note + (f"; {self.images_dropped} more not sent]" if self.images_dropped else "]"))
        text = "\n".join(parts) or "(no output)"
        if len(text) > limit:
            text = text[:limit] + f"\n... (output truncated: {len(text) - limit:,} more characters)"
        return text


def _figures() -> dict[int, Any]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return {}
    return {num: pyplot.figure(num) for num in pyplot.get_fignums()}


def run_code(code: str, namespace: dict[str, Any], *, max_images: int = MAX_IMAGES) -> RunOutput:
    """Run ``code`` in ``namespace`` as a cell would; never raises for the code's own errors."""
    out = RunOutput()
    stdout, stderr = io.StringIO(), io.StringIO()
    before = set(_figures())
    value: Any = None
    try:
        tree = ast.parse(code, FILENAME, "exec")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        assert last is None or isinstance(last, ast.Expr)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            exec(compile(tree, FILENAME, "exec"), namespace)  # noqa: S102 - the person allowed exactly this code
            if last is not None:
                value = eval(compile(ast.Expression(last.value), FILENAME, "eval"), namespace)  # noqa: S307
    except BaseException as exc:  # SystemExit/KeyboardInterrupt from agent code must not end the kernel
        out.error = _traceback(exc)
    out.stdout, out.stderr = stdout.getvalue(), stderr.getvalue()
    images: list[bytes] = []
    if value is not None and is_figure(value):
        with contextlib.suppress(Exception):
            images.append(figure_png(value))
    elif value is not None:
        out.value = repr(value)
    pyplot = sys.modules.get("matplotlib.pyplot")
    for num, fig in _figures().items():
        if num in before:
            continue
        if fig is not value:
            with contextlib.suppress(Exception):
                images.append(figure_png(fig))
        if pyplot is not None:
            pyplot.close(fig)  # the agent's figure: do not leave it for the next cell to show
    out.images, out.images_dropped = images[:max_images], max(0, len(images) - max_images)
    return out


def _traceback(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == FILENAME]
    lines = traceback.format_list(frames) if frames else []
    return (
        "Traceback (most recent call last):\n"
        + "".join(lines)
        + "".join(traceback.format_exception_only(type(exc), exc))
        if lines
        else "".join(traceback.format_exception_only(type(exc), exc))
    )
