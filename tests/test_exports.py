"""The public surface of ``nbacp``: exactly these names, one name per class, and one error tree.

The errors live in ``nbacp/errors.py`` only, and its docstring draws their tree; the tests
here hold that drawing to the real classes, so the two cannot drift apart.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nbacp
import nbacp.errors

PUBLIC = [
    "AgentError",
    "AttachmentError",
    "AuthenticationError",
    "CellWaitUnavailableError",
    "ConnectError",
    "Connection",
    "ConnectionLostError",
    "ElicitationNotSupportedError",
    "Form",
    "FormCard",
    "FormValidationError",
    "InvalidQuestionFallbackError",
    "InvalidQuestionResponseError",
    "InvalidSchemaError",
    "MagicError",
    "NbacpError",
    "NotSupportedByAgentError",
    "NotSupportedError",
    "NotebookClient",
    "NotebookUnavailableError",
    "PermissionCard",
    "PromptResult",
    "QuestionReplyError",
    "ScriptError",
    "Session",
    "ToolsNotSupportedError",
    "Turn",
    "UrlConsentCard",
    "__version__",
    "connect",
    "kernel_tools",
]
# The standard class an ``except`` clause may name for each error (MagicError: no standard base,
# see nbacp/errors.py on why it is not IPython's UsageError).
STANDARD = {
    "NbacpError": Exception,
    "ConnectError": ConnectionError,
    "ConnectionLostError": ConnectionError,
    "AgentError": RuntimeError,
    "AuthenticationError": RuntimeError,
    "NotSupportedError": RuntimeError,
    "NotSupportedByAgentError": RuntimeError,
    "ToolsNotSupportedError": RuntimeError,
    "ElicitationNotSupportedError": RuntimeError,
    "QuestionReplyError": Exception,
    "InvalidQuestionResponseError": RuntimeError,
    "InvalidQuestionFallbackError": ValueError,
    "InvalidSchemaError": ValueError,
    "FormValidationError": ValueError,
    "AttachmentError": ValueError,
    "ScriptError": ValueError,
    "MagicError": Exception,
    "CellWaitUnavailableError": RuntimeError,
    "NotebookUnavailableError": RuntimeError,
}
# Packages that re-export some errors where their own public API documents them.
SUBPACKAGES = ("nbacp.form", "nbacp.questions", "nbacp.widgets", "nbacp.client")
TREE_LINE = re.compile(r"(?P<indent> *)(?P<name>[A-Z]\w*)(?: \((?P<standard>\w+)\))?")
NBACP = Path(nbacp.__file__).parent


def error_classes() -> dict[str, type[BaseException]]:
    """Every exception class that nbacp/errors.py defines."""
    return {
        name: value
        for name, value in vars(nbacp.errors).items()
        if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == "nbacp.errors"
    }


def drawn_tree(doc: str) -> dict[str, tuple[str | None, str | None]]:
    """Each class the docstring's tree draws -> (the nbacp class above it, its standard base)."""
    block = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    above: list[tuple[int, str]] = []
    drawn: dict[str, tuple[str | None, str | None]] = {}
    for line in block.splitlines():
        match = TREE_LINE.fullmatch(line)
        assert match, f"not a tree line: {line!r}"
        indent, name = len(match["indent"]), match["name"]
        while above and above[-1][0] >= indent:
            above.pop()
        assert name not in drawn, f"{name} drawn twice"
        drawn[name] = (above[-1][1] if above else None, match["standard"])
        above.append((indent, name))
    return drawn


def real_tree() -> dict[str, tuple[str | None, str | None]]:
    """Each error class -> (its nbacp base, its standard base), from ``__bases__``."""
    real: dict[str, tuple[str | None, str | None]] = {}
    for name, error in error_classes().items():
        own = [base.__name__ for base in error.__bases__ if base.__module__ == "nbacp.errors"]
        standard = [base.__name__ for base in error.__bases__ if base.__module__ != "nbacp.errors"]
        assert len(own) <= 1 and len(standard) <= 1, f"{name}: {error.__bases__}"
        real[name] = (own[0] if own else None, None if standard == ["Exception"] else (standard or [None])[0])
    return real


def test_all_is_pinned() -> None:
    assert sorted(nbacp.__all__) == nbacp.__all__ == PUBLIC
    assert sorted(dir(nbacp)) == PUBLIC


def test_every_name_resolves() -> None:
    for name in PUBLIC:
        assert getattr(nbacp, name) is not None, name


def test_every_error_is_exported_from_its_one_module() -> None:
    exported = {
        name
        for name in PUBLIC
        if isinstance(getattr(nbacp, name), type) and issubclass(getattr(nbacp, name), BaseException)
    }
    assert exported == set(error_classes()) == set(STANDARD)
    for name, error in error_classes().items():
        assert getattr(nbacp, name) is error, name
        assert name.endswith("Error"), name
        assert issubclass(error, nbacp.NbacpError), name
        assert issubclass(error, STANDARD[name]), f"{name} no longer caught by except {STANDARD[name].__name__}"


def test_a_reexported_error_is_the_same_class() -> None:
    for package in SUBPACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", []):
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, BaseException):
                assert value is getattr(nbacp.errors, name), f"{package}.{name}"


def test_no_other_module_defines_a_public_error() -> None:
    """An exception class outside nbacp/errors.py is private: it never reaches a user."""
    found = []
    for path in NBACP.rglob("*.py"):
        if path == NBACP / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = [ast.unparse(base) for base in node.bases]
                if any(re.search(r"(Error|Exception)$", base) for base in bases):
                    found.append(f"{path.relative_to(NBACP.parent)}: {node.name}({', '.join(bases)})")
    assert found == []


def test_the_docstring_tree_is_the_class_tree() -> None:
    assert nbacp.errors.__doc__ is not None
    assert drawn_tree(nbacp.errors.__doc__) == real_tree()


def test_the_tree_check_sees_a_class_drawn_under_the_wrong_base() -> None:
    """Guards the test above against a parser that would accept any drawing."""
    assert nbacp.errors.__doc__ is not None
    doc = nbacp.errors.__doc__
    moved = doc.replace("\n                ToolsNotSupportedError\n", "\n            ToolsNotSupportedError\n")
    assert moved != doc
    assert drawn_tree(moved) != real_tree()
    unbased = doc.replace("ScriptError (ValueError)", "ScriptError")
    assert unbased != doc and drawn_tree(unbased) != real_tree()


@pytest.mark.parametrize("package", ["nbacp", *SUBPACKAGES])
def test_one_name_per_class(package: str) -> None:
    module = importlib.import_module(package)
    names: dict[int, str] = {}
    for name in module.__all__:
        value = getattr(module, name)
        if isinstance(value, type):
            assert id(value) not in names, f"{package}.{name} is {package}.{names[id(value)]}"
            names[id(value)] = name


def test_the_error_module_imports_only_the_standard_library() -> None:
    """Every layer imports it, the agent side and the pure form model too: it must stay cheap."""
    code = (
        "import sys\nbefore = set(sys.modules)\nimport nbacp.errors\n"
        "print(','.join(sorted({m.partition('.')[0] for m in set(sys.modules) - before})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(done.stdout.strip().split(","))
    assert "nbacp" in loaded
    assert loaded - {"nbacp"} <= sys.stdlib_module_names, loaded


def test_the_version_has_one_home() -> None:
    from importlib.metadata import version

    from nbacp._version import __version__

    assert nbacp.__version__ == __version__ == version("nbacp")
