"""Objects in prompts: DataFrames, figures and files become ACP content blocks.

``session.prompt("Why are these null?", df, fig, "data/raw.csv")`` converts every argument
here, before anything is sent, so a missing capability is a clear error and not a half-sent
turn. Pure: no kernel, no widgets; pandas, polars and matplotlib are recognised by duck typing
and never imported, so they stay optional.

* a pandas / polars DataFrame (or pandas Series) -> an embedded text resource: schema, row
  count and the first ``max_rows`` rows as CSV, saying so when rows were left out; needs the
  agent's ``promptCapabilities.embeddedContext``.
* a matplotlib figure, or any object with ``_repr_png_`` -> an image block (``image``).
* a path (``os.PathLike``, or a ``str`` naming an existing file) -> a ``resource_link``; a
  small UTF-8 file is embedded instead when the agent accepts embedded context. The file is
  read with a bound, so a file that reports size 0 (``/proc/self/maps``) is linked, not
  embedded whole, once it proves larger than the limit.
* any other ``str`` -> more prompt text.

The prompt's own text (``prompt_parts``' first argument) is always text, even when a file of
that name exists; only the objects after it can be files (docs/attachments.md).
"""

from __future__ import annotations

import base64
import io
import mimetypes
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbacp.client.wire.sdk_compat import embedded_text_block, image_block, resource_link_block, text_block
from nbacp.errors import AttachmentError

MAX_ROWS = 20
"""Default number of DataFrame rows sent as CSV."""
MAX_CHARS = 20_000
"""Default cap on a DataFrame resource's text, whatever the rows hold."""
EMBED_LIMIT = 16 * 1024
"""Files up to this many bytes are embedded (when allowed); larger ones are linked."""

Namer = Callable[[Any], str | None]


@dataclass(frozen=True)
class Attachment:
    """One converted object: the block to send and the line the turn's view shows."""

    name: str
    kind: str  # "table", "image", "file", "link" (a resource_link)
    size: int  # bytes on the wire (text, image data, or the file's size for a link)
    detail: str  # e.g. "1,000 rows x 3 columns, first 20 sent"
    block: Any

    def describe(self) -> str:
        extra = f", {self.detail}" if self.detail else ""
        return f"{self.name} ({self.kind}{extra}, {human_size(self.size)})"


def human_size(size: int) -> str:
    if size < 1000:
        return f"{size} B"
    for unit in ("kB", "MB", "GB"):
        size_f = size / 1000
        if size_f < 1000 or unit == "GB":
            return f"{size_f:.1f} {unit}"
        size = int(size_f)
    return f"{size} B"  # pragma: no cover


def summary_line(attachments: Iterable[Attachment]) -> str:
    """The line the turn's view and its record show: ``Attached: df (table, ...) · fig (image, ...)``.

    Every object after the prompt is named, a string sent as text too, so the record says what
    each argument became (a file, a link, or text).
    """
    items = [a.describe() for a in attachments if a.kind != "prompt"]
    return "Attached: " + " · ".join(items) if items else ""


# -- recognising objects ------------------------------------------------------------------
def _library(obj: Any) -> str:
    return type(obj).__module__.split(".", 1)[0]


def is_dataframe(obj: Any) -> bool:
    """pandas or polars DataFrame, by its type's module and shape (no import of either)."""
    lib = _library(obj)
    return lib in ("pandas", "polars") and type(obj).__name__ == "DataFrame" and hasattr(obj, "shape")


def is_series(obj: Any) -> bool:
    return _library(obj) in ("pandas", "polars") and type(obj).__name__ == "Series"


def is_figure(obj: Any) -> bool:
    """A matplotlib Figure (which has no ``_repr_png_``), or anything that renders itself as PNG."""
    if _library(obj) == "matplotlib" and callable(getattr(obj, "savefig", None)):
        return True
    return callable(getattr(obj, "_repr_png_", None)) and not isinstance(obj, type)


# -- DataFrames ---------------------------------------------------------------------------
def table_schema(df: Any) -> list[tuple[str, str]]:
    """(column, dtype) pairs of a pandas or polars DataFrame."""
    if _library(df) == "polars":
        return [(str(name), str(dtype)) for name, dtype in df.schema.items()]
    return [(str(name), str(dtype)) for name, dtype in df.dtypes.items()]


def table_text(df: Any, name: str, *, max_rows: int = MAX_ROWS, max_chars: int = MAX_CHARS) -> str:
    """Schema, row count and a bounded head as CSV; the text says what was left out."""
    if max_rows < 0:
        raise ValueError("max_rows must be >= 0")
    if is_series(df):
        df = df.to_frame()
    rows, columns = (int(n) for n in df.shape)
    lib = _library(df)
    lines = [f"# DataFrame {name} ({lib}): {rows:,} rows x {columns:,} columns", "# schema:"]
    lines += [f"#   {column}: {dtype}" for column, dtype in table_schema(df)]
    shown = min(rows, max_rows)
    head = df.head(shown)
    csv = head.write_csv() if lib == "polars" else head.to_csv(index=True)
    if shown < rows:
        lines.append(f"# first {shown:,} of {rows:,} rows as CSV (truncated: {rows - shown:,} rows not shown)")
    else:
        lines.append(f"# all {rows:,} rows as CSV")
    text = "\n".join(lines) + "\n" + str(csv)
    if len(text) > max_chars:
        cut = text[:max_chars]
        cut = cut[: cut.rfind("\n") + 1] or cut
        text = cut + f"# truncated at {max_chars:,} characters; the remaining rows are not shown\n"
    return text


def _table(df: Any, name: str, max_rows: int, max_chars: int) -> Attachment:
    text = table_text(df, name, max_rows=max_rows, max_chars=max_chars)
    frame = df.to_frame() if is_series(df) else df
    rows, columns = (int(n) for n in frame.shape)
    detail = f"{rows:,} rows x {columns:,} columns"
    if rows > max_rows:
        detail += f", first {max_rows:,} sent"
    block = embedded_text_block(f"nbacp://variables/{name}", text, mime_type="text/csv")
    return Attachment(name, "table", len(text.encode()), detail, block)


# -- figures ------------------------------------------------------------------------------
def figure_png(obj: Any) -> bytes:
    """PNG bytes of a matplotlib figure or of any ``_repr_png_`` object."""
    if _library(obj) == "matplotlib" and callable(getattr(obj, "savefig", None)):
        buffer = io.BytesIO()
        obj.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()
    data = obj._repr_png_()
    if isinstance(data, tuple):  # IPython allows (data, metadata)
        data = data[0]
    if isinstance(data, str):  # IPython allows base64 text too
        return base64.b64decode(data)
    if not isinstance(data, bytes | bytearray) or not data:
        raise AttachmentError(f"{type(obj).__name__}._repr_png_() returned no PNG data")
    return bytes(data)


def _image(obj: Any, name: str) -> Attachment:
    png = figure_png(obj)
    data = base64.b64encode(png).decode("ascii")
    return Attachment(name, "image", len(png), "image/png", image_block(data, "image/png"))


# -- files --------------------------------------------------------------------------------
def _file(path: Path, embed: bool, embed_limit: int) -> Attachment:
    if not path.is_file():
        raise AttachmentError(f"{os.fspath(path)!r} is not a file")
    resolved = path.resolve()
    size = resolved.stat().st_size
    mime = mimetypes.guess_type(resolved.name)[0]
    uri = resolved.as_uri()
    data = _read_at_most(resolved, embed_limit + 1) if embed and size <= embed_limit else None
    if data is not None and len(data) <= embed_limit:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None:
            embedded = embedded_text_block(uri, text, mime_type=mime or "text/plain")
            return Attachment(path.name, "file", len(data), mime or "text/plain", embedded)
    if data is not None and len(data) > embed_limit:  # it reported a size it does not have (/proc)
        detail = f"{mime + ', ' if mime else ''}size not known in advance, over {human_size(embed_limit)}"
        link = resource_link_block(resolved.name, uri, mime_type=mime)
        return Attachment(path.name, "link", len(data), detail, link)
    link = resource_link_block(resolved.name, uri, mime_type=mime, size=size)
    return Attachment(path.name, "link", size, mime or "", link)


def _read_at_most(path: Path, limit: int) -> bytes | None:
    """Up to ``limit`` bytes of the file, whatever size it reports; None when it cannot be read."""
    try:
        with path.open("rb") as f:
            return f.read(limit)
    except OSError:
        return None


# -- the whole prompt ---------------------------------------------------------------------
def _needs(kind: str) -> str | None:
    return {"table": "embeddedContext", "image": "image", "file": "embeddedContext"}.get(kind)


def _allowed(capabilities: Any, name: str) -> bool:
    prompt = getattr(capabilities, "prompt_capabilities", capabilities)
    field = {"embeddedContext": "embedded_context"}.get(name, name)
    return bool(getattr(prompt, field, False)) if prompt is not None else False


def prompt_parts(
    text: str,
    objects: Sequence[Any],
    capabilities: Any = None,
    *,
    namer: Namer | None = None,
    max_rows: int = MAX_ROWS,
    max_chars: int = MAX_CHARS,
    embed_limit: int = EMBED_LIMIT,
) -> list[Attachment]:
    """A prompt's blocks: its ``text`` as text (never a file, whatever it names), then ``objects``
    as ``convert`` makes them."""
    prompt = Attachment("prompt", "prompt", len(text.encode("utf-8", "replace")), "", text_block(text))
    rest = convert(
        objects,
        capabilities,
        namer=namer,
        max_rows=max_rows,
        max_chars=max_chars,
        embed_limit=embed_limit,
        first_index=1,
    )
    return [prompt, *rest]


def convert(
    parts: Sequence[Any],
    capabilities: Any = None,
    *,
    namer: Namer | None = None,
    max_rows: int = MAX_ROWS,
    max_chars: int = MAX_CHARS,
    embed_limit: int = EMBED_LIMIT,
    first_index: int = 0,
) -> list[Attachment]:
    """Every prompt part as an Attachment (text parts get kind "text"), in order.

    ``capabilities`` is the agent's ``AgentCapabilities`` or ``PromptCapabilities``; a part
    that needs one the agent did not advertise raises AttachmentError naming it, before the
    caller sends anything. ``namer`` names objects (the kernel looks them up in the user
    namespace); unnamed objects are called after their type and position.
    """
    embed_ok = _allowed(capabilities, "embeddedContext")
    out: list[Attachment] = []
    for index, part in enumerate(parts, first_index):
        name = (namer(part) if namer is not None else None) or f"{type(part).__name__.lower()}_{index}"
        if isinstance(part, str) and not _names_file(part):
            shown = part if len(part) <= 40 else part[:39] + "…"
            out.append(Attachment(repr(shown), "text", len(part.encode("utf-8", "replace")), "", text_block(part)))
            continue
        if isinstance(part, str | os.PathLike):
            item = _file(Path(os.fspath(part)).expanduser(), embed_ok, embed_limit)
        elif is_dataframe(part) or is_series(part):
            item = _table(part, name, max_rows, max_chars)
        elif is_figure(part):
            item = _image(part, name)
        else:
            raise AttachmentError(
                f"Cannot attach {name!r} of type {type(part).__name__}: prompts take text, pandas/polars "
                "DataFrames, figures (matplotlib or anything with _repr_png_) and file paths. "
                f"Pass str({name}) to send its text."
            )
        need = _needs(item.kind)
        if need is not None and not _allowed(capabilities, need):
            raise AttachmentError(
                f"The agent does not accept {_what(item.kind)} in prompts (promptCapabilities.{need} is not "
                f"advertised), so {item.name!r} was not sent; nothing was sent."
            )
        out.append(item)
    return out


def _what(kind: str) -> str:
    return {
        "table": "embedded resources (a DataFrame is sent as one)",
        "image": "images",
        "file": "embedded files",
    }.get(kind, kind)


def _names_file(text: str) -> bool:
    """A str is a path only when it names an existing file (short, one line)."""
    if not text or len(text) > 4096 or "\n" in text:
        return False
    try:
        return Path(text).expanduser().is_file()
    except (OSError, ValueError):
        return False
