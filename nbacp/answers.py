"""Headless answer policies: scripted people for CI, nbval and widget tests.

A policy is called with each card right after it is shown and acts through the card's own
methods, the ones a person's clicks call, so headless runs take the real path. A policy may
leave a card alone; it then waits for a person or for cancellation. Nothing here accepts a
permission unless a script names the option.

Script entries (JSON-friendly, matched to cards in the order the cards appear)::

    {"pick": {"question_0": ["Alpha", "Beta"]}, "fill": {"question_0_custom": "gamma"}, "press": "accept"}
    {"choose": "allow_once"}            # a permission card: option kind, else id, else label
    {"press": "open"}                   # a URL card: open / decline / cancel
    {"press": "open", "visit": true}    # ... and fetch the page, as the person's browser would
    {"authenticate": "api-key"}         # an authentication card: method id or name ("cancel" to refuse)
    {"review": "accept"}                # a review card (a proposed cell): accept / accept_run / reject /
                                        #   accept_all / reject_all; "source": "..." accepts that version
    {"expect": "form", ...}             # optional: fail loudly if the card is of another kind
    {"skip": true}                      # leave this card for a person
"""

from __future__ import annotations

import json
import os
import sys
import threading
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nbacp.errors import ScriptError

ENV_VAR = "NBACP_ANSWERS"


def card_kind(card: Any) -> str:
    """ "form", "url" or "permission", from the card's class (no import of the widget layer needed)."""
    name = type(card).__name__
    kinds = {
        "FormCard": "form",
        "UrlConsentCard": "url",
        "PermissionCard": "permission",
        "AuthCard": "auth",
        "ReviewCard": "review",
    }
    return kinds.get(name, name)


class Script:
    """Answers cards from a list of entries, in order; when the list runs out cards wait for a person."""

    def __init__(self, entries: Sequence[Mapping[str, Any]]) -> None:
        for index, entry in enumerate(entries):
            if not isinstance(entry, Mapping):
                raise ScriptError(f"Answer script entry {index} must be an object, not {type(entry).__name__}.")
        self.entries = list(entries)
        self.used = 0

    @property
    def remaining(self) -> int:
        return len(self.entries) - self.used

    def __call__(self, card: Any) -> None:
        if self.used >= len(self.entries):
            return
        entry = self.entries[self.used]
        self.used += 1
        apply_entry(card, entry, index=self.used - 1)

    def __repr__(self) -> str:
        return f"Script({self.remaining} of {len(self.entries)} answers left)"


def apply_entry(card: Any, entry: Mapping[str, Any], *, index: int = 0) -> None:
    kind = card_kind(card)
    expected = entry.get("expect")
    if expected is not None and expected != kind:
        raise ScriptError(f"Answer script entry {index} expects a {expected} card, but a {kind} card was shown.")
    if entry.get("skip"):
        return
    if kind == "auth":
        if "authenticate" not in entry:
            raise ScriptError(f"Answer script entry {index} is for an authentication card and needs 'authenticate'.")
        method = str(entry["authenticate"])
        if method == "cancel":
            card.cancel()
        else:
            card.choose(method)
        return
    if kind == "review":
        review(card, entry, index=index)
        return
    if kind == "permission":
        if "choose" not in entry:
            raise ScriptError(f"Answer script entry {index} is for a permission card and needs 'choose'.")
        card.choose(permission_option(card, str(entry["choose"]), index=index))
        return
    for name, labels in dict(entry.get("pick", {})).items():
        card.pick(name, *([labels] if isinstance(labels, str) else list(labels)))
    for name, value in dict(entry.get("fill", {})).items():
        card.fill(name, value)
    press = entry.get("press", "accept" if kind == "form" else None)
    allowed = {"form": ("accept", "decline", "cancel"), "url": ("open", "decline", "cancel")}.get(kind, ())
    if press not in allowed:
        raise ScriptError(f"Answer script entry {index}: 'press' must be one of {allowed} for a {kind} card.")
    # "open" is the button's word; the card's method is consent(), since Widget.open() is ipywidgets' own
    getattr(card, "consent" if press == "open" else str(press))()
    if press == "open" and entry.get("visit"):
        visit(str(card.url))


REVIEW_ANSWERS = ("accept", "accept_run", "reject", "accept_all", "reject_all")


def review(card: Any, entry: Mapping[str, Any], *, index: int = 0) -> None:
    """A review card's entry: the person's button, maybe after typing their own version."""
    press = entry.get("review")
    if press not in REVIEW_ANSWERS:
        raise ScriptError(
            f"Answer script entry {index} is for a review card and needs 'review': one of {REVIEW_ANSWERS}."
        )
    if "source" in entry:
        if not isinstance(entry["source"], str):
            raise ScriptError(f"Answer script entry {index}: 'source' must be a string.")
        card.edit(entry["source"])
    if press in ("accept", "accept_run"):
        card.accept(run=press == "accept_run")
    else:
        getattr(card, str(press))()


def visit(url: str) -> threading.Thread:
    """Fetch ``url`` on a thread, as a person's browser does after Open (the page may be served
    by an agent on this very event loop, so the fetch must not block it). No proxy is used."""

    def fetch() -> None:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(url, timeout=30) as response:
                response.read()
        except OSError as exc:
            print(f"nbacp.answers: visiting {url} failed: {exc}", file=sys.stderr)

    thread = threading.Thread(target=fetch, name="nbacp-answers-visit", daemon=True)
    thread.start()
    return thread


def permission_option(card: Any, wanted: str, *, index: int = 0) -> str:
    """The option id a script's ``choose`` names: by ACP kind first, then by id, then by label.

    Kinds come first because option ids differ per agent for the same meaning (claude
    ``allow-once``, codex ``allow_once``, gemini ``proceed_once``), so ``"allow_once"`` is the
    one script entry that works with all of them. A kind offered twice is ambiguous unless
    ``wanted`` is also an option's id (ids are unique). Nothing is guessed: an ambiguous or
    unknown entry raises, and the card stays for a person with the error shown on it.
    """
    options = list(getattr(card, "options", ()))
    by_kind = [o for o in options if getattr(o, "kind", None) == wanted]
    if len(by_kind) == 1:
        return str(by_kind[0].option_id)
    by_id = [o for o in options if getattr(o, "option_id", None) == wanted]
    if len(by_id) == 1:
        return str(by_id[0].option_id)
    by_label = [o for o in options if getattr(o, "name", None) == wanted]
    if len(by_label) == 1 and not by_kind:
        return str(by_label[0].option_id)
    offered = (
        ", ".join(
            f"{getattr(o, 'option_id', '?')!r} ({getattr(o, 'name', '?')!r}, {getattr(o, 'kind', '?')})"
            for o in options
        )
        or "none"
    )
    if by_kind or by_label:
        what = "kind" if by_kind else "label"
        problem = f"matches {len(by_kind or by_label)} options by {what}"
    else:
        problem = "matches no option's kind, id or label"
    raise ScriptError(f"Answer script entry {index}: choose {wanted!r} {problem}; offered: {offered}.")


def decline(card: Any) -> None:
    """Say no to everything: decline forms and URLs, pick the agent's reject option, do not sign
    in, reject proposed cells."""
    kind = card_kind(card)
    if kind == "review":
        card.reject()
    elif kind in ("form", "url"):
        card.decline()
    elif kind == "auth":  # no to signing in: the request fails with the agent's own message
        card.cancel()
    elif kind == "permission":
        reject = _reject_option(card)
        if reject is not None:
            card.choose(reject)


def cancel(card: Any) -> None:
    """Dismiss every form, URL and authentication card. Permission cards have no dismiss: they wait for a person."""
    if card_kind(card) in ("form", "url", "auth"):
        card.cancel()


def _reject_option(card: Any) -> str | None:
    options = list(getattr(card, "options", ()))
    for wanted in ("reject_once", "reject_always"):
        for option in options:
            if getattr(option, "kind", None) == wanted:
                return str(option.option_id)
    return None


def from_env(name: str | None = None, *, var: str = ENV_VAR) -> Script | Any | None:
    """The policy named by ``$NBACP_ANSWERS``: "decline", "cancel", inline JSON, or a JSON file path.

    When the variable names a folder, ``name`` picks ``<folder>/<name>.json``, so one setting
    serves every example notebook of a test run. Returns None when the variable is unset (or
    the folder has no file for ``name``), so notebooks wait for a person by default.
    """
    raw = os.environ.get(var, "").strip()
    if not raw:
        return None
    if Path(raw).is_dir():
        if name is None:
            raise ScriptError(f"{var}={raw!r} is a folder: call from_env('<notebook name>').")
        file = Path(raw) / f"{name}.json"
        return parse_policy(str(file)) if file.is_file() else None
    return parse_policy(raw)


def parse_policy(raw: str) -> Any:
    if raw == "decline":
        return decline
    if raw == "cancel":
        return cancel
    text = raw if raw[:1] in "[{" else _read(raw)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScriptError(f"{ENV_VAR} is not valid JSON: {exc}") from None
    if isinstance(data, Mapping):
        data = data.get("answers", [data])
    if not isinstance(data, list):
        raise ScriptError(f"{ENV_VAR} must hold a list of answers.")
    return Script(data)


def _read(path: str) -> str:
    file = Path(path)
    if not file.is_file():
        raise ScriptError(f"{ENV_VAR}={path!r} is neither 'decline', 'cancel', inline JSON, nor a file.")
    return file.read_text(encoding="utf-8")
