"""UrlConsentCard: consent outcomes, the completion wait, URL checks, and agent text as text only."""

from __future__ import annotations

import asyncio
import json

import pytest
from acp.schema import AcceptElicitationResponse, CancelElicitationResponse, DeclineElicitationResponse
from support.comm_support import RecordingComms

from nbacp.widgets.url_card import UrlConsentCard, check_url

XSS = "<img src=x onerror=alert(1)>"


def card(url: str = "https://example.com/login?next=/home", message: str = "Sign in") -> UrlConsentCard:
    return UrlConsentCard(message, url, "elic-1", agent="helper")


_seq = iter(range(1, 1_000_000))


def press(comms: RecordingComms, c: UrlConsentCard, event: str) -> None:
    """What the page sends: the link's click is "open", the buttons send their action's event."""
    comms.custom(c, {"event": event, "seq": next(_seq)})


def events(c: UrlConsentCard) -> list[str]:
    return [a["event"] for a in c.spec.get("actions", [])]


# -- outcomes -------------------------------------------------------------------------------
async def test_open_accepts_and_waits(comms: RecordingComms) -> None:
    c = card()
    press(comms, c, "open")
    assert await c == AcceptElicitationResponse(action="accept")
    assert c.stage == "waiting" and not c.completed and c.done
    assert c.phase == "sent" and not c.settled  # answered, still reporting: the page keeps the card
    assert "Waiting for the agent" in c.spec["status"]
    assert events(c) == ["retry", "stop"]  # Decline and Cancel are gone: the consent is sent
    assert c.spec["link_enabled"] is False


async def test_decline_button(comms: RecordingComms) -> None:
    c = card()
    press(comms, c, "decline")
    assert await c == DeclineElicitationResponse(action="decline")
    assert c.stage == "declined"
    assert c.summary == "Declined" and c.settled


async def test_cancel_button(comms: RecordingComms) -> None:
    c = card()
    press(comms, c, "cancel")
    assert await c == CancelElicitationResponse(action="cancel")
    assert c.stage == "cancelled"


async def test_headless_actions_match_buttons() -> None:
    assert (await _answered(lambda c: c.open())).action == "accept"
    assert (await _answered(lambda c: c.consent())).action == "accept"
    assert (await _answered(lambda c: c.decline())).action == "decline"
    assert (await _answered(lambda c: c.cancel())).action == "cancel"


async def _answered(act: object) -> AcceptElicitationResponse | DeclineElicitationResponse | CancelElicitationResponse:
    c = card()
    assert callable(act)
    act(c)
    return await c


async def test_double_clicks_resolve_once(comms: RecordingComms) -> None:
    c = card()
    seen: list[object] = []
    c.on_resolve(seen.append)
    press(comms, c, "open")
    press(comms, c, "open")
    press(comms, c, "decline")
    assert seen == [AcceptElicitationResponse(action="accept")]
    assert c.stage == "waiting"
    assert await c == await c == AcceptElicitationResponse(action="accept")


async def test_decline_then_open_is_ignored(comms: RecordingComms) -> None:
    c = card()
    press(comms, c, "decline")
    press(comms, c, "open")
    assert c.consent() is False
    assert c.response == DeclineElicitationResponse(action="decline")
    assert c.settled and c.phase == "answered" and "actions" not in c.spec


async def test_consent_disables_the_link_on_the_page(comms: RecordingComms) -> None:
    c = card()
    press(comms, c, "open")
    assert any(u.get("spec", {}).get("link_enabled") is False for u in comms.state_updates(c))


# -- completion -----------------------------------------------------------------------------
async def test_complete_before_consent_is_harmless() -> None:
    c = card()
    assert c.complete() is False
    assert c.stage == "asking" and not c.completed and not c.done
    c.open()
    assert c.complete() is True
    assert c.completed and c.stage == "completed" and c.settled
    assert c.summary.endswith("The agent reports this step is finished.")


async def test_complete_twice_is_harmless() -> None:
    c = card()
    waiter = asyncio.ensure_future(c.wait_completed())
    c.open()
    assert not waiter.done()
    assert c.complete() is True
    assert c.complete() is False
    assert await waiter is True
    assert await c.wait_completed() is True
    assert "finished" in c.summary


async def test_complete_after_decline_is_ignored() -> None:
    c = card()
    waiter = asyncio.ensure_future(c.wait_completed())
    c.decline()
    assert await waiter is False
    assert c.complete() is False and not c.completed


async def test_retry_shows_the_link_again(comms: RecordingComms) -> None:
    c = card()
    press(comms, c, "open")
    assert c.spec["link_enabled"] is False
    press(comms, c, "retry")
    assert c.spec["link_enabled"] is True and c.spec["link_label"] == "Open again"
    press(comms, c, "open")  # the person re-opens the page
    assert c.spec["link_enabled"] is False and c.stage == "waiting"
    assert "Opened again" in c.spec["status"]
    assert c.response == AcceptElicitationResponse(action="accept")


async def test_cancel_wait_closes_locally(comms: RecordingComms) -> None:
    c = card()
    waiter = asyncio.ensure_future(c.wait_completed())
    press(comms, c, "open")
    press(comms, c, "stop")
    assert await waiter is False
    assert c.stage == "stopped" and not c.completed and c.settled
    assert c.response == AcceptElicitationResponse(action="accept")  # the consent stays sent
    assert "Stopped waiting for the agent (closed here)." in c.summary
    assert c.retry() is False
    assert c.complete() is True and c.completed  # a late completion is still recorded


async def test_headless_cancel_after_consent_stops_the_wait() -> None:
    c = card()
    c.open()
    assert c.cancel() is True
    assert c.stage == "stopped" and c.response == AcceptElicitationResponse(action="accept")


async def test_cancel_pending_before_and_after_consent() -> None:
    before = card()
    assert before.cancel_pending("turn ended") is True
    assert await before == CancelElicitationResponse(action="cancel")
    assert before.summary == "Cancelled: turn ended"
    after = card()
    after.open()
    waiter = asyncio.ensure_future(after.wait_completed())
    assert after.cancel_pending("turn ended") is True
    assert await waiter is False
    assert "turn ended" in after.summary
    assert await after == AcceptElicitationResponse(action="accept")


# -- what the URL is ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "ftp://example.com/x",
        "example.com/no-scheme",
        "http://[::1",
        "https://",
        "https://exa mple.com",
        "https://example.com/\u202egnp.exe",
        "",
    ],
)
async def test_unsafe_urls_give_a_decline_only_card(comms: RecordingComms, url: str) -> None:
    c = card(url)
    assert not c.openable and c.spec["href"] == "" and c.spec["link_enabled"] is False
    assert c.check.refusal is not None and c.spec["refusal"] == c.check.refusal
    assert c.retry() is False
    with pytest.raises(ValueError, match="cannot be opened"):
        c.consent()
    press(comms, c, "open")  # a forged click: refused on the card, nothing answered
    assert not c.done and "cannot be opened" in c.errors[""][0]
    press(comms, c, "decline")
    assert await c == DeclineElicitationResponse(action="decline")


def shown_url(c: UrlConsentCard) -> str:
    return "".join(c.spec["url"][k] for k in ("before", "host", "after"))


def test_refused_url_shows_hidden_characters() -> None:
    c = card("https://example.com/\u202egnp.exe")
    assert shown_url(c) == "https://example.com/<U+202E>gnp.exe"


def test_full_url_and_host_are_shown() -> None:
    url = "https://login.example.com:8443/a/very/long/path?with=query&and=more#fragment"
    c = card(url)
    assert shown_url(c) == url and c.spec["href"] == url
    assert c.spec["url"]["host"] == "login.example.com"  # the marked part of the URL
    assert c.spec["site"] == c.check.host == "login.example.com:8443"
    assert c.check.warnings == () and c.spec["warnings"] == []


def test_the_host_after_userinfo_is_the_marked_one() -> None:
    c = card("https://bank.example@evil.example/login")
    assert c.spec["url"] == {"before": "https://bank.example@", "host": "evil.example", "after": "/login"}
    assert c.spec["site"] == "evil.example"


def test_loopback_http_is_not_called_unencrypted_but_other_http_is() -> None:
    assert card("http://127.0.0.1:8765/callback").spec["warnings"] == []
    assert any("not encrypted" in w for w in card("http://example.com/").spec["warnings"])


def test_punycode_host_warns_and_shows_decoded_form() -> None:
    c = card("https://xn--80ak6aa92e.com/login")
    assert c.check.host == "xn--80ak6aa92e.com"
    assert c.check.display_host == "\u0430\u0440\u0440\u04cf\u0435.com"
    assert any("punycode" in w for w in c.check.warnings)
    assert c.spec["reads_as"] == "\u0430\u0440\u0440\u04cf\u0435.com"
    assert c.openable


def test_a_punycode_host_that_decodes_to_a_bidi_override_is_shown_not_obeyed() -> None:
    label = "xn--" + "abc\u202egoogle".encode("punycode").decode("ascii")
    c = card(f"https://{label}.com/")
    assert "\u202e" in c.check.display_host and c.openable
    assert c.spec["reads_as"] == "abc<U+202E>google.com"
    assert all("\u202e" not in w for w in c.spec["warnings"])
    c.open()
    assert "\u202e" not in c.summary and "<U+202E>" in c.summary


def test_mixed_script_host_warns() -> None:
    check = check_url("https://\u0430pple.com/")  # Cyrillic a + Latin pple
    assert any("mixes scripts (Cyrillic, Latin)" in w for w in check.warnings)
    assert check.host == "xn--pple-43d.com"
    assert check.openable


def test_mixed_script_punycode_warns_both() -> None:
    check = check_url("https://xn--pple-43d.com/")
    assert any("punycode" in w for w in check.warnings)
    assert any("mixes scripts" in w for w in check.warnings)


def test_plain_latin_and_japanese_hosts_are_not_mixed() -> None:
    assert not any("mixes" in w for w in check_url("https://example.com").warnings)
    assert not any("mixes" in w for w in check_url("https://\u65e5\u672c\u3054.jp").warnings)  # Han + Hiragana
    assert any("non-ASCII" in w for w in check_url("https://b\u00fccher.de").warnings)


def test_userinfo_and_plain_http_warn() -> None:
    check = check_url("http://bank.example@evil.example/")
    assert check.host == "evil.example"
    assert any("before '@'" in w and "evil.example" in w for w in check.warnings)
    assert any("not encrypted" in w for w in check.warnings)


def test_malformed_punycode_warns() -> None:
    assert any("malformed punycode" in w for w in check_url("https://xn--zz.com").warnings)


# -- safety ---------------------------------------------------------------------------------
def test_agent_text_is_sent_as_plain_spec_text(comms: RecordingComms) -> None:
    url_payload = "<img/src=x/onerror=alert(1)>"  # no spaces, so the URL stays openable
    c = UrlConsentCard(XSS + "\u202e", f"https://example.com/{url_payload}", XSS, agent=XSS)
    assert c.openable and c.spec["href"] == f"https://example.com/{url_payload}"
    assert c.spec["message"] == XSS + "<U+202E>" and c.spec["header"].startswith(XSS)
    sent = json.dumps([s.data for s in comms.sent_to(c)], ensure_ascii=False)
    assert "\u202e" not in sent  # the page writes these with textContent (js/test/url_card.test.js)
    c.open()
    assert c.done


def test_one_model_per_card(comms: RecordingComms) -> None:
    c = card()
    mine = [s for s in comms.sent if s.msg_type == "comm_open" and s.data["state"].get("spec")]
    assert [s.comm_id for s in mine] == [c.model_id]
