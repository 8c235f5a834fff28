"""The package's layout holds: no import circle, no private name across modules, layers that only look down.

Read from the sources with ``ast`` (nothing is imported), over every module of ``nbacp/``.
Every import counts: at module level, inside functions and under ``TYPE_CHECKING``, because
each of them is a dependency a reader has to follow (docs/design.md, 'Layers').

The rules checked:
- the module graph has no cycle (a package's ``__init__`` counts as a module; importing
  ``nbacp.a.b`` is an edge to ``nbacp.a.b``, ``from nbacp.a import b`` to ``nbacp.a.b`` when
  ``b`` is a module, else to ``nbacp.a``);
- no module imports another module's ``_private`` name (single underscore); a private module
  (``nbacp.questions._types``) is imported only from inside its own package;
- layers: form and render import no ipywidgets, anywidget, acp, and nothing of the kernel,
  widgets or client; kernel imports no widgets or client; widgets import no client;
  ``nbacp.client.wire`` imports nothing of the session layer (the rest of ``nbacp.client``),
  the widgets or anything above; no module imports a layer above its own;
- no public function or class is named like a submodule of its package;
- imports of nbacp's own modules inside functions only in the package root (its IPython
  extension hooks import ``nbacp.magics`` and so IPython only when ``%load_ext`` runs);
- inside ``nbacp.client``, laid out by capability, run-time imports (all but those under
  ``TYPE_CHECKING``, which only name types in signatures) go down ``CLIENT_RANKS`` and never
  round a circle between its folders (docs/layout.md, 'The client').
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "nbacp"

# Lower numbers sit lower; a module may import its own layer and the ones below it.
LAYERS = {
    "nbacp.errors": 0,
    "nbacp._version": 0,
    "nbacp.display": 0,
    "nbacp.marimo_runtime": 0,
    "nbacp.updates": 0,
    "nbacp.form": 1,
    "nbacp.render": 2,
    "nbacp.kernel": 3,
    "nbacp.widgets": 4,
    "nbacp.client.wire": 4,
    "nbacp.client": 5,
    "nbacp.questions": 6,
    "nbacp.answers": 6,
    "nbacp.magics": 6,
    "nbacp.demo": 6,
    "nbacp": 7,  # the package root: the lazy facade over everything
}
PURE = ("ipywidgets", "anywidget", "acp")
FORBIDDEN_THIRD_PARTY = {"nbacp.form": PURE, "nbacp.render": PURE}
SIBLINGS_APART = (("nbacp.client.wire", "nbacp.widgets"), ("nbacp.widgets", "nbacp.client.wire"))
FUNCTION_LOCAL_OWN_ALLOWED = {"nbacp"}
# The session layer's capabilities, lower numbers lower: a folder, or a module at its top.
CLIENT_RANKS = {
    "nbacp.client.wire": 0,
    "nbacp.client.surface": 1,
    "nbacp.client.subagents": 1,
    "nbacp.client.connection_view": 1,
    "nbacp.client.auth": 2,
    "nbacp.client.workspace": 2,
    "nbacp.client.questions": 3,
    "nbacp.client.turns": 4,
    "nbacp.client.tools": 5,
    "nbacp.client.sessions": 5,
    "nbacp.client.notebook_client": 6,
    "nbacp.client.connection": 7,
    "nbacp.client": 8,  # its lazy exports
}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the dotted name imported (a module, or the module a name comes from)
    names: tuple[str, ...]  # for ``from target import names``; () for ``import target``
    in_function: bool
    line: int
    type_only: bool = False  # under ``if TYPE_CHECKING:``


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = modules()


def imports_of(name: str, path: Path) -> Iterator[Import]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def walk(node: ast.AST, in_function: bool, type_only: bool = False) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            local = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            typing = type_only or (
                isinstance(child, ast.If) and isinstance(child.test, ast.Name) and child.test.id == "TYPE_CHECKING"
            )
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(name, alias.name, (), in_function, child.lineno, type_only)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    base = ".".join([*parts, *([child.module] if child.module else [])])
                yield Import(name, base, tuple(a.name for a in child.names), in_function, child.lineno, type_only)
            yield from walk(child, local, typing)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), False)


ALL_IMPORTS = [imp for name, path in MODULES.items() for imp in imports_of(name, path)]


def owning_module(dotted: str) -> str | None:
    while dotted and dotted not in MODULES:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def edges(imp: Import) -> set[str]:
    """The nbacp modules one import statement depends on."""
    if not (imp.target == "nbacp" or imp.target.startswith("nbacp.")):
        return set()
    if not imp.names:
        found = owning_module(imp.target)
        return {found} if found else set()
    targets = set()
    for item in imp.names:
        full = f"{imp.target}.{item}"
        found = full if full in MODULES else owning_module(imp.target)
        if found:
            targets.add(found)
    return targets - {imp.module}


def graph() -> dict[str, set[str]]:
    result: dict[str, set[str]] = {name: set() for name in MODULES}
    for imp in ALL_IMPORTS:
        result[imp.module] |= edges(imp)
    return result


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(g):
        if start in index:
            continue
        work = [(start, iter(sorted(g[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(g[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def layer_of(module: str) -> tuple[str, int]:
    best = max((key for key in LAYERS if module == key or module.startswith(key + ".")), key=len)
    return best, LAYERS[best]


def climbing() -> list[str]:
    """Imports that break the layer rule, as readable lines."""
    problems = []
    for imp in ALL_IMPORTS:
        mine, level = layer_of(imp.module)
        for target in edges(imp):
            theirs, their_level = layer_of(target)
            if their_level > level or (mine, theirs) in SIBLINGS_APART:
                problems.append(f"{imp.module}:{imp.line} ({mine}) imports {target} ({theirs})")
        for layer, banned in FORBIDDEN_THIRD_PARTY.items():
            if mine == layer and imp.target.split(".")[0] in banned:
                problems.append(f"{imp.module}:{imp.line} ({mine}) imports {imp.target}")
    return problems


def private_imports() -> list[str]:
    problems = []
    for imp in ALL_IMPORTS:
        if not imp.target.startswith("nbacp"):
            continue
        for item in imp.names:
            if item.startswith("_") and not item.startswith("__") and f"{imp.target}.{item}" not in MODULES:
                problems.append(f"{imp.module}:{imp.line} imports the private {imp.target}.{item}")
        for target in edges(imp):
            parent, _, last = target.rpartition(".")
            private_module = last.startswith("_") and not last.startswith("__")
            if private_module and not (imp.module == parent or imp.module.startswith(parent + ".")):
                problems.append(f"{imp.module}:{imp.line} imports the private module {target} from outside {parent}")
    return problems


def test_the_sources_are_all_read() -> None:
    assert {"nbacp", "nbacp.client.wire.guard", "nbacp.client.sessions.session", "nbacp.form.model"} <= set(MODULES)
    assert len(ALL_IMPORTS) > 300


def test_no_import_circle() -> None:
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_private_name_crosses_modules() -> None:
    assert private_imports() == []


def test_layers_only_look_down() -> None:
    assert climbing() == []


def test_imports_inside_functions_are_third_party() -> None:
    own = [
        f"{imp.module}:{imp.line} imports {imp.target}"
        for imp in ALL_IMPORTS
        if imp.in_function and edges(imp) and imp.module not in FUNCTION_LOCAL_OWN_ALLOWED
    ]
    assert own == []


def test_every_module_says_why_it_exists() -> None:
    missing = [name for name, path in MODULES.items() if not ast.get_docstring(ast.parse(path.read_text("utf-8")))]
    assert missing == []


def test_no_public_function_is_named_like_a_submodule() -> None:
    """``nbacp.a.b`` is always the module, never a function or class that hides it."""
    clashes = []
    for name, path in MODULES.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.parse(path.read_text("utf-8")).body:
            defined = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            if defined and not node.name.startswith("_"):
                sibling = f"{package}.{node.name}"
                if sibling in MODULES and sibling != name:
                    clashes.append(f"{name}.{node.name}")
    assert clashes == []


def client_unit(module: str) -> str | None:
    """The capability of ``nbacp.client`` a module belongs to (a key of ``CLIENT_RANKS``), or None."""
    units = [key for key in CLIENT_RANKS if module == key or module.startswith(key + ".")]
    return max(units, key=len) if units else None


def client_edges() -> dict[tuple[str, str], list[str]]:
    """Run-time imports between two capabilities of the client, with the imports behind each."""
    found: dict[tuple[str, str], list[str]] = {}
    for imp in ALL_IMPORTS:
        mine = client_unit(imp.module)
        if mine is None or imp.type_only:
            continue
        for target in edges(imp):
            theirs = client_unit(target)
            if theirs is not None and theirs != mine:
                found.setdefault((mine, theirs), []).append(f"{imp.module}:{imp.line} imports {target}")
    return found


def test_every_client_module_has_a_rank() -> None:
    unranked = [name for name in MODULES if name.startswith("nbacp.client") and client_unit(name) is None]
    assert unranked == []
    assert {name.split(".")[2] for name in MODULES if name.count(".") >= 2 and name.startswith("nbacp.client.")} <= {
        key.rpartition(".")[2] for key in CLIENT_RANKS
    }


def test_the_client_imports_down_its_capabilities() -> None:
    upward = [
        line
        for (mine, theirs), lines in client_edges().items()
        if CLIENT_RANKS[theirs] > CLIENT_RANKS[mine]
        for line in lines
    ]
    assert upward == []


def test_no_circle_between_the_clients_capabilities() -> None:
    units: dict[str, set[str]] = {key: set() for key in CLIENT_RANKS}
    for mine, theirs in client_edges():
        units[mine].add(theirs)
    assert cycles(units) == []


def test_no_client_folder_is_a_corridor() -> None:
    """A folder a reader scans in one look: at most 15 modules beside its ``__init__``."""
    for folder in sorted({path.parent for path in MODULES.values() if "client" in path.parts}):
        count = len([p for p in folder.glob("*.py") if p.name != "__init__.py"])
        assert count <= 15, f"{folder.relative_to(ROOT.parent)} holds {count} modules"


def test_the_type_checking_imports_are_told_apart() -> None:
    lifecycle = [imp for imp in ALL_IMPORTS if imp.module == "nbacp.client.connection.lifecycle"]
    assert any(imp.type_only and imp.target == "nbacp.client.notebook_client" for imp in lifecycle)
    assert any(not imp.type_only and imp.target == "nbacp.client.sessions.session" for imp in lifecycle)
