"""Agent-supplied ``pattern``: JSON Schema search semantics, and bounded in time and memory.

The spec requires a time- and resource-bounded engine: a hostile pattern must produce a
validation error, never hang or exhaust the notebook's kernel.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from typing import Any

import pytest

from nbacp.form import PATTERN_TIMEOUT, Form

GUARD_SECONDS = 10.0
"""Generous: far above PATTERN_TIMEOUT, only there so that a regression fails instead of hanging."""

TIMEOUT_MESSAGE = "The pattern this field requires took too long to check; the value cannot be accepted."


def guarded(fn: Callable[[], Any]) -> Any:
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    thread.start()
    thread.join(GUARD_SECONDS)
    assert not thread.is_alive(), "the pattern check did not return: hang"
    return result[0]


def pattern_form(pattern: str) -> Form:
    return Form.from_schema({"properties": {"f": {"type": "string", "pattern": pattern}}})


def test_timeout_is_the_documented_bound() -> None:
    assert PATTERN_TIMEOUT == 0.1


def test_catastrophic_backtracking_times_out_into_an_error() -> None:
    # The regex module defuses (a+)+$ and friends; overlapping alternatives still explode.
    form = pattern_form("(a|aa)+$")
    assert form.validate({"f": "aaaa"}) == {}
    errors = guarded(lambda: form.validate({"f": "a" * 60 + "!"}))
    assert errors == {"f": [TIMEOUT_MESSAGE]}


def test_a_timed_out_default_is_dropped() -> None:
    form = guarded(
        lambda: Form.from_schema(
            {"properties": {"f": {"type": "string", "pattern": "(a|aa)+$", "default": "a" * 60 + "!"}}}
        )
    )
    assert form.fields["f"].default is None and form.defaults() == {}


@pytest.mark.parametrize("pattern", ["(", "[a-", "a{2,1}", "[z-a]", "*a", "\\"])
def test_invalid_pattern_is_a_validation_error(pattern: str) -> None:
    errors = pattern_form(pattern).validate({"f": "abc"})
    assert list(errors) == ["f"] and "is not a valid regular expression" in errors["f"][0]


def test_a_compile_bomb_is_refused_without_exhausting_memory() -> None:
    """Counted repeats are expanded when ``regex`` compiles, before any timeout applies.

    ``(?:a{65535}){65535}`` asks for ~4e9 nodes; run in a child with a 1 GiB address-space
    cap so that a regression fails this test instead of the machine.
    """
    code = textwrap.dedent("""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from nbacp.form import Form
        for pattern in ["(?:a{65535}){65535}", "[a-z]{100000000}", "(?:(?:x{1000}){1000}){1000}",
                        "(?:a{2000}b){2000}", "a{1000}" * 2000]:
            form = Form.from_schema({"properties": {"f": {"type": "string", "pattern": pattern}}})
            errors = form.validate({"f": "aaa"})
            assert list(errors) == ["f"] and "too complex" in errors["f"][0], (pattern[:30], errors)
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


@pytest.mark.parametrize(
    "pattern",
    [
        "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
        "^(\\d{1,3}\\.){3}\\d{1,3}$",
        "^[A-Z]{2}\\d{2}[A-Z0-9]{4}\\d{7}([A-Z0-9]?){0,16}$",
        "^.{8,64}$",
        "^\\p{Lu}\\p{Ll}{2,}$",
        "[{]\\d{3}[}]",
        "(?x) ^ \\d{4} - \\d{2} $  # a verbose year-month",
    ],
)
def test_ordinary_patterns_with_counted_repeats_still_work(pattern: str) -> None:
    form = pattern_form(pattern)
    errors = form.validate({"f": "zz"})
    assert errors == {"f": [f"Must match the pattern {pattern}."]}


def test_ordinary_patterns_accept_matching_text() -> None:
    assert (
        pattern_form("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$").validate(
            {"f": "123e4567-e89b-12d3-a456-426614174000"}
        )
        == {}
    )
    assert pattern_form("^\\p{Lu}\\p{Ll}{2,}$").validate({"f": "Émile"}) == {}
    assert pattern_form("(?x) ^ \\d{4} - \\d{2} $  # a verbose year-month").validate({"f": "2024-05"}) == {}
