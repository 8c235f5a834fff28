"""``fs/read_text_file`` and ``fs/write_text_file``: the agent reads and writes through the kernel.

The rule (docs/files-and-terminals.md, 'File system'): a path is served only inside the
session's roots (its ``cwd`` and additional directories), checked after every symlink is
resolved, so a link inside the project that points outside it is refused. A read returns UTF-8
text of at most ``MAX_READ_BYTES``; anything else (outside, missing, not text, too large, a
directory) is a JSON-RPC error whose message says why, because that message is all the agent's
model learns. A write never replaces a notebook the person has open
(``nbacp.client.workspace.open_notebooks``): two writers on one ``.ipynb`` lose one side's work.
Writes are atomic (a temporary file in the same folder, then a rename) and keep the file's mode.

No card is shown per read or write: consent is the agent's own permission request, as in the
editors (docs/files-and-terminals.md, 'Consent'); these checks hold whatever mode the agent is in.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp import RequestError

MAX_READ_BYTES = 1024 * 1024
"""The largest text one read returns (UTF-8 bytes); larger reads must use ``line`` / ``limit``."""
MAX_DIFF_BYTES = 1024 * 1024
"""Above this size (old or new text) a write's diff is counted by lines only, not computed."""

REFUSED = -32602  # JSON-RPC "invalid params": the request names a path nbacp will not serve
NOT_FOUND = -32002  # ACP "resource not found"


def refusal(path: str, reason: str, message: str, code: int = REFUSED) -> RequestError:
    """A JSON-RPC error whose message says why; ``data.reason`` is a stable keyword for programs."""
    return RequestError(code, message, {"path": path, "reason": reason})


def resolve_inside(path: str, roots: Sequence[Path]) -> Path:
    """``path`` with every symlink resolved, if it lies inside one of ``roots``; else a refusal.

    ``roots`` are already resolved. The path must be absolute (the spec says so, and a relative
    path would silently mean the kernel's cwd).
    """
    if not path or "\x00" in path:
        raise refusal(path, "invalid_path", "Refused: the path is empty or contains a NUL character.")
    if not os.path.isabs(path):
        raise refusal(path, "not_absolute", f"Refused: {path} is not an absolute path (ACP requires one).")
    real = Path(os.path.realpath(path))
    if not any(real == root or real.is_relative_to(root) for root in roots):
        where = ", ".join(str(root) for root in roots) or "(none)"
        link = f" (it resolves to {real})" if str(real) != os.path.normpath(path) else ""
        raise refusal(
            path,
            "outside_roots",
            f"Refused: {path}{link} is outside the session's folders ({where}); "
            "nbacp reads and writes only inside them.",
        )
    return real


def read_text(
    path: str, roots: Sequence[Path], line: int | None = None, limit: int | None = None, max_bytes: int = MAX_READ_BYTES
) -> str:
    """The text of ``path`` (from 1-based ``line``, at most ``limit`` lines), or a refusal.

    Blocking (file I/O): the client runs it in a worker thread.
    """
    real = resolve_inside(path, roots)
    if real.is_dir():
        raise refusal(path, "is_directory", f"Refused: {path} is a directory, not a file.")
    if real.exists() and not real.is_file():  # a FIFO or a device would block or never end
        raise refusal(path, "not_a_file", f"Refused: {path} is not a regular file.")
    start = max((line or 1) - 1, 0)
    taken: list[str] = []
    size = 0
    try:
        with open(real, encoding="utf-8", newline="") as handle:  # newline="": line endings kept as they are
            for number, text in enumerate(handle):
                if number < start:
                    continue
                if limit is not None and len(taken) >= limit:
                    break
                if "\x00" in text:
                    raise _not_text(path)
                size += len(text.encode("utf-8"))
                if size > max_bytes:
                    raise refusal(
                        path,
                        "too_large",
                        f"Refused: reading {path} would return more than {max_bytes:,} bytes (nbacp's limit "
                        "for one read); read it in parts with line and limit.",
                    )
                taken.append(text)
    except FileNotFoundError:
        raise refusal(path, "not_found", f"Resource not found: {path} does not exist.", NOT_FOUND) from None
    except UnicodeDecodeError:
        raise _not_text(path) from None
    except PermissionError:
        raise refusal(path, "not_permitted", f"Refused: the kernel may not read {path} (permission denied).") from None
    return "".join(taken)


def _not_text(path: str) -> RequestError:
    return refusal(path, "not_text", f"Refused: {path} is not UTF-8 text (binary files are not read through nbacp).")


@dataclass(frozen=True)
class Written:
    """What one write changed: shown in the turn as a diff block and kept in the record."""

    path: str
    old_text: str | None  # None: a new file (or one too large to diff)
    new_text: str
    added: int
    removed: int
    created: bool

    @property
    def summary(self) -> str:
        """ "new file, +3" or "+2 -1": the line the record keeps."""
        return f"new file, +{self.added}" if self.created else f"+{self.added} -{self.removed}"


def write_text(path: str, content: str, roots: Sequence[Path], protected: Iterable[Path] = ()) -> Written:
    """Write ``content`` to ``path`` atomically, or refuse (outside the roots, an open notebook).

    Blocking (file I/O): the client runs it in a worker thread.
    """
    real = resolve_inside(path, roots)
    if real in {Path(os.path.realpath(p)) for p in protected}:
        raise refusal(
            path,
            "notebook_open",
            f"Refused: {path} is a notebook open in Jupyter; writing it would overwrite the person's "
            "unsaved work. Change its cells with the notebook tools (notebook_read, notebook_edit: the "
            "person reviews each edit) where the session has them; otherwise show the cells in your answer.",
        )
    if real.is_dir():
        raise refusal(path, "is_directory", f"Refused: {path} is a directory, not a file.")
    created = not real.exists()
    old_text: str | None = None
    if not created and real.stat().st_size <= MAX_DIFF_BYTES:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            old_text = real.read_text(encoding="utf-8")
    try:
        _atomic_write(real, content)
    except PermissionError:
        raise refusal(path, "not_permitted", f"Refused: the kernel may not write {path} (permission denied).") from None
    added, removed = count_changes(old_text, content)
    if old_text is None and not created:  # too large to diff: count lines, not changes
        added, removed = content.count("\n"), 0
    return Written(path, old_text, content, added, removed, created)


def count_changes(old_text: str | None, new_text: str) -> tuple[int, int]:
    """Lines added and removed, as a unified diff counts them."""
    old = (old_text or "").splitlines()
    new = new_text.splitlines()
    if len(new_text) > MAX_DIFF_BYTES:
        return len(new), len(old)
    added = removed = 0
    for line in difflib.unified_diff(old, new, lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def _atomic_write(target: Path, content: str) -> None:
    """A temporary file beside ``target``, then ``os.replace``: a reader never sees half a file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".nbacp-tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    """The process umask, read without changing it where Linux allows (``os.umask`` sets it)."""
    with contextlib.suppress(OSError, ValueError):
        for row in Path("/proc/self/status").read_text().splitlines():
            if row.startswith("Umask:"):
                return int(row.split()[1], 8)
    old = os.umask(0o022)
    os.umask(old)
    return old
