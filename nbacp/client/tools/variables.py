"""What the agent may read without asking: the names, types and shapes in the person's namespace.

``list_variables`` and ``describe`` only read; they never call user code beyond ``repr``,
``shape``/``len`` and (for DataFrames) ``head``/``dtypes``, and every answer is bounded.
"""

from __future__ import annotations

import reprlib
from typing import Any

from nbacp.client.turns.attachments import MAX_CHARS, MAX_ROWS, is_dataframe, is_series, table_text
from nbacp.client.turns.namespace import public_names

MAX_VARIABLES = 200
"""list_variables stops after this many names and says how many it left out."""


def type_name(value: Any) -> str:
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module.split('.', 1)[0]}.{cls.__qualname__}"


def shape_of(value: Any) -> str:
    """``(rows, columns)`` for arrays and frames, ``len N`` for other sized containers, else ''."""
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape):
        return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"
    if isinstance(value, str | bytes | list | tuple | dict | set | frozenset):
        return f"len {len(value)}"
    return ""


def list_variables(namespace: dict[str, Any], *, limit: int = MAX_VARIABLES) -> str:
    """One line per public variable: ``name: type shape``; functions and classes are listed too."""
    names = sorted(public_names(namespace))
    lines = []
    for name in names[:limit]:
        value = namespace[name]
        shape = shape_of(value)
        lines.append(f"{name}: {type_name(value)}" + (f" {shape}" if shape else ""))
    if len(names) > limit:
        lines.append(f"... and {len(names) - limit} more (not listed)")
    return "\n".join(lines) if lines else "(the namespace has no variables yet)"


def describe(namespace: dict[str, Any], name: str, *, max_rows: int = MAX_ROWS, max_chars: int = MAX_CHARS) -> str:
    """Schema, dtypes and a bounded head for a DataFrame; type, shape, dtype and a short repr otherwise."""
    if name not in namespace or name not in public_names(namespace):
        raise KeyError(f"No variable named {name!r} in the notebook.")
    value = namespace[name]
    if is_dataframe(value) or is_series(value):
        return table_text(value, name, max_rows=max_rows, max_chars=max_chars)
    lines = [f"{name}: {type_name(value)}"]
    shape = shape_of(value)
    if shape:
        lines.append(f"shape: {shape}")
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        lines.append(f"dtype: {dtype}")
    short = reprlib.Repr()  # keyword arguments only from Python 3.12
    short.maxstring = short.maxother = max_chars // 4
    short.maxlist = short.maxdict = 20
    lines.append("value: " + short.repr(value))
    text = "\n".join(lines)
    return text if len(text) <= max_chars else text[:max_chars] + "\n... (truncated)"
