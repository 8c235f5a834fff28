"""The consent card for URL-mode elicitations: the person decides whether to open a link.

The spec makes ``accept`` mean consent, not completion: the answer goes to the agent when
the person consents, and ``elicitation/complete`` may follow later (``complete()``). The
card never opens or fetches anything by itself; only a person's click on the link in the
browser opens a new tab, so that the tab opening is a user gesture and happens in the
person's browser, not in the kernel.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anywidget
import ipywidgets as widgets
import traitlets
from acp.schema import AcceptElicitationResponse, CancelElicitationResponse, DeclineElicitationResponse

from nbacp.render.urls import check_url
from nbacp.widgets import shared
from nbacp.widgets.card import Card
from nbacp.widgets.text import card_style, text_label, visible_controls

UrlResponse = AcceptElicitationResponse | DeclineElicitationResponse | CancelElicitationResponse

_OPEN_LINK_ESM = """
const SAFE = new Set(["http:", "https:"]);
function safeHref(text) {
  try {
    const url = new URL(text);
    return SAFE.has(url.protocol) ? url.href : null;
  } catch (error) {
    return null;
  }
}
function render({ model, el }) {
  const link = document.createElement("a");
  link.className = "jupyter-widgets jupyter-button widget-button mod-primary nbacp-open-link";
  link.style.textDecoration = "none";
  link.style.display = "inline-flex";
  link.style.alignItems = "center";
  link.style.justifyContent = "center";
  link.target = "_blank";
  link.rel = "noopener noreferrer";
  link.referrerPolicy = "no-referrer";
  link.setAttribute("role", "button");
  const draw = () => {
    const href = safeHref(model.get("url"));
    link.textContent = model.get("label");
    if (href !== null && !model.get("disabled")) {
      link.href = href;
      link.title = href;
      link.tabIndex = 0;
      link.removeAttribute("aria-disabled");
      link.style.opacity = "";
    } else {
      link.removeAttribute("href");
      link.title = "";
      link.tabIndex = -1;
      link.setAttribute("aria-disabled", "true");
      link.style.opacity = "0.5";
    }
  };
  const onClick = (event) => {
    if (!link.hasAttribute("href")) {
      event.preventDefault();
      return;
    }
    model.send({ event: "open" });
  };
  link.addEventListener("click", onClick);
  for (const name of ["url", "label", "disabled"]) model.on(`change:${name}`, draw);
  draw();
  el.appendChild(link);
  return () => {
    link.removeEventListener("click", onClick);
    for (const name of ["url", "label", "disabled"]) model.off(`change:${name}`, draw);
  };
}
export default { render };
"""


class OpenLink(anywidget.AnyWidget):
    """A link that opens ``url`` in a new tab on a person's click and reports the click.

    The ESM re-checks the scheme before setting ``href`` so that even a Python-side mistake
    cannot turn into a ``javascript:`` link.
    """

    _esm = _OPEN_LINK_ESM
    url = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("Open").tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)


class UrlConsentCard(Card[UrlResponse]):
    """Asks consent to open ``url``; ``await card`` gives the acp response sent on consent.

    Phases: ``asking`` -> ``declined`` | ``cancelled`` | ``waiting`` (consent sent) ->
    ``completed`` (the agent's ``elicitation/complete``) | ``stopped`` (the wait was closed
    here, or the turn ended). ``open()`` (alias ``consent()``), ``decline()``, ``cancel()``, ``retry()`` act
    exactly like the controls; a headless ``open()`` consents without opening a tab.
    """

    def __init__(self, message: str, url: str, elicitation_id: str, *, agent: str | None = None) -> None:
        super().__init__(_dom_classes=("nbacp-card", "nbacp-url-card"))
        self.message = message
        self.url = url
        self.elicitation_id = elicitation_id
        self.agent = agent
        self.check = check_url(url)
        self.completed = False
        self._phase = "asking"
        self._consenting = False
        self._completion_waiters: list[asyncio.Future[bool]] = []

        who = visible_controls(agent or "The agent")
        rows: list[widgets.Widget] = [
            card_style(),
            text_label(f"{who} asks you to open a web page", "nbacp-agent", bold=True),
            text_label(visible_controls(message), "nbacp-message"),
        ]
        if self.check.host:
            rows.append(widgets.HBox([text_label("Site:"), text_label(self.check.host, "nbacp-host", bold=True)]))
            if self.check.display_host != self.check.host:
                rows.append(text_label(f"Reads as: {self.check.display_host}", "nbacp-host-decoded"))
        # An openable URL has no control characters; a refused one shows them as <U+XXXX>.
        mono = shared.text_style("mono", font_family="monospace")
        self.url_text = text_label(visible_controls(url), "nbacp-url", style=mono)
        rows.append(self.url_text)
        self.warnings = [text_label(f"Warning: {w}", "nbacp-warning") for w in self.check.warnings]
        rows.extend(self.warnings)

        self.link: OpenLink | None = None
        self.decline_button = widgets.Button(description="Decline", button_style="warning")
        self.cancel_button = widgets.Button(description="Cancel")
        self.decline_button.on_click(lambda _b: self.decline())
        self.cancel_button.on_click(lambda _b: self.cancel())
        actions: list[widgets.Widget] = []
        if self.check.refusal is None:
            self.link = OpenLink(url=url, label="Open")
            self.link.on_msg(self._on_link_msg)
            actions.append(self.link)
        else:
            rows.append(text_label(f"Cannot open: {self.check.refusal}", "nbacp-refusal", bold=True))
        actions += [self.decline_button, self.cancel_button]
        rows.append(widgets.HBox(actions))

        self.status = text_label("", "nbacp-status")
        self.retry_button = widgets.Button(description="Retry", tooltip="Show the link again to re-open it")
        self.stop_button = widgets.Button(description="Cancel", tooltip="Stop waiting for the agent")
        self.retry_button.on_click(lambda _b: self.retry())
        self.stop_button.on_click(lambda _b: self.stop_waiting())
        self.wait_box = widgets.VBox(
            [self.status, widgets.HBox([self.retry_button, self.stop_button])],
            layout=widgets.Layout(display="none"),
        )
        waiting = (self.wait_box,) if self.link is not None else ()
        self.children = (*rows, *waiting)

    # -- state -------------------------------------------------------------------------
    @property
    def phase(self) -> str:
        return self._phase

    @property
    def openable(self) -> bool:
        """Whether consent can be given at all (http/https and parsable)."""
        return self.link is not None

    async def wait_completed(self) -> bool:
        """True once the agent signals completion; False if the wait ends any other way."""
        if self._phase not in ("asking", "waiting"):
            return self.completed
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._completion_waiters.append(future)
        return await future

    def _end(self, state: str, result: bool) -> None:
        self._phase = state
        waiters, self._completion_waiters = self._completion_waiters, []
        for future in waiters:
            if not future.done():
                future.set_result(result)

    # -- actions -----------------------------------------------------------------------
    def open(self) -> Any:
        """Consent, like clicking Open (``consent()``); ipywidgets' comm ``open`` while no comm is open.

        ``Widget.open()`` is ipywidgets' "open the comm" and runs in ``__init__``; that meaning
        is kept whenever the widget has no comm, so the widget life cycle is untouched.
        """
        if self.comm is None or "_phase" not in self.__dict__:
            return super().open()
        return self.consent()

    def consent(self) -> bool:
        """Consent (the Open link); after consent, the re-open click that Retry offered."""
        if self.link is None:
            raise ValueError(f"this link cannot be opened: {self.check.refusal}")
        if self._phase == "asking":
            self._consenting = True  # the card stays interactive (Retry, Cancel) until the wait ends
            accepted = self._resolve(
                AcceptElicitationResponse(action="accept"), f"Consented to open {self.check.display_host}"
            )
            self._consenting = False
            if accepted:
                self._phase = "waiting"
                self.children = (*self.children, self.summary)
                self.status.value = "Waiting for the agent to finish..."
                self.retry_button.disabled = False
                self.stop_button.disabled = False
                self.wait_box.layout.display = None
            return accepted
        if self._phase == "waiting" and not self.link.disabled:
            self.link.disabled = True
            self.status.value = "Opened again. Waiting for the agent to finish..."
            return True
        return False

    def decline(self) -> bool:
        """The person said no."""
        if self._phase != "asking":
            return False
        self._end("declined", False)
        return self._resolve(DeclineElicitationResponse(action="decline"), "Declined")

    def cancel(self) -> bool:
        """Dismiss without answering; after consent, this closes the wait (the wait's Cancel)."""
        if self._phase == "waiting":
            return self.stop_waiting()
        if self._phase != "asking":
            return False
        self._end("cancelled", False)
        return self._resolve(CancelElicitationResponse(action="cancel"), "Cancelled")

    def retry(self) -> bool:
        """Show the link again so the person can re-open the page."""
        if self._phase != "waiting" or self.link is None:
            return False
        self.link.label = "Open again"
        self.link.disabled = False
        self.status.value = "Open the page again, then finish there. Waiting for the agent..."
        return True

    def stop_waiting(self, reason: str = "closed here") -> bool:
        """End the wait locally; the consent already sent stays sent."""
        if self._phase != "waiting":
            return False
        self._close_wait(f"Stopped waiting for the agent ({reason}).")
        self._end("stopped", False)
        self._settle()
        return True

    def complete(self) -> bool:
        """``elicitation/complete`` arrived; harmless before consent and when repeated."""
        if self.completed or self._phase not in ("waiting", "stopped"):
            return False
        self.completed = True
        self._close_wait("The agent reports this step is finished.")
        self._end("completed", True)
        self._settle()
        return True

    def cancel_pending(self, reason: str) -> bool:
        if self._phase == "waiting":
            return self.stop_waiting(reason)
        if self._phase == "asking":
            self._end("cancelled", False)
        return super().cancel_pending(reason)

    def _settles_on_resolve(self) -> bool:
        return not self._consenting

    def _close_wait(self, status: str) -> None:
        self.status.value = status
        self._summary_text = visible_controls(f"{self._summary_text} · {status}")
        if self._summary is not None:
            self._summary.value = self._summary_text
        self.retry_button.disabled = True
        self.stop_button.disabled = True
        if self.link is not None:
            self.link.disabled = True

    def _cancel_response(self) -> UrlResponse:
        return CancelElicitationResponse(action="cancel")

    def _answer_value(self, response: Any) -> tuple[str, Any]:
        """Consent is an accept whose value is the URL consented to."""
        action, _ = super()._answer_value(response)
        return action, self.url if action == "accept" else None

    def _on_link_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("event") == "open":
            self.consent()
