"""The wire ledger (``nbacp.client.wire.ledger``): one stand-in per original, and each original back."""

from __future__ import annotations

import pytest

from nbacp.client.wire import ledger
from nbacp.client.wire.ledger import TextLedger


def test_originals_that_clean_alike_get_distinct_stand_ins_and_come_back_exactly() -> None:
    book = TextLedger()
    assert [book.clean(t) for t in ("a\udfff", "a\udffe", "a\udfff")] == ["a\ufffd", "a\ufffd (2)", "a\ufffd"]
    sent = {"a\ufffd (2)": ["a\ufffd", "a\ufffd (2)", "b"]}
    assert book.restore(sent) == {"a\udffe": ["a\udfff", "a\udffe", "b"]}


def test_a_clean_text_holding_u_fffd_keeps_its_own_value_when_it_comes_first() -> None:
    book = TextLedger()
    assert book.clean("a\ufffd") == "a\ufffd"  # the agent's own text, noted
    assert book.clean("a\udfff") == "a\ufffd (2)"  # a later original moves on
    assert book.restore(["a\ufffd", "a\ufffd (2)"]) == ["a\ufffd", "a\udfff"]


def test_a_stand_in_cleaned_again_stays_itself() -> None:
    """An in-process agent's objects are cleaned in place and may be sent again."""
    book = TextLedger()
    first, second = book.clean("a\udfff"), book.clean("a\udffe")
    assert (book.clean(first), book.clean(second)) == (first, second)
    assert book.restore([first, second]) == ["a\udfff", "a\udffe"]


def test_without_broken_text_nothing_is_kept_or_restored() -> None:
    book = TextLedger()
    assert book.clean("caf\u00e9 \U0001f600") == "caf\u00e9 \U0001f600" and len(book) == 0
    assert book.clean("\ud83d\ude00") == "\U0001f600" and len(book) == 0  # a pair joined: the same on the wire
    message = {"a": ["x"]}
    assert book.restore(message) is message


def test_the_oldest_originals_go_first_with_one_note(monkeypatch: pytest.MonkeyPatch) -> None:
    notes: list[str] = []
    monkeypatch.setattr(ledger, "MAX_ENTRIES", 3)
    book = TextLedger(note=notes.append)
    stand_ins = [book.clean(f"v{i}\udfff") for i in range(5)]
    assert len(book) == 3 and len(notes) == 1
    assert book.restore(stand_ins) == ["v0\ufffd", "v1\ufffd", "v2\udfff", "v3\udfff", "v4\udfff"]
