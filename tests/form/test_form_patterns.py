"""Agent ``pattern``s: ECMA-262 semantics, bounded per pass over the form, never a dead field.

ACP and MCP inherit JSON Schema's rule that a pattern is an ECMAScript regular expression
(the MCP TypeScript SDK and Zed validate that way). nbacp evaluates them with ``regress`` in a
worker process that is killed when a pass's time budget is spent; no assertion here is on
wall-clock time: the guard only turns a regression into a failure instead of a hang, and the
budget is checked by counting engine calls.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from nbacp.form import PATTERN_BUDGET, PATTERN_TIMEOUT, Form, ecma_worker
from nbacp.form.ecma import ENGINE, WORKER, Engine, Outcome, Result
from nbacp.form.patterns import RESULT_CHARS, RESULT_ENTRIES, RESULTS, TOO_COSTLY, TOO_SLOW, PatternPass

GUARD_SECONDS = 30.0
"""Far above any budget: only there so that a regression fails instead of hanging."""

SLOW = "^(a|a)*$"
SLOW_TEXT = "a" * 40 + "b"  # 2**40 paths for a backtracking engine


def guarded(fn: Callable[[], Any]) -> Any:
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    thread.start()
    thread.join(GUARD_SECONDS)
    assert not thread.is_alive(), "the pattern check did not return: hang"
    return result[0]


def pattern_form(pattern: str, **extra: Any) -> Form:
    return Form.from_schema({"properties": {"f": {"type": "string", "pattern": pattern, **extra}}})


@pytest.fixture(autouse=True)
def fresh_results() -> Iterator[None]:
    RESULTS.clear()
    yield
    RESULTS.clear()


class Counting:
    """Wraps the process engine's search to count the calls that reach the worker."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, str]] = []
        real = ENGINE.search

        def search(pattern: str, text: str, timeout: float) -> Result:
            self.calls.append((pattern, text))
            return real(pattern, text, timeout)

        monkeypatch.setattr(ENGINE, "search", search)


def test_the_budget_is_per_pass_and_documented() -> None:
    assert PATTERN_BUDGET == PATTERN_TIMEOUT == 0.5


# -- ECMA-262, not Python ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text", "valid"),
    [
        ("^\\d{3}$", "123", True),
        ("^\\d{3}$", "\u0661\u0662\u0663", False),  # Arabic-Indic digits: Python's \d takes them
        ("^\\w+$", "cafe", True),
        ("^\\w+$", "café", False),  # Python's \w is Unicode-aware
        ("^abc$", "abc", True),
        ("^abc$", "abc\n", False),  # Python's $ matches before a final newline
        ("^\\cC$", "\x03", True),  # ECMAScript-only syntax: Python calls these invalid
        ("\\u{1F600}", "smile 😀", True),
        ("^(?<q>['\"]).*\\k<q>$", "'quoted'", True),
        ("^(?<q>['\"]).*\\k<q>$", "'mixed\"", False),
        ("^\\p{Lu}\\p{Ll}{2,}$", "Émile", True),
        ("^🐲*$", "🐲🐲", True),  # Unicode mode: one code point, not two UTF-16 units
        ("[0-9]{3}", "ab123cd", True),  # JSON Schema: an unanchored search
        ("^\\-\\d+$", "-12", True),  # legacy (Annex B) identity escape: checked without the u flag
    ],
)
def test_ecmascript_semantics(pattern: str, text: str, valid: bool) -> None:
    form = pattern_form(pattern)
    assert form.warnings == {}
    errors = form.validate({"f": text})
    assert (errors == {}) is valid, errors
    if not valid:
        assert errors == {"f": [f"Must match the pattern {pattern}."]}


# -- a pattern the engine cannot compile -------------------------------------------------


@pytest.mark.parametrize("pattern", ["(", "[a-", "a{2,1}", "[z-a]", "*a", "\\", "(?x)a # Python verbose"])
def test_an_uncompilable_pattern_leaves_the_field_answerable_with_a_warning(pattern: str) -> None:
    form = pattern_form(pattern, default="abc")
    (message,) = form.warnings["f"]
    assert "the agent's pattern could not be checked" in message.lower()
    assert form.fields["f"].default == "abc"  # nothing can check it, so nothing refuses it
    assert form.validate({"f": "anything"}) == {}
    assert form.content({"f": "anything"}) == {"f": "anything"}


def test_the_warning_is_shown_on_the_field() -> None:
    from support.form_view_support import texts

    from nbacp.widgets import FormCard

    view = FormCard("?", {"properties": {"f": {"type": "string", "pattern": "(", "title": "Code"}}})
    assert any("could not be checked" in text for text in texts(view))
    view.fill("f", "anything")
    view.accept()
    assert view.response is not None and view.response.content == {"f": "anything"}


# -- time: one budget per pass ---------------------------------------------------------


def test_catastrophic_backtracking_is_cut_off_into_an_error() -> None:
    form = pattern_form(SLOW)
    assert form.validate({"f": "aaaa"}) == {}
    assert guarded(lambda: form.validate({"f": SLOW_TEXT})) == {"f": [TOO_SLOW]}
    # the slow worker was killed; the next check gets a fresh one and works
    assert form.validate({"f": "aa"}) == {}


def test_a_slow_default_is_dropped() -> None:
    form = guarded(lambda: pattern_form(SLOW, default=SLOW_TEXT))
    assert form.fields["f"].default is None and form.defaults() == {}


def test_three_hundred_slow_fields_cost_one_budget_per_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """300 fields with ``^(a|a)*$`` took 30 s per Accept when the bound was per field."""
    counting = Counting(monkeypatch)
    schema = {"properties": {f"f{i}": {"type": "string", "pattern": SLOW} for i in range(300)}}
    form = Form.from_schema(schema)
    values = {f"f{i}": SLOW_TEXT + str(i) for i in range(300)}
    counting.calls.clear()
    errors = guarded(lambda: form.validate(values))
    assert errors == {f"f{i}": [TOO_SLOW] for i in range(300)}
    assert len(counting.calls) == 1  # the first field spent the pass's budget; the rest never ran
    # the next pass (a keystroke) does not re-run the field that proved slow for the same text
    counting.calls.clear()
    guarded(lambda: form.validate(values))
    assert len(counting.calls) == 1 and counting.calls[0][1] == values["f1"]


def test_fast_fields_are_remembered_between_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(monkeypatch)
    form = Form.from_schema({"properties": {n: {"type": "string", "pattern": "^[a-z]+$"} for n in "abc"}})
    values = {"a": "x", "b": "y", "c": "z"}
    assert form.validate(values) == {}
    first = len(counting.calls)
    assert form.validate({**values, "c": "zz"}) == {}
    assert len(counting.calls) == first + 1  # only the field that changed


def test_a_worker_that_dies_mid_check_is_an_error_and_is_replaced() -> None:
    engine = Engine()
    try:
        assert engine.search("^a$", "a", 10).outcome is Outcome.MATCH
        pid = engine.pid
        assert pid is not None
        threading.Timer(0.3, lambda: os.kill(pid, signal.SIGKILL)).start()
        assert guarded(lambda: engine.search(SLOW, SLOW_TEXT, 20)).outcome is Outcome.CRASHED
        assert engine.search("^a$", "a", 10).outcome is Outcome.MATCH and engine.pid != pid
    finally:
        engine.close()


def test_the_too_costly_message_is_what_a_crash_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ENGINE, "search", lambda p, t, timeout: Result(Outcome.CRASHED))
    assert PatternPass().error("x", "y") == TOO_COSTLY


def test_text_with_a_lone_surrogate_is_refused_not_a_crash() -> None:
    errors = pattern_form("^.*$").validate({"f": "broken \ud800 text"})
    assert errors == {"f": ["Must be valid text (it contains a broken character)."]}


def test_an_unavailable_engine_leaves_the_field_answerable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", "")
    engine = Engine()
    result = engine.search("^a$", "b", 1)
    assert result.outcome is Outcome.UNAVAILABLE
    monkeypatch.setattr(ENGINE, "search", engine.search)
    form = pattern_form("^a$")
    assert "could not be checked" in form.warnings["f"][0] and form.validate({"f": "b"}) == {}


# -- memory: bounded caches, a capped and recycled worker --------------------------------


def test_remembered_results_stay_within_their_budget() -> None:
    for i in range(RESULT_ENTRIES + 500):
        RESULTS.put((f"p{i}", "t"), Outcome.MATCH)
    assert len(RESULTS) == RESULT_ENTRIES
    big = "x" * (RESULT_CHARS // 10)
    for i in range(30):
        RESULTS.put((f"{i}{big}", "t"), Outcome.MATCH)
    assert RESULTS.chars <= RESULT_CHARS
    RESULTS.put(("p", "y" * RESULT_CHARS), Outcome.MATCH)  # one huge text is not kept at all
    assert RESULTS.get(("p", "y" * RESULT_CHARS)) is None


def test_the_workers_compiled_patterns_stay_within_their_budget() -> None:
    cache = ecma_worker.Cache()
    for i in range(ecma_worker.CACHE_PATTERNS * 3):
        assert cache.get(f"^a{i}$") is not None
    assert len(cache.entries) == ecma_worker.CACHE_PATTERNS
    large = "(?:" + "|".join(f"w{i}" for i in range(5000)) + ")"
    for i in range(20):
        cache.get(f"{i}{large}")
    assert cache.chars <= ecma_worker.CACHE_CHARS and len(cache.entries) < 20


def test_the_worker_exits_past_its_memory_budget_and_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = Engine()
    try:
        assert engine.search("^a$", "a", 10).outcome is Outcome.MATCH
        first = engine.pid
        # A worker started with a tiny budget says goodbye after its first reply.
        monkeypatch.setenv("NBACP_ECMA_RSS_BUDGET", "1")
        engine.close()
        assert engine.search("^a$", "a", 10).outcome is Outcome.MATCH
        assert engine.pid is None  # it said bye and was let go
        monkeypatch.delenv("NBACP_ECMA_RSS_BUDGET")
        assert engine.search("^b$", "b", 10).outcome is Outcome.MATCH and engine.pid not in (None, first)
    finally:
        engine.close()


def test_the_worker_caps_its_address_space() -> None:
    code = (
        "import resource, runpy, sys; sys.argv = ['w']; "
        f"ns = runpy.run_path({str(WORKER)!r}); ns['_limit_memory'](); "
        "print(resource.getrlimit(resource.RLIMIT_AS)[0], resource.getrlimit(resource.RLIMIT_CPU)[0])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    address_space, cpu = (int(v) for v in done.stdout.split())
    assert address_space == ecma_worker.ADDRESS_SPACE_LIMIT and cpu == ecma_worker.CPU_SECONDS_LIMIT


def test_the_worker_ends_with_its_parent() -> None:
    """When the kernel goes away its end of the pipe closes; the worker must not linger."""
    worker = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert worker.stdout is not None and '"ready"' in worker.stdout.readline()
    assert worker.stdin is not None
    worker.stdin.close()
    assert worker.wait(timeout=GUARD_SECONDS) == 0
    worker.stdout.close()


def test_checks_from_several_threads_share_the_worker_safely() -> None:
    form = Form.from_schema({"properties": {f"f{i}": {"type": "string", "pattern": f"^{i}+$"} for i in range(8)}})
    outcomes: list[dict[str, list[str]]] = []

    def run(i: int) -> None:
        for j in range(20):
            outcomes.append(form.validate({f"f{i}": str(i) * (j + 1)}))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + GUARD_SECONDS
    for t in threads:
        t.join(max(deadline - time.monotonic(), 0))
    assert len(outcomes) == 160 and all(o == {} for o in outcomes)
