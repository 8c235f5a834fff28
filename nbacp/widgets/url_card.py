"""The consent card for URL-mode elicitations: the person decides whether to open a link.

One anywidget model (``nbacp.widgets.card.Card``, docs/consent-cards.md, 'URL consent card'). The spec
names the site, shows the whole URL with its host marked (``nbacp.render.urls.url_parts``) and
the warnings of ``check_url``. The spec makes ``accept`` mean consent, not completion: the
answer goes to the agent when the person consents, and ``elicitation/complete`` may follow
later (``complete()``). The card never opens or fetches anything by itself; only a person's
click on the link in the browser opens a new tab, so that the tab opening is a user gesture
and happens in the person's browser, not in the kernel. The link's click also sends
``{"event": "open"}``; ``consent()`` (headless) runs the same handler.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from acp.schema import AcceptElicitationResponse, CancelElicitationResponse, DeclineElicitationResponse

from nbacp.render.urls import UrlCheck, check_url, url_parts
from nbacp.widgets.card import Card
from nbacp.widgets.text import safe_text, visible_controls

UrlResponse = AcceptElicitationResponse | DeclineElicitationResponse | CancelElicitationResponse

ASKING_ACTIONS = (
    {"event": "decline", "label": "Decline", "style": "default", "hint": "Say no: the agent is told you declined"},
    {"event": "cancel", "label": "Cancel", "style": "default", "hint": "Dismiss without answering"},
)
WAITING_ACTIONS = (
    {"event": "retry", "label": "Retry", "style": "default", "hint": "Show the link again to re-open it"},
    {"event": "stop", "label": "Cancel", "style": "default", "hint": "Stop waiting for the agent"},
)


def _visible(text: str) -> str:
    return visible_controls(safe_text(text))


def url_spec(message: str, url: str, check: UrlCheck, agent: str | None) -> dict[str, Any]:
    """The card's ``spec`` while asking (docs/consent-cards.md, 'URL consent card')."""
    before, host, after = url_parts(url) if check.openable or check.host else (url, "", "")
    return {
        "kind": "url",
        "header": f"{_visible(agent or 'The agent')} asks you to open a web page",
        "message": _visible(message),
        "site": check.host,
        # a punycode label can decode to anything, bidi controls included: shown, not obeyed
        "reads_as": _visible(check.display_host) if check.display_host != check.host else "",
        # a refused URL shows its hidden characters as <U+XXXX>; an openable one has none
        "url": {"before": _visible(before), "host": _visible(host), "after": _visible(after)},
        "href": url if check.openable else "",
        "warnings": [_visible(w) for w in check.warnings],
        "refusal": check.refusal,
        "link_label": "Open",
        "link_enabled": check.openable,
        "status": "",
        "actions": [dict(a) for a in ASKING_ACTIONS],
    }


class UrlConsentCard(Card[UrlResponse]):
    """Asks consent to open ``url``; ``await card`` gives the acp response sent on consent.

    Stages: ``asking`` -> ``declined`` | ``cancelled`` | ``waiting`` (consent sent) ->
    ``completed`` (the agent's ``elicitation/complete``) | ``stopped`` (the wait was closed
    here, or the turn ended). ``open()`` (alias ``consent()``), ``decline()``, ``cancel()``,
    ``retry()`` send the messages the controls send; a headless ``open()`` consents without
    opening a tab.
    """

    def __init__(self, message: str, url: str, elicitation_id: str, *, agent: str | None = None) -> None:
        check = check_url(url)
        super().__init__(url_spec(message, url, check, agent), _dom_classes=("nbacp-url-card",))
        self.message = message
        self.url = url
        self.elicitation_id = elicitation_id
        self.agent = agent
        self.check = check
        self.completed = False
        self._stage = "asking"
        self._completion_waiters: list[asyncio.Future[bool]] = []

    # -- state -------------------------------------------------------------------------
    @property
    def stage(self) -> str:
        return self._stage

    @property
    def openable(self) -> bool:
        """Whether consent can be given at all (http/https and parsable)."""
        return self.check.openable

    async def wait_completed(self) -> bool:
        """True once the agent signals completion; False if the wait ends any other way."""
        if self._stage not in ("asking", "waiting"):
            return self.completed
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._completion_waiters.append(future)
        return await future

    def _end(self, stage: str, result: bool) -> None:
        self._stage = stage
        waiters, self._completion_waiters = self._completion_waiters, []
        for future in waiters:
            if not future.done():
                future.set_result(result)

    def _show(self, **changes: Any) -> None:
        """Change what the open card shows (a new dict: traitlets syncs only a reassignment)."""
        if self.spec:
            self.spec = {**self.spec, **changes}

    # -- actions: the page's messages and the Python calls run the same handler --------
    def open(self) -> Any:
        """Consent, like clicking Open (``consent()``); ipywidgets' comm ``open`` while no comm is open.

        ``Widget.open()`` is ipywidgets' "open the comm" and runs in ``__init__``; that meaning
        is kept whenever the widget has no comm, so the widget life cycle is untouched.
        """
        if self.comm is None or "_stage" not in self.__dict__:
            return super().open()
        return self.consent()

    def consent(self) -> bool:
        """Consent (the Open link); after consent, the re-open click that Retry offered."""
        if not self.openable:
            raise ValueError(f"this link cannot be opened: {self.check.refusal}")
        return self._handle({"event": "open"})

    def decline(self) -> bool:
        """The person said no."""
        return self._handle({"event": "decline"})

    def cancel(self) -> bool:
        """Dismiss without answering; after consent, this closes the wait (the wait's Cancel)."""
        return self._handle({"event": "cancel"})

    def retry(self) -> bool:
        """Show the link again so the person can re-open the page."""
        return self._handle({"event": "retry"})

    def stop_waiting(self, reason: str = "closed here") -> bool:
        """End the wait locally; the consent already sent stays sent."""
        return self._handle({"event": "stop", "reason": reason})

    def _handle(self, content: Mapping[str, Any]) -> bool:
        # After consent the card is answered but still takes Retry / re-open / Cancel (the base
        # drops every message of an answered card).
        with self._lock:
            if self._stage == "waiting":
                return self._waiting(str(content.get("event")), str(content.get("reason") or "closed here"))
            if self._stage != "asking":
                return False
            return super()._handle(content)

    def _action(self, event: str, content: Mapping[str, Any]) -> bool:
        if event == "open":
            if not self.openable:
                self.errors = {"": [f"This link cannot be opened: {self.check.refusal}"]}
                return False
            # before _resolve: the card does not settle, it waits in phase "sent" (the base sets it),
            # and the page still shows it with Retry and Cancel (docs/cards.md, 'State keys')
            self._stage = "waiting"
            consent = AcceptElicitationResponse(action="accept")
            if not self._resolve(consent, f"Consented to open {_visible(self.check.display_host)}"):
                self._stage = "asking"
                return False
            waiting = [dict(a) for a in WAITING_ACTIONS]
            self._show(link_enabled=False, status="Waiting for the agent to finish...", actions=waiting)
            return True
        if event == "decline":
            self._end("declined", False)
            return self._resolve(DeclineElicitationResponse(action="decline"), "Declined")
        if event == "cancel":
            self._end("cancelled", False)
            return self._resolve(CancelElicitationResponse(action="cancel"), "Cancelled")
        return False

    def _waiting(self, event: str, reason: str) -> bool:
        if event == "open":  # the re-open that Retry offered
            if not self.spec.get("link_enabled"):
                return False
            self._show(link_enabled=False, status="Opened again. Waiting for the agent to finish...")
            return True
        if event == "retry":
            self._show(
                link_label="Open again",
                link_enabled=True,
                status="Open the page again, then finish there. Waiting for the agent...",
            )
            return True
        if event in ("stop", "cancel"):
            self._close_wait(f"Stopped waiting for the agent ({reason}).")
            self._end("stopped", False)
            self._settle()
            return True
        return False

    def complete(self) -> bool:
        """``elicitation/complete`` arrived; harmless before consent and when repeated."""
        with self._lock:
            if self.completed or self._stage not in ("waiting", "stopped"):
                return False
            self.completed = True
            self._close_wait("The agent reports this step is finished.")
            self._end("completed", True)
            self._settle()
            return True

    def cancel_pending(self, reason: str) -> bool:
        with self._lock:
            if self._stage == "waiting":
                return self.stop_waiting(reason)
            if self._stage == "asking":
                self._end("cancelled", False)
            return super().cancel_pending(reason)

    def _settles_on_resolve(self) -> bool:
        return self._stage != "waiting"

    def _close_wait(self, status: str) -> None:
        self.summary = visible_controls(f"{self.summary} · {status}")
        self._show(status=status, link_enabled=False, actions=[])

    def _cancel_response(self) -> UrlResponse:
        return CancelElicitationResponse(action="cancel")

    def _answer_value(self, response: Any) -> tuple[str, Any]:
        """Consent is an accept whose value is the URL consented to."""
        action, _ = super()._answer_value(response)
        return action, self.url if action == "accept" else None
