"""Names, values and ids that are not clean text reach the page as stand-ins and come back exact.

A lone surrogate in a card's synced state makes its comm message fail to encode (the card never
shows); a NUL or a bidi mark would reach the page as is. Pure tests of ``nbacp.render.page_text``
and of cards built directly, then the same cards in a real kernel, one per kind of string
(docs/cards.md, 'Values that are not clean text'). Through ``connect``: tests/client/test_dirty_values.py.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
from acp.schema import PermissionOption, ToolCallUpdate
from support import TESTS
from support.dirty_values_agent import VALUES, dirty_schema, expected_content
from support.kernel_support import KernelHarness, accept, start_kernel

from nbacp.render.page_text import PageText, page_safe
from nbacp.widgets import AuthCard, FormCard, PermissionCard

KINDS = sorted(VALUES)


def encodable(card: Any) -> dict[str, Any]:
    """The card's synced state, after checking it goes onto a comm as UTF-8 JSON."""
    state = {name: getattr(card, name) for name in ("spec", "draft", "errors", "summary")}
    json.dumps(state, ensure_ascii=False).encode("utf-8")  # what the comm does: raises on a lone surrogate
    return state


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def assert_clean(state: dict[str, Any]) -> None:
    for text in strings(state):
        for char in text:
            assert char in "\n\t" or char.isprintable() or char == "\u200d", (text, char)


def test_page_safe_shows_what_it_cannot_keep() -> None:
    assert page_safe("plain value") == "plain value"
    assert page_safe("opt \udfff one") == "opt \ufffd one"
    assert page_safe("a\ud83d\ude00b") == "a\U0001f600b"  # a valid pair is one character, kept
    assert page_safe("nul \x00 esc \x1b del \x7f") == "nul <U+0000> esc <U+001B> del <U+007F>"
    assert page_safe("evil\u202etxt.exe") == "evil<U+202E>txt.exe"
    assert page_safe("two\nlines\tand tab") == "two\nlines\tand tab"
    assert page_safe("family \U0001f468\u200d\U0001f469") == "family \U0001f468\u200d\U0001f469"  # ZWJ kept


def test_page_text_keeps_originals_apart() -> None:
    table = PageText()
    first, second = table.page("a\ud800"), table.page("a\udbff")
    assert (first, second) == ("a\ufffd", "a\ufffd (2)")
    assert table.page("a\ud800") == first  # the same stand-in every time
    assert table.original(first) == "a\ud800" and table.original(second) == "a\udbff"
    # a clean original that happens to read like a stand-in already taken gets its own
    clash = table.page("a\ufffd (2)")
    assert clash not in (first, second) and table.original(clash) == "a\ufffd (2)"
    assert table.original("typed by a person") == "typed by a person"
    assert len(table) == 3


@pytest.mark.parametrize("kind", KINDS)
def test_a_form_built_directly_shows_and_answers_the_original(kind: str) -> None:
    value = VALUES[kind]
    card = FormCard("Pick one", dirty_schema(value))
    state = encodable(card)
    assert_clean(state)
    first = next(iter(card.form.fields))
    card.pick(first, "The odd one")
    assert card.accept(), card.errors
    assert card.response.content == expected_content(value)
    encodable(card)


def test_two_values_that_read_alike_stay_two_choices() -> None:
    schema = {"type": "object", "properties": {"v": {"type": "string", "enum": ["x\ud800", "x\udbff", "x"]}}}
    card = FormCard("Which?", schema)
    options = encodable(card)["spec"]["fields"][0]["options"]
    assert [o["value"] for o in options] == ["x\ufffd", "x\ufffd (2)", "x"]
    assert [o["label"] for o in options] == ["x\ufffd", "x\ufffd (2)", "x"]  # the person can tell them apart
    assert card._handle({"event": "accept", "draft": {"v": ["x\ufffd (2)"]}})  # the page's click
    assert card.response.content == {"v": "x\udbff"}


def test_errors_are_keyed_by_the_page_names() -> None:
    name = "need \x00ed"
    card = FormCard(
        "Say", {"type": "object", "properties": {name: {"type": "string", "minLength": 3}}, "required": [name]}
    )
    page_name = encodable(card)["spec"]["fields"][0]["name"]
    assert page_name == "need <U+0000>ed"
    assert not card._handle({"event": "accept", "draft": {page_name: "ab"}})
    assert list(encodable(card)["errors"]) == [page_name]
    card.fill(name, "typed \udfff text")  # a Python fill that is not clean text either
    assert encodable(card)["draft"] == {page_name: "typed \ufffd text"}
    assert card.accept() and card.response.content == {name: "typed \udfff text"}


@pytest.mark.parametrize("kind", KINDS)
def test_permission_and_auth_ids_come_back_exact(kind: str) -> None:
    value = VALUES[kind]
    options = [
        PermissionOption(option_id=value, name="Allow", kind="allow_once"),
        PermissionOption(option_id="no", name="Reject", kind="reject_once"),
    ]
    card = PermissionCard(ToolCallUpdate(tool_call_id="t", title="write"), options)
    page_id = encodable(card)["spec"]["actions"][0]["data"]["option_id"]
    assert page_id == page_safe(value)
    assert card._handle({"event": "option", "option_id": page_id})  # the button's message
    assert card.response.outcome.option_id == value
    auth = AuthCard([{"id": value, "name": "Key"}])
    method = encodable(auth)["spec"]["methods"][0]["id"]
    assert auth._handle({"event": "authenticate", "method_id": method})
    assert auth.response == value


# ---------------------------------------------------------------- in a real kernel


@pytest.fixture(scope="module")
def shared_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelHarness]:
    """One kernel for the three kinds (each test shows its own card)."""
    with start_kernel(tmp_path_factory.mktemp("page-text")) as harness:
        harness.run(
            f"import sys; sys.path.insert(0, {str(TESTS)!r})\nimport nbacp\n"
            "from support.dirty_values_agent import VALUES, dirty_schema",
            timeout=60,
        )
        yield harness


@pytest.mark.kernel
@pytest.mark.parametrize("kind", KINDS)
def test_a_card_built_directly_shows_in_a_real_kernel(shared_kernel: KernelHarness, kind: str) -> None:
    kernel = shared_kernel
    cell = kernel.execute(f"card = nbacp.FormCard('Pick one ({kind})', dirty_schema(VALUES[{kind!r}]))\ncard")
    kernel.wait_idle(cell, timeout=60)
    assert kernel.error(cell) is None, kernel.error(cell)  # the comm open did not fail to encode

    def shown() -> dict[str, Any] | None:
        for comm in reversed(kernel.comm_opens()):
            spec = comm["state"].get("spec")
            if isinstance(spec, dict) and spec.get("message") == f"Pick one ({kind})":
                return comm
        return None

    comm = kernel.wait_for(shown, 30, "the card")
    state = comm["state"]
    assert_clean({"spec": state["spec"], "draft": state["draft"]})
    first, kept = state["spec"]["fields"]
    odd = next(o["value"] for o in first["options"] if o["label"] == "The odd one")
    accept(kernel, comm["comm_id"], {first["name"]: [odd], kept["name"]: state["draft"][kept["name"]]})
    out = kernel.run(
        textwrap.dedent("""
        import json
        print(json.dumps(card.response.content), card.summary.encode('utf-8') is not None)
    """)
    )
    content, _ = out.rsplit(" ", 1)
    assert json.loads(content) == expected_content(VALUES[kind])
