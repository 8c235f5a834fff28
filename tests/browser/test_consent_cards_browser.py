"""The permission, URL consent and authentication cards in a real JupyterLab, driven through the DOM.

Next to each card a "probe" label that the KERNEL fills with the card's response once answered,
so an assertion on a probe proves the click travelled browser -> kernel as the card's message.
The layout check measures every card type (these three and a form) in light and dark themes:
no card and no output is wider than the output area, with hostile long text in every slot.
``NBACP_SCREENSHOTS=<dir>`` also writes the permission cards' screenshots there (docs/ holds
the checked-in ones: docs/consent-cards.md, 'Screenshots').
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from browser_support import (
    JupyterServer,
    open_notebook,
    output_area,
    run_all_cells,
    save_shot,
    set_theme,
    wait_kernel_idle,
)
from playwright.sync_api import Locator, Page, Route, expect

CARD_TIMEOUT = 30_000

SETUP = textwrap.dedent('''
    import json
    import ipywidgets as widgets
    import nbacp
    from acp.schema import (ContentToolCallContent, FileEditToolCallContent, PermissionOption,
                            TextContentBlock, ToolCallLocation, ToolCallUpdate)
    from nbacp.widgets import PermissionCard, UrlConsentCard
    from nbacp.widgets.auth_card import AuthCard

    def probe(card, name):
        """Show the card with a label the kernel fills with its response once answered."""
        label = widgets.Label(value="")
        label.add_class(f"probe-{name}")
        def answered(r):
            plain = r if r is None or isinstance(r, str) else r.model_dump(
                mode="json", by_alias=True, exclude_none=True)
            label.value = json.dumps(plain, sort_keys=True)
        card.on_resolve(answered)
        return widgets.VBox([card, label])

    CLAUDE = [PermissionOption(option_id="allow-once", name="Yes", kind="allow_once"),
              PermissionOption(option_id="allow-with-updates", name="Yes, and don't ask again for pytest commands",
                               kind="allow_always"),
              PermissionOption(option_id="reject", name="No", kind="reject_once")]
    GEMINI = [PermissionOption(option_id="proceed_always", name="Allow for this session", kind="allow_always"),
              PermissionOption(option_id="proceed_once", name="Allow", kind="allow_once"),
              PermissionOption(option_id="cancel", name="Reject", kind="reject_once")]
''')

# claude-agent-acp's Bash request and gemini-cli's replace request, as recorded (docs/consent-cards.md).
PERMISSIONS = textwrap.dedent("""
    bash = PermissionCard(ToolCallUpdate(
        tool_call_id="toolu_bash", title="pytest -q tests/ && ruff check .", kind="execute", status="pending",
        raw_input={"command": "pytest -q tests/ && ruff check .", "description": "Run the tests and the linter"},
        content=[ContentToolCallContent(type="content",
                 content=TextContentBlock(type="text", text="Run the tests and the linter"))]),
        CLAUDE, agent="claude")
    old = "import os\\n\\nDEBUG = True\\nHOSTS = ['*']\\nTIMEOUT = 30\\n\\n\\ndef main():\\n    run(DEBUG)\\n"
    new = old.replace("DEBUG = True", "DEBUG = os.environ.get('DEBUG') == '1'").replace("['*']", "['example.com']")
    edit = PermissionCard(ToolCallUpdate(
        tool_call_id="replace__call_replace", title="settings.py: DEBUG = True => DEBUG = os.environ...",
        kind="edit", status="pending",
        content=[FileEditToolCallContent(type="diff", path="/home/me/proj/settings.py", old_text=old, new_text=new)],
        locations=[ToolCallLocation(path="/home/me/proj/settings.py")]),
        GEMINI, agent="gemini")
    widgets.VBox([probe(bash, "bash"), probe(edit, "edit")])
""")
PERMISSION_RESULTS = "for card in (bash, edit):\n    print(card.response.outcome.option_id if card.done else 'open')"

LONG = "x" * 3000
WIDE = textwrap.dedent(f"""
    LONG = {LONG!r}
    wide_call = ToolCallUpdate(
        tool_call_id="id-" + LONG, title="Run " + LONG, kind="execute", status="pending",
        raw_input={{"command": "echo " + LONG, "cwd": "/" + LONG, LONG: LONG,
                   "nested": {{"k": [LONG, {{"deep": LONG}}]}}}},
        content=[FileEditToolCallContent(type="diff", path="/" + LONG,
                                         old_text="a\\n" + LONG + "\\n", new_text="b\\n")],
        locations=[ToolCallLocation(path="/" + LONG, line=3)])
    wide_form = nbacp.FormCard("Pick " + LONG, {{"type": "object", "properties": {{
        "name": {{"type": "string", "title": "Name " + LONG, "description": LONG}},
        "n": {{"type": "integer", "title": "How many"}},
        "pick": {{"type": "string", "title": LONG, "enum": ["a" + LONG, "b"]}}}}}}, agent="bot")
    widgets.VBox([
        PermissionCard(wide_call, [PermissionOption(option_id="o", name="Allow " + LONG, kind="allow_once")],
                       agent=LONG),
        UrlConsentCard(LONG, "https://" + "a" * 60 + ".example.com/" + LONG + "?q=" + LONG, "e1", agent=LONG),
        UrlConsentCard("Refused", "javascript:" + LONG, "e2", agent="bot"),
        AuthCard([{{"id": "k", "name": "Key " + LONG, "description": LONG, "type": "env_var",
                   "vars": [{{"name": "K_" + "X" * 500}}]}}], agent=LONG, reason=LONG),
        wide_form,
    ])
""")

URL_CARDS = textwrap.dedent("""
    login = UrlConsentCard("Sign in to continue.", "https://accounts.example.com/login?next=/x", "e1", agent="bot")
    evil = UrlConsentCard("Run this.", "javascript:window.__xss=1", "e2", agent="bot")
    local = UrlConsentCard("Finish here.", "http://127.0.0.1:8765/callback", "e3", agent="bot")
    widgets.VBox([probe(login, "login"), probe(evil, "evil"), probe(local, "local")])
""")
URL_COMPLETE = textwrap.dedent("""
    if login.done:
        login.complete()  # what the client does on the agent's elicitation/complete
    print("login ->", login.response and login.response.action, login.stage)
    print("evil ->", evil.response and evil.response.action, evil.stage)
""")

AUTH = textwrap.dedent("""
    auth = AuthCard([
        {"id": "api-key", "name": "API key", "description": "Use an API key from the environment",
         "type": "env_var", "vars": [{"name": "OPENAI_API_KEY"}, {"name": "OPENAI_ORG", "optional": True}]},
        {"id": "login", "name": "Terminal login", "type": "terminal"},
    ], agent="codex", reason="The agent answered: Authentication required")
    probe(auth, "auth")
""")


def open_cards(lab: JupyterServer, page: Page, *cells: str) -> None:
    open_notebook(page, lab, lab.write_notebook("consent_cards.ipynb", [SETUP, *cells]))
    run_all_cells(page)


def expect_probe(page: Page, name: str, wanted: Any) -> None:
    """Wait (bounded) until the kernel's JSON in a probe equals ``wanted``."""
    expect(page.locator(f".probe-{name}")).to_have_text(json.dumps(wanted, sort_keys=True), timeout=CARD_TIMEOUT)


def ready(card: Locator) -> Locator:
    """The card's rendered root, once the card code finished rendering it."""
    root = card.locator(".nbacp-card")
    expect(root).to_have_attribute("data-ready", "true", timeout=CARD_TIMEOUT)
    return root


def run_cell(page: Page, index: int) -> None:
    page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    wait_kernel_idle(page)


OVERFLOW = """(area) => {
  const box = area.getBoundingClientRect();
  const out = [];
  for (const el of area.querySelectorAll('.jp-OutputArea-output, .nbacp-card, .nbacp-card *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    // a horizontal scrollbar inside, or content (also overflowing visibly) past the output's edge
    const scrolls = el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible';
    const outside = Math.max(r.right, r.left + el.scrollWidth) > box.right + 1;
    if (scrolls || outside) {
      out.push(`${el.tagName}.${el.className} right=${Math.round(r.right)} area=${Math.round(box.right)}`
               + ` scrollWidth=${el.scrollWidth} clientWidth=${el.clientWidth}`);
    }
  }
  if (area.scrollWidth > area.clientWidth + 1) out.push(`output area: ${area.scrollWidth} > ${area.clientWidth}`);
  return out;
}"""


def overflowing(area: Locator) -> list[str]:
    found: list[str] = area.evaluate(OVERFLOW)
    return found


def test_permission_cards_show_what_runs_and_answer_the_clicked_option(lab: JupyterServer, page: Page) -> None:
    open_cards(lab, page, PERMISSIONS, PERMISSION_RESULTS)
    cards = page.locator(".nbacp-permission-card")
    expect(cards).to_have_count(2, timeout=CARD_TIMEOUT)
    bash, edit = ready(cards.nth(0)), ready(cards.nth(1))
    expect(bash.locator(".nbacp-card-header")).to_have_text("claude asks permission to run a command")
    expect(bash.locator("pre.nbacp-perm-command")).to_have_text("pytest -q tests/ && ruff check .")
    expect(bash.locator(".nbacp-perm-details")).not_to_have_attribute("open", "")  # ids only under the fold
    expect(bash.locator(".nbacp-perm-details dd").first).to_be_hidden()
    expect(edit.locator(".nbacp-diff-size")).to_have_text("+2 \u22122")
    expect(edit.locator(".nbacp-diff-add .nbacp-diff-text")).to_have_text(
        ["DEBUG = os.environ.get('DEBUG') == '1'", "HOSTS = ['example.com']"]
    )
    colours = edit.locator(".nbacp-diff-line").evaluate_all(
        "(rows) => rows.map((r) => [r.dataset.tag, getComputedStyle(r).backgroundColor])"
    )
    added = {c for tag, c in colours if tag == "+"}
    removed = {c for tag, c in colours if tag == "-"}
    context = {c for tag, c in colours if tag == " "}
    assert len(added) == len(removed) == 1 and added != removed and not (added | removed) & context, colours
    expect(bash.get_by_role("button")).to_have_text(["Yes", "Yes, and don't ask again for pytest commands", "No"])

    bash.get_by_role("button", name="No", exact=True).click()
    expect_probe(page, "bash", {"outcome": {"optionId": "reject", "outcome": "selected"}})
    expect(cards.nth(0).locator(".nbacp-summary")).to_have_text("Chose: No (reject_once)")
    expect(cards.nth(0).get_by_role("button")).to_have_count(0)  # answered: only the summary is left
    allow = edit.get_by_role("button", name="Allow", exact=True)
    expect(allow).to_be_enabled()  # one card's answer is its own
    allow.focus()
    page.keyboard.press("Enter")  # the keyboard runs the same button
    expect_probe(page, "edit", {"outcome": {"optionId": "proceed_once", "outcome": "selected"}})
    run_cell(page, 2)
    expect(output_area(page, 2)).to_have_text("reject\nproceed_once\n")


def test_no_card_is_wider_than_the_output_in_light_and_dark(lab: JupyterServer, page: Page, tmp_path: Path) -> None:
    open_cards(lab, page, PERMISSIONS, WIDE)
    wide = output_area(page, 2)
    for selector in (".nbacp-permission-card", ".nbacp-url-card", ".nbacp-auth-card"):
        ready(wide.locator(selector).first)
    mine = wide.locator(":is(.nbacp-permission-card, .nbacp-url-card, .nbacp-auth-card) .nbacp-card[data-ready]")
    expect(mine).to_have_count(4, timeout=CARD_TIMEOUT)  # + the refused URL; the form is measured as an output
    cards = page.locator(".nbacp-permission-card")
    bash, edit = ready(cards.nth(0)), ready(cards.nth(1))
    try:
        for theme in ("JupyterLab Light", "JupyterLab Dark"):
            set_theme(page, theme)
            for width in (1280, 640):  # a card narrower than its 48em, and one squeezed by the output
                page.set_viewport_size({"width": width, "height": 900})
                for index in (1, 2):
                    assert overflowing(output_area(page, index)) == [], (theme, width)
            page.set_viewport_size({"width": 1280, "height": 900})
            suffix = "dark" if "Dark" in theme else "light"
            save_shot(bash, tmp_path, f"permission-execute-{suffix}")
            save_shot(edit, tmp_path, f"permission-edit-{suffix}")
    finally:
        set_theme(page, "JupyterLab Light")
    # The check can fail: a line that does not wrap in a card is reported.
    bash.evaluate(
        "(card) => { const p = document.createElement('pre'); p.style.whiteSpace = 'pre';"
        " p.style.overflowWrap = 'normal'; p.textContent = 'y'.repeat(900); card.append(p); }"
    )
    assert overflowing(output_area(page, 1)) != []


def test_url_card_opens_a_popup_without_opener(lab: JupyterServer, page: Page) -> None:
    # Nothing leaves the machine: the popup's request is answered here.
    def fake_site(route: Route) -> None:
        route.fulfill(status=200, content_type="text/html", body="<title>login</title>signed in")

    page.context.route("https://accounts.example.com/**", fake_site)
    open_cards(lab, page, URL_CARDS, URL_COMPLETE)
    cards = page.locator(".nbacp-url-card")
    expect(cards).to_have_count(3, timeout=CARD_TIMEOUT)
    login, evil, local = ready(cards.nth(0)), ready(cards.nth(1)), ready(cards.nth(2))
    link = login.get_by_role("button", name="Open")
    expect(link).to_have_attribute("href", "https://accounts.example.com/login?next=/x")
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    expect(login.locator(".nbacp-host")).to_have_text("accounts.example.com")
    expect(login.locator(".nbacp-url-host")).to_have_text("accounts.example.com")
    expect(local.locator(".nbacp-warnings")).to_have_count(0)  # loopback http is not "not encrypted"

    # javascript: is decline-only: no link at all, only Decline and Cancel.
    expect(evil.locator("a")).to_have_count(0)
    expect(evil.locator(".nbacp-refusal")).to_contain_text("Only http and https links can be opened")
    expect(evil.get_by_role("button")).to_have_text(["Decline", "Cancel"])

    with page.expect_popup(timeout=CARD_TIMEOUT) as popup_info:
        link.click()
    popup = popup_info.value
    popup.wait_for_load_state()
    assert popup.url == "https://accounts.example.com/login?next=/x"
    assert popup.evaluate("() => window.opener") is None
    expect_probe(page, "login", {"action": "accept"})
    expect(login.locator(".nbacp-url-status")).to_have_text("Waiting for the agent to finish...", timeout=CARD_TIMEOUT)
    expect(login.get_by_role("button")).to_have_text(["Open", "Retry", "Cancel"])
    expect(login.get_by_role("button", name="Open")).to_have_attribute("aria-disabled", "true")
    expect(output_area(page, 2)).to_contain_text("login -> None asking")  # run-all ran it before the click
    run_cell(page, 2)  # completes the elicitation: the card keeps only its summary
    expect(cards.nth(0).locator(".nbacp-summary")).to_have_text(
        "Consented to open accounts.example.com · The agent reports this step is finished."
    )
    expect(cards.nth(0).locator("a")).to_have_count(0)
    expect(cards.nth(0).get_by_role("button")).to_have_count(0)

    evil.get_by_role("button", name="Decline").click()
    expect_probe(page, "evil", {"action": "decline"})
    run_cell(page, 2)
    expect(output_area(page, 2)).to_have_text("login -> accept completed\nevil -> decline declined\n")
    assert page.evaluate("() => window.__xss") is None


def test_auth_card_lists_methods_and_answers_the_chosen_one(lab: JupyterServer, page: Page) -> None:
    open_cards(lab, page, AUTH)
    card = ready(page.locator(".nbacp-auth-card"))
    expect(card.locator(".nbacp-auth-vars code")).to_have_text(["OPENAI_API_KEY", "OPENAI_ORG"])
    expect(card.locator("input")).to_have_count(0)  # never a password box
    expect(card.get_by_role("button", name="Terminal login")).to_be_disabled()
    card.get_by_role("button", name="API key").click()
    expect_probe(page, "auth", "api-key")
    expect(page.locator(".nbacp-auth-card .nbacp-summary")).to_have_text("Authenticating with: API key")
