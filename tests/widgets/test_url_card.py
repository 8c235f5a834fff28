"""UrlConsentCard: consent outcomes, the completion wait, URL checks, and agent text as text only."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from acp.schema import AcceptElicitationResponse, CancelElicitationResponse, DeclineElicitationResponse
from support.comm_support import RecordingComms, assert_shown_as_text, texts, walk

from nbacp.widgets.url_card import UrlConsentCard, check_url

XSS = "<img src=x onerror=alert(1)>"


def card(url: str = "https://example.com/login?next=/home", message: str = "Sign in") -> UrlConsentCard:
    return UrlConsentCard(message, url, "elic-1", agent="helper")


def link_click(comms: RecordingComms, c: UrlConsentCard) -> None:
    """What the ESM sends when a person clicks the enabled link."""
    assert c.link is not None
    comms.custom(c.link, {"event": "open"})


# -- outcomes -------------------------------------------------------------------------------
async def test_open_accepts_and_waits(comms: RecordingComms) -> None:
    c = card()
    link_click(comms, c)
    assert await c == AcceptElicitationResponse(action="accept")
    assert c.phase == "waiting" and not c.completed
    assert c.wait_box.layout.display is None
    assert "Waiting for the agent" in c.status.value
    assert not c.retry_button.disabled and not c.stop_button.disabled
    assert c.decline_button.disabled and c.cancel_button.disabled


async def test_decline_button(comms: RecordingComms) -> None:
    c = card()
    comms.click(c.decline_button)
    assert await c == DeclineElicitationResponse(action="decline")
    assert c.phase == "declined"
    assert c.summary.value == "Declined"


async def test_cancel_button(comms: RecordingComms) -> None:
    c = card()
    comms.click(c.cancel_button)
    assert await c == CancelElicitationResponse(action="cancel")
    assert c.phase == "cancelled"


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
    link_click(comms, c)
    link_click(comms, c)
    comms.click(c.decline_button)
    comms.click(c.cancel_button)
    assert seen == [AcceptElicitationResponse(action="accept")]
    assert await c == await c == AcceptElicitationResponse(action="accept")


async def test_decline_then_open_is_ignored(comms: RecordingComms) -> None:
    c = card()
    comms.click(c.decline_button)
    assert c.link is not None and c.link.comm is None  # closed with the card's other controls
    assert c.consent() is False
    assert c.response == DeclineElicitationResponse(action="decline")
    assert c.children == (c.summary,)


async def test_consent_sends_disabled_state_to_the_link(comms: RecordingComms) -> None:
    c = card()
    assert c.link is not None
    link_click(comms, c)
    assert {"disabled": True} in comms.state_updates(c.link)


# -- completion -----------------------------------------------------------------------------
async def test_complete_before_consent_is_harmless() -> None:
    c = card()
    assert c.complete() is False
    assert c.phase == "asking" and not c.completed and not c.done
    c.open()
    assert c.complete() is True
    assert c.completed and c.phase == "completed"


async def test_complete_twice_is_harmless() -> None:
    c = card()
    waiter = asyncio.ensure_future(c.wait_completed())
    c.open()
    assert not waiter.done()
    assert c.complete() is True
    assert c.complete() is False
    assert await waiter is True
    assert await c.wait_completed() is True
    assert "finished" in c.status.value
    assert c.retry_button.disabled and c.stop_button.disabled


async def test_complete_after_decline_is_ignored() -> None:
    c = card()
    waiter = asyncio.ensure_future(c.wait_completed())
    c.decline()
    assert await waiter is False
    assert c.complete() is False and not c.completed


async def test_retry_shows_the_link_again(comms: RecordingComms) -> None:
    c = card()
    assert c.link is not None
    link_click(comms, c)
    assert c.link.disabled
    comms.click(c.retry_button)
    assert not c.link.disabled and c.link.label == "Open again"
    link_click(comms, c)  # the person re-opens the page
    assert c.link.disabled and c.phase == "waiting"
    assert c.response == AcceptElicitationResponse(action="accept")


async def test_cancel_wait_closes_locally(comms: RecordingComms) -> None:
    c = card()
    waiter = asyncio.ensure_future(c.wait_completed())
    link_click(comms, c)
    comms.click(c.stop_button)
    assert await waiter is False
    assert c.phase == "stopped" and not c.completed
    assert c.response == AcceptElicitationResponse(action="accept")  # the consent stays sent
    assert c.retry() is False
    assert c.complete() is True and c.completed  # a late completion is still recorded


async def test_headless_cancel_after_consent_stops_the_wait() -> None:
    c = card()
    c.open()
    assert c.cancel() is True
    assert c.phase == "stopped" and c.response == AcceptElicitationResponse(action="accept")


async def test_cancel_pending_before_and_after_consent() -> None:
    before = card()
    assert before.cancel_pending("turn ended") is True
    assert await before == CancelElicitationResponse(action="cancel")
    assert before.summary.value == "Cancelled: turn ended"
    after = card()
    after.open()
    waiter = asyncio.ensure_future(after.wait_completed())
    assert after.cancel_pending("turn ended") is True
    assert await waiter is False
    assert "turn ended" in after.status.value
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
    assert not c.openable and c.link is None
    assert c.check.refusal is not None
    assert any(t.startswith("Cannot open: ") for t in texts(c))
    assert c.wait_box not in walk(c) and c.retry() is False
    with pytest.raises(ValueError, match="cannot be opened"):
        c.consent()
    assert not c.done
    comms.click(c.decline_button)
    assert await c == DeclineElicitationResponse(action="decline")


def test_refused_url_shows_hidden_characters() -> None:
    c = card("https://example.com/\u202egnp.exe")
    assert c.url_text.value == "https://example.com/<U+202E>gnp.exe"


def test_full_url_and_host_are_shown() -> None:
    url = "https://login.example.com:8443/a/very/long/path?with=query&and=more#fragment"
    c = card(url)
    assert c.url_text.value == url
    assert c.check.host == "login.example.com:8443"
    hosts = [w for w in walk(c) if "nbacp-host" in getattr(w, "_dom_classes", ())]
    assert [h.value for h in hosts] == ["login.example.com:8443"]
    assert hosts[0].style.font_weight == "bold"
    assert c.check.warnings == ()


def test_punycode_host_warns_and_shows_decoded_form() -> None:
    c = card("https://xn--80ak6aa92e.com/login")
    assert c.check.host == "xn--80ak6aa92e.com"
    assert c.check.display_host == "\u0430\u0440\u0440\u04cf\u0435.com"
    assert any("punycode" in w for w in c.check.warnings)
    assert "Reads as: \u0430\u0440\u0440\u04cf\u0435.com" in texts(c)
    assert c.openable


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
def test_agent_text_is_shown_only_as_text(comms: RecordingComms) -> None:
    url_payload = "<img/src=x/onerror=alert(1)>"  # no spaces, so the URL stays openable
    c = UrlConsentCard(XSS, f"https://example.com/{url_payload}", XSS, agent=XSS)
    assert c.link is not None and c.link.url == f"https://example.com/{url_payload}"
    assert_shown_as_text(c, XSS, comms)
    assert_shown_as_text(c, url_payload, comms)
    c.open()
    assert_shown_as_text(c, XSS, comms)


def test_decline_only_card_shows_payload_as_text(comms: RecordingComms) -> None:
    c = UrlConsentCard("x", f"javascript:{XSS}", "e", agent="a")
    assert_shown_as_text(c, XSS, comms)


def test_esm_never_writes_markup() -> None:
    from nbacp.widgets.url_card import OpenLink

    source = str(OpenLink._esm)
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "window.open", "fetch("):
        assert sink not in source
    assert "textContent" in source and 'rel = "noopener noreferrer"' in source


# -- the link's ESM in a DOM (node + jsdom from js/node_modules) -----------------------------
JS_DIR = Path(__file__).resolve().parents[2] / "js"
ESM_DRIVER = r"""
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";
const require = createRequire(process.argv[2] + "/package.json");
const { JSDOM, VirtualConsole } = require("jsdom");
const dom = new JSDOM("<!doctype html><body></body>", { virtualConsole: new VirtualConsole() });
globalThis.document = dom.window.document;
const widget = (await import(process.argv[3])).default;

function fakeModel(state) {
  const handlers = {}, sent = [];
  return {
    sent,
    get: (k) => state[k],
    set: (k, v) => { state[k] = v; (handlers["change:" + k] || []).forEach((h) => h()); },
    save_changes: () => {},
    on: (e, h) => { (handlers[e] ||= []).push(h); },
    off: (e, h) => { handlers[e] = (handlers[e] || []).filter((x) => x !== h); },
    send: (m) => sent.push(m),
  };
}
function show(state, act) {
  const model = fakeModel(state), el = document.createElement("div");
  document.body.appendChild(el);
  widget.render({ model, el });
  if (act) act(model);
  const a = el.querySelector("a");
  a.dispatchEvent(new dom.window.MouseEvent("click", { bubbles: true, cancelable: true }));
  return { href: a.getAttribute("href"), text: a.textContent, rel: a.rel, target: a.target,
           elements: el.querySelectorAll("*").length, sent: model.sent };
}
const out = {
  https: show({ url: "https://example.com/p?q=1", label: "Open", disabled: false }),
  js: show({ url: "javascript:alert(1)", label: "Open", disabled: false }),
  data: show({ url: "data:text/html,hi", label: "Open", disabled: false }),
  disabled: show({ url: "https://example.com/", label: "Open", disabled: true }),
  reenabled: show({ url: "https://example.com/", label: "Open", disabled: true },
                  (m) => { m.set("label", "Open again"); m.set("disabled", false); }),
  xss: show({ url: "https://example.com/", label: "<img src=x onerror=alert(1)>", disabled: false }),
};
writeFileSync(process.argv[4], JSON.stringify(out));
"""


def test_link_esm_in_jsdom(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None or not (JS_DIR / "node_modules" / "jsdom").is_dir():
        pytest.skip("node and js/node_modules/jsdom are needed (npm ci in js/)")
    from nbacp.widgets.url_card import OpenLink

    (tmp_path / "link.mjs").write_text(str(OpenLink._esm))
    (tmp_path / "driver.mjs").write_text(ESM_DRIVER)
    result_file = tmp_path / "out.json"
    subprocess.run(
        [node, str(tmp_path / "driver.mjs"), str(JS_DIR), (tmp_path / "link.mjs").as_uri(), str(result_file)],
        check=True,
        timeout=60,
    )
    out = json.loads(result_file.read_text())
    assert out["https"]["href"] == "https://example.com/p?q=1"
    assert out["https"]["rel"] == "noopener noreferrer" and out["https"]["target"] == "_blank"
    assert out["https"]["sent"] == [{"event": "open"}]
    for name in ("js", "data", "disabled"):
        assert out[name]["href"] is None and out[name]["sent"] == [], name
    assert out["reenabled"]["href"] == "https://example.com/" and out["reenabled"]["text"] == "Open again"
    assert out["reenabled"]["sent"] == [{"event": "open"}]
    assert out["xss"]["text"] == XSS and out["xss"]["elements"] == 1


def test_cards_carry_the_wrapping_css() -> None:
    from nbacp.widgets.text import CardStyle

    c = card()
    assert isinstance(c.children[0], CardStyle) and "pre-wrap" in str(c.children[0]._css)
    assert "nbacp-text" in c.url_text._dom_classes  # the class the CSS wraps
