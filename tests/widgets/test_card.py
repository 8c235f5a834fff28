"""The card base (``nbacp.widgets.card``): one model per card, and what an answered card costs."""

from __future__ import annotations

import asyncio
import threading

from acp.schema import PermissionOption, ToolCallUpdate

from nbacp.widgets import card_code, shared
from nbacp.widgets.auth_card import AuthCard
from nbacp.widgets.form_card import FormCard
from nbacp.widgets.permission_card import PermissionCard
from nbacp.widgets.transcript import Transcript
from nbacp.widgets.url_card import UrlConsentCard

SCHEMA = {"type": "object", "properties": {"x": {"type": "string", "title": "X"}}}


def _cards() -> list[object]:
    option = PermissionOption(option_id="ok", name="Allow", kind="allow_once")
    return [
        FormCard("Name it", SCHEMA),
        PermissionCard(ToolCallUpdate(tool_call_id="t1", title="ls"), [option]),
        UrlConsentCard("Sign in", "https://example.com/login", "e1"),
        AuthCard([]),
    ]


def test_a_card_is_an_instance_of_its_own_class_not_of_a_class_made_for_it() -> None:
    """anywidget adds ``_esm``/``_css``/``_anywidget_id`` with ``add_traits``, which would make a
    class per card (about 8 KB kept for as long as the card lives); a card declares them once."""
    for card, cls in zip(_cards(), (FormCard, PermissionCard, UrlConsentCard, AuthCard), strict=True):
        assert type(card) is cls
        assert card._anywidget_id == f"{cls.__module__}.{cls.__name__}"  # type: ignore[attr-defined]
        assert card._esm == card_code.card_module()  # type: ignore[attr-defined]


async def test_an_answered_card_in_a_transcript_leaves_its_summary_line_and_closes() -> None:
    view = Transcript(prompt="go")
    card = FormCard("Name it", SCHEMA)
    view.add_card(card)
    assert card in view.shown
    # the answer arrives on another thread (a kernel subshell): the transcript changes on its loop
    thread = threading.Thread(target=lambda: (card.fill("x", "pipeline"), card.accept()))
    thread.start()
    thread.join()
    assert card.settled
    for _ in range(3):
        await asyncio.sleep(0)
    assert card not in view.shown and card.comm is None
    (line,) = [w for w in view.shown if "nbacp-answered" in w._dom_classes]
    assert line.value == card.summary == "Accepted: X = pipeline"
    assert card.form.fields["x"].title == "X"  # the card object stays readable
    assert shared.is_shared(line.layout) and shared.is_shared(line.style)  # one model, not three


def test_without_a_running_loop_the_line_replaces_the_card_at_once() -> None:
    view = Transcript(prompt="go")
    card = FormCard("Name it", SCHEMA)
    view.add_card(card)
    card.decline()
    assert card not in view.shown
    assert [w.value for w in view.shown if "nbacp-answered" in w._dom_classes] == ["Declined."]


async def test_a_card_answered_before_it_is_placed_goes_in_as_its_line_in_one_frame() -> None:
    view = Transcript(prompt="go")
    card = FormCard("Name it", SCHEMA)
    card.fill("x", "pipeline")
    assert card.accept()  # a policy answered it at once (the client offers a card before placing it)
    frames = view._frames.count  # noqa: SLF001
    view.add_card(card)
    assert view._frames.count == frames + 1  # noqa: SLF001  # one page update: the line, never the card
    assert card not in view.shown and card.comm is None
    assert [w.value for w in view.shown if "nbacp-answered" in w._dom_classes] == ["Accepted: X = pipeline"]
