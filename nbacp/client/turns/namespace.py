"""The person's namespace: IPython's ``user_ns`` in a kernel, marimo's globals in a marimo
notebook, ``__main__``'s globals elsewhere.

Prompts name attached objects after the variable that holds them, and the kernel tools list,
describe and run code in this namespace; both look it up here, at call time, so a kernel
restart or a script both see the live namespace.
"""

from __future__ import annotations

import sys
from typing import Any

from nbacp.marimo_runtime import notebook_globals, running_in_marimo


def user_namespace() -> dict[str, Any]:
    """The namespace a notebook cell runs in (``__main__`` when there is neither IPython nor marimo)."""
    if running_in_marimo():
        found = notebook_globals()
        if found is not None:
            return found
    if "IPython" in sys.modules:
        from IPython import get_ipython

        shell = get_ipython()
        if shell is not None:
            return shell.user_ns  # type: ignore[no-any-return]
    return vars(sys.modules["__main__"])


def public_names(namespace: dict[str, Any]) -> list[str]:
    """Names a person made: no ``_`` prefix, no modules, no IPython bookkeeping (In, Out, exit...)."""
    hidden = _hidden(namespace)
    names = []
    for name, value in namespace.items():
        if name.startswith("_") or name in hidden or type(value).__name__ == "module":
            continue
        names.append(name)
    return names


def _hidden(namespace: dict[str, Any]) -> set[str]:
    hidden = {"In", "Out", "exit", "quit", "get_ipython", "open"}
    if "IPython" in sys.modules:
        from IPython import get_ipython

        shell = get_ipython()
        if shell is not None and namespace is shell.user_ns:
            hidden |= set(getattr(shell, "user_ns_hidden", {}))
    return hidden


def name_of(obj: Any, namespace: dict[str, Any] | None = None) -> str | None:
    """The first public name bound to ``obj`` itself (identity, not equality), or None."""
    ns = user_namespace() if namespace is None else namespace
    for name in public_names(ns):
        if ns.get(name) is obj:
            return name
    return None
