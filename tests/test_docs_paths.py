"""Every file, folder, module and section the docs name exists: docs say what the code is now.

A page that names ``nbacp/widgets/choice_card.py`` after the module was deleted sends a reader
to nothing, and so does ``nbacp.widgets.choice_card`` or ``(kernels.md, 'Held edits')`` after
the section went. This reads ``README.md`` and every page under ``docs/`` and checks what they
name, without importing anything (the docs must hold on every test tier, extras or not).

What counts as a name, and not as prose:

- a **repository path**: any word that starts with one of the project's top folders and a
  slash (``nbacp/``, ``js/``, ``labextension/``, ``tests/``, ``benchmarks/``, ``.ci/``, ``notebooks/``,
  ``docs/``), in backticks or not, e.g. ``tests/browser/test_colab_stack.py``; prose never
  writes those words otherwise (a word in double quotes is a string, e.g. the ``_meta`` key
  ``"nbacp/customFor"``). A ``*`` is a glob that must match at least one file; a word
  holding ``<`` is a pattern (``tests/<subpackage>/``), not a path. Build outputs are not in a
  clone (``BUILT``): they pass when the source they are built from exists;
- a **file named in backticks** by a shorter path or its bare name (``form_card.py``,
  ``wire/ws_link.py``): it must be the end of some file's path in the project; files of other
  projects that the docs quote are listed in ``OTHER_PROJECTS``;
- a **dotted module name**: any ``nbacp.a.b`` word. Its longest prefix that is a module file or
  package must exist, and the next part, if any, must be bound at that module's top level (a
  def, class, assignment, import, or a name in ``__all__``: the lazy exports); through a
  ``from nbacp... import`` it is followed into the module it came from, and into a class
  defined there for one more part (``nbacp.Form.from_schema``: a method or class attribute of
  its body; a class with bases may inherit the name, so there any part passes). Deeper parts
  (an attribute of an instance) are not checked;
- a **relative link** ``[text](target)``: the target exists (relative to the page), and a
  ``#anchor`` on a page is one of that page's headings (GitHub's slugs);
- a **section citation** ``page.md, 'Section'`` (also ``docs/page.md, 'Section'`` and
  ``[page.md](page.md), 'Section'``): the page has a heading with exactly that text.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
TOP_FOLDERS = ("nbacp", "js", "labextension", "tests", "benchmarks", ".ci", "notebooks", "docs")
PROJECT_TREES = ("nbacp", "js/src", "js/test", "labextension", "tests", "benchmarks", ".ci", "notebooks", "docs")
SKIPPED_PARTS = {"node_modules", "__pycache__", ".pytest_cache"}

# Not in a clone: built from a source that is (a path under the key passes when the value exists).
BUILT = {
    "nbacp/widgets/static/": "js/src",  # npm builds the cards' bundle and stylesheet (gitignored)
    "nbacp/demo/examples/": "notebooks",  # the wheel ships notebooks/*.ipynb there
    "nbacp/labextension/": "labextension/src",  # the front-end piece, built by npm (gitignored)
}
# Files of other projects the docs quote by name (codex-acp's bundle, read for its encodings).
OTHER_PROJECTS = {"dist/index.js"}
PROBE = ROOT / "docs" / "probe.md"  # where the checker's own tests pretend their text lives

PATH = re.compile(r"(?<![\w/.@\"-])((?:" + "|".join(re.escape(t) for t in TOP_FOLDERS) + r")/[\w./*<>-]*)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FILE_IN_CODE = re.compile(r"^[\w./-]+\.(?:py|js|css|md|ipynb|json|jsonl|cfg|toml|png)$")
MODULE = re.compile(r"(?<![\w./-])nbacp(?:\.[A-Za-z_]\w*)+")
LINK = re.compile(r"\]\(([^)\s]+)\)")
SECTION = re.compile(r"(?:docs/)?([\w-]+\.md)(?:\]\([^)]*\))?,\s+'([^']+)'")
HEADING = re.compile(r"^#+\s+(.*?)\s*$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


@cache
def project_files() -> tuple[str, ...]:
    """Every file of the project's own trees, as a path from the root."""
    found: list[str] = [p.name for p in ROOT.iterdir() if p.is_file()]
    for tree in PROJECT_TREES:
        for path in (ROOT / tree).rglob("*"):
            if path.is_file() and not SKIPPED_PARTS.intersection(path.parts):
                found.append(path.relative_to(ROOT).as_posix())
    return tuple(found)


def path_exists(name: str) -> bool:
    """A repository path (maybe a glob, maybe a build output) names something that is there."""
    for built, source in BUILT.items():
        if name.startswith(built) or name == built.rstrip("/"):
            return (ROOT / source).exists()
    if "*" in name:
        return any(ROOT.glob(name.rstrip("/")))
    return (ROOT / name).exists()


def file_named(name: str) -> bool:
    """A file named in backticks by its bare name or a shorter path is the end of a project path."""
    return name in OTHER_PROJECTS or any(f == name or f.endswith("/" + name) for f in project_files())


# -- dotted module names, resolved from the sources --------------------------------------
def module_file(dotted: str) -> Path | None:
    """The source of module ``dotted`` (a ``.py`` file or a package's ``__init__.py``), or None."""
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@cache
def top_level(source: Path) -> dict[str, ast.AST]:
    """The names a module binds at its top level (inside top-level ``if`` and ``try`` too), each to
    the node that binds it; ``__all__`` entries with no binding map to the module itself."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    bound: dict[str, ast.AST] = {}

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            bound[name.id] = node
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    bound[(alias.asname or alias.name).split(".")[0]] = node
            elif isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)

    visit(tree.body)
    exported = bound.get("__all__")
    if isinstance(exported, ast.Assign) and isinstance(exported.value, (ast.List, ast.Tuple)):
        for item in exported.value.elts:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                bound.setdefault(item.value, tree)
    return bound


def class_members(node: ast.ClassDef) -> set[str]:
    """Methods and class-level attributes a class body defines (inherited ones are not seen)."""
    names: set[str] = set()
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(item.name)
        elif isinstance(item, ast.Assign):
            names.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
    return names


def resolves(module: str, parts: list[str], depth: int = 0) -> bool:
    """``parts`` name something in ``module``: see the module docstring for how deep this looks."""
    if not parts or depth > 8:
        return True
    name, rest = parts[0], parts[1:]
    submodule = module_file(f"{module}.{name}")
    if submodule is not None:
        return resolves(f"{module}.{name}", rest, depth + 1)
    source = module_file(module)
    if source is None:
        return False
    node = top_level(source).get(name)
    if node is None:
        return False
    if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("nbacp") and node.level == 0:
        original = next((a.name for a in node.names if (a.asname or a.name) == name), name)
        return resolves(node.module, [original, *rest], depth + 1)
    if isinstance(node, ast.ClassDef) and rest:
        inherits = any(not (isinstance(b, ast.Name) and b.id == "object") for b in node.bases)
        return rest[0] in class_members(node) or inherits
    return True


def module_exists(dotted: str) -> bool:
    """``nbacp.a.b`` (a module) or ``nbacp.a.name`` (something module ``nbacp.a`` binds)."""
    return resolves("nbacp", dotted.split(".")[1:])


# -- links and sections ----------------------------------------------------------------
def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(page: Path) -> list[str]:
    return HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8")))


def link_problem(page: Path, target: str) -> str | None:
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
        return None
    file_part, _, anchor = target.partition("#")
    linked = (page.parent / file_part).resolve() if file_part else page
    if not linked.exists():
        return f"links to {target}, which does not exist"
    if anchor and linked.suffix == ".md" and anchor not in {slug(h) for h in headings(linked)}:
        return f"links to {target}: {linked.name} has no such heading"
    return None


# -- one page ----------------------------------------------------------------------------
def problems(text: str, page: Path) -> list[str]:
    """What ``text``, the text of ``page``, names that is not there, one line per problem."""
    found: list[str] = []
    docs = ROOT / "docs"
    for lineno, line in enumerate(text.splitlines(), 1):
        for match in PATH.finditer(line):
            name = match.group(1).rstrip(".,:;")
            if "<" not in name and not path_exists(name):
                found.append(f"{lineno}: names {name}, which does not exist")
        for span in CODE_SPAN.findall(line):
            word = span.strip().rstrip("/")
            if FILE_IN_CODE.match(word) and not PATH.match(word) and not file_named(word):
                found.append(f"{lineno}: names the file {word}, which no project path ends with")
        for match in MODULE.finditer(line):
            if not module_exists(match.group(0)):
                found.append(f"{lineno}: names {match.group(0)}, which no module defines")
        for match in LINK.finditer(line):
            problem = link_problem(page, match.group(1))
            if problem:
                found.append(f"{lineno}: {problem}")
        for match in SECTION.finditer(line):
            cited = docs / match.group(1)
            if not cited.is_file():
                found.append(f"{lineno}: cites {match.group(1)}, which is not a page under docs/")
            elif match.group(2) not in headings(cited):
                found.append(f"{lineno}: {match.group(1)} has no section {match.group(2)!r}")
    return found


def test_there_are_pages() -> None:
    """The scan below would pass vacuously on no pages."""
    assert len(PAGES) > 15


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_what_the_page_names_exists(page: Path) -> None:
    assert problems(page.read_text(encoding="utf-8"), page) == []


@pytest.mark.parametrize(
    "line",
    [
        "Field controls live in `nbacp/widgets/fields.py`.",
        "Build it from js/src/choice_card.js.",
        "The card mirrors `choice_card.py`.",
        "Import `nbacp.widgets.choice_card` for it.",
        "`nbacp.form.NoSuchName` is gone.",
        "`nbacp.Form.no_such_method` is gone.",
        "See [the page](no-such-page.md).",
        "See [the section](kernels.md#no-such-heading).",
        "As measured ([kernels.md](kernels.md), 'No such section').",
        "As measured (nowhere.md, 'Status').",
        "Every file in `tests/nowhere/*.py`.",
    ],
)
def test_the_checker_catches_a_name_that_is_not_there(line: str) -> None:
    """Each rule fires on a name that is missing (read as a page of docs/, for relative links)."""
    assert len(problems(line, PROBE)) == 1, problems(line, PROBE)


def test_the_checker_accepts_what_is_there() -> None:
    """The same forms, naming things that exist, and prose that only looks like a name."""
    text = "\n".join(
        [
            "`nbacp/widgets/form_card.py`, js/src/base.js, `tests/browser/test_colab_stack.py`, `.ci/run`.",
            "`form_card.py` and `transports/ws_link.py`; `notebooks/*.ipynb`; `nbacp/widgets/static/card.js`.",
            "`nbacp.widgets.form_card`, nbacp.kernel.ensure_comm_status, `nbacp.Form.from_schema`, `nbacp.FormCard`.",
            "[the layers](design.md#layers); ([kernels.md](kernels.md), 'Colab'); (docs/kernels.md, 'Status').",
            "`tests/<subpackage>/`, https://example.org/tests/nowhere.py, nbacp. Then `dist/index.js`.",
        ]
    )
    assert problems(text, PROBE) == []
