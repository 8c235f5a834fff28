"""ReviewCard: one proposed cell, answered by the page's messages (docs/cards.md, 'The review card').

Clicks are the messages the page sends on the card's own comm (``{"event", "seq", "draft"?}``),
delivered through the recording comms as the widget manager would.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest
from support.comm_support import RecordingComms

from nbacp.answers import ScriptError, apply_entry, card_kind, decline
from nbacp.render.cell_names import CellName
from nbacp.widgets.review_card import Proposal, ReviewAnswer, ReviewCard, ReviewGroup
from nbacp.widgets.transcript import Transcript

_seq = itertools.count(1)
REPLACE = Proposal("replace", "code", "load", "df = load()\ndf.head()", "df = load(fast=True)\ndf.head()")


def send(comms: RecordingComms, card: ReviewCard, event: str, source: str | None = None) -> None:
    content: dict[str, object] = {"event": event, "seq": next(_seq)}
    if source is not None:
        content["draft"] = {"source": source}
    comms.custom(card, content)


def test_the_spec_shows_the_diff_of_each_mode() -> None:
    replaced = ReviewCard(REPLACE, agent="claude", path="a.ipynb").spec
    assert replaced["header"] == "claude proposes to change cell load"
    diff = replaced["diff"]
    expected = [("-", "df = load()"), ("+", "df = load(fast=True)"), (" ", "df.head()")]
    assert [tuple(x) for x in diff["lines"]] == expected
    assert (diff["added"], diff["removed"], diff["more"]) == (1, 1, 0)
    assert [a["event"] for a in replaced["actions"]] == ["accept", "accept_run", "reject"]
    inserted = ReviewCard(Proposal("insert", "markdown", None, "", "# A\nB")).spec
    assert inserted["header"] == "The agent proposes a new Markdown cell at the top"
    assert [tuple(x) for x in inserted["diff"]["lines"]] == [("+", "# A"), ("+", "B")]
    assert [a["event"] for a in inserted["actions"]] == ["accept", "reject"]  # no Accept & run for markdown
    deleted = ReviewCard(Proposal("delete", "code", "x", "x = 1", "")).spec
    assert deleted["editable"] is False and [a["label"] for a in deleted["actions"]] == ["Delete", "Reject"]
    assert [tuple(x) for x in deleted["diff"]["lines"]] == [("-", "x = 1")]


def test_the_header_names_the_cell_as_the_person_sees_it_and_keeps_the_id_in_the_spec() -> None:
    name = CellName.of(4, 5, "\n  df = load()\n")
    replaced = ReviewCard(Proposal("replace", "code", "b7c1", "df = load()", "df = 1", name=name), agent="claude").spec
    assert replaced["header"] == "claude proposes to change cell 4 [5] `df = load()`"
    assert (replaced["target"], replaced["target_line"]) == ("b7c1", "df = load()")
    inserted = ReviewCard(Proposal("insert", "code", "b7c1", "", "x", name=CellName.of(2, None, "")), agent="c").spec
    assert inserted["header"] == "c proposes a new code cell after cell 2 (empty)" and inserted["target_line"] == ""
    # the fallback puts a new cell below the prompt cell whatever cell the agent named: no id shown
    below = ReviewCard(Proposal("insert", "code", "b7c1", "", "x", "below your prompt cell", name)).spec
    assert below["header"] == "The agent proposes a new code cell below your prompt cell" and below["target"] == ""


def test_a_first_line_with_controls_shows_them_in_the_header_and_the_code() -> None:
    name = CellName.of(1, None, "x = 'a\u202eb'")
    spec = ReviewCard(Proposal("delete", "code", "c", "x = 'a\u202eb'", "", name=name)).spec
    assert spec["header"].endswith("`x = 'a<U+202E>b'`") and spec["target_line"] == "x = 'a<U+202E>b'"


def test_notebook_text_is_shown_safely() -> None:
    card = ReviewCard(Proposal("delete", "code", "x\u202e", "if a\u202e:\n\x00", ""), agent="a\u2066gent")
    text = repr(card.spec)
    assert "\u202e" not in text and "\u2066" not in text and "\x00" not in text
    assert "<U+202E>" in text and "<U+0000>" in card.spec["diff"]["lines"][1][1]


async def test_the_person_edits_then_accepts_and_runs(comms: RecordingComms) -> None:
    card = ReviewCard(REPLACE)
    comms.update(card, draft={"source": "typed while the click was on its way"})
    send(comms, card, "accept_run", "df = load(cache=True)")
    assert await card == ReviewAnswer("accept", "df = load(cache=True)", run=True, edited=True)
    assert card.phase == "sent" and card.spec["status"] == "Applying…" and card.spec["actions"] == []
    card.finish("Accepted as cell load.")
    assert card.settled and card.summary == "Accepted as cell load." and card.spec == {"kind": "review"}


async def test_reject_settles_at_once(comms: RecordingComms) -> None:
    card = ReviewCard(REPLACE)
    send(comms, card, "reject")
    assert await card == ReviewAnswer("reject") and card.settled and card.summary == "Rejected"


async def test_a_bad_source_from_the_page_is_refused_on_the_card(comms: RecordingComms) -> None:
    card = ReviewCard(REPLACE)
    send(comms, card, "accept", "x = 1  # \u202e evil")
    assert not card.done and "U+202E" in card.errors["source"][0] and card.handled > 0
    send(comms, card, "accept")  # no draft at all
    assert not card.done and "carried no source" in card.errors["source"][0]
    send(comms, card, "accept", "x = 1")
    assert (await card).source == "x = 1" and card.errors == {}


async def test_accept_all_answers_every_open_card_with_its_own_source(comms: RecordingComms) -> None:
    group = ReviewGroup()
    cards = [ReviewCard(Proposal("insert", "code", "a", "", f"step({i})"), group=group) for i in range(3)]
    assert [c.pending for c in cards] == [3, 3, 3]
    comms.update(cards[0], draft={"source": "step(0)  # mine"})
    send(comms, cards[2], "accept_all", "step(2)")
    answers = [await c for c in cards]
    assert [a.source for a in answers] == ["step(0)  # mine", "step(1)", "step(2)"]
    assert [a.edited for a in answers] == [True, False, False] and group.cards == []


async def test_reject_all_and_the_count_the_page_shows(comms: RecordingComms) -> None:
    group = ReviewGroup()
    first = ReviewCard(REPLACE, group=group)
    second = ReviewCard(REPLACE, group=group)
    assert first.pending == 2
    send(comms, first, "reject")
    assert second.pending == 1
    third = ReviewCard(REPLACE, group=group)
    send(comms, third, "reject_all")
    assert (await second).action == (await third).action == "reject"


async def test_a_card_closed_by_the_turn_is_cancelled_and_settles() -> None:
    card = ReviewCard(REPLACE)
    assert card.cancel_pending("the turn ended")
    assert await card == ReviewAnswer("cancel") and card.settled


async def test_in_a_transcript_the_card_becomes_its_outcome_line() -> None:
    view = Transcript(prompt="go")
    card = ReviewCard(REPLACE)
    view.add_card(card)
    card.accept()
    await asyncio.sleep(0)
    assert card in view.shown  # applying: the card stays until the outcome is known
    card.finish("Stale: cell load changed since you read it")
    for _ in range(3):
        await asyncio.sleep(0)
    assert card in view.shown  # it keeps its place and draws its own line (docs/cards.md)
    assert card.summary == "Stale: cell load changed since you read it"


async def test_script_entries_act_through_the_card() -> None:
    card = ReviewCard(REPLACE)
    assert card_kind(card) == "review"
    apply_entry(card, {"expect": "review", "review": "accept", "source": "mine"})
    assert (await card).source == "mine"
    rejected = ReviewCard(REPLACE)
    decline(rejected)
    assert (await rejected).action == "reject"
    with pytest.raises(ScriptError, match="needs 'review'"):
        apply_entry(ReviewCard(REPLACE), {"review": "maybe"})


async def test_a_source_that_did_not_go_in_stays_on_the_card_to_copy() -> None:
    view = Transcript(prompt="go")
    card = ReviewCard(REPLACE)
    view.add_card(card)
    card.accept("mine")
    card.finish("Not applied: the page is gone.", copy="mine")
    card.finish("a later outcome changes nothing")
    for _ in range(3):
        await asyncio.sleep(0)
    assert card in view.shown and card.phase == "sent" and not card.settled
    assert card.spec["copy"] == "mine" and card.spec["status"] == "Not applied: the page is gone."
    assert card.spec["actions"] == [] and card.summary == "Not applied: the page is gone."
