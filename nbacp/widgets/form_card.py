"""FormCard: one agent's ``elicitation/create`` form as ONE widget model.

The card's ``draft`` holds every field (docs/cards.md, 'The form card'). Accept, from the page
(the button, Enter in a field) or from Python (``view.accept()``, a headless policy), runs the
same handler with a draft: the page's at the click, or Python's mirror of it. The form model
decides what is sent (``Form.content``), exactly as it validates edits.

``errors`` are empty until an accept is attempted; after a failed attempt they follow the
draft live (fixing a field clears its message) until the form is answered.

What the page is given is ``form_spec``; what ``fill`` takes from Python, ``form_fill``; the
summary line and the typed answers of an accepted form, ``form_summary``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from acp.schema import AcceptElicitationResponse, CancelElicitationResponse, DeclineElicitationResponse

from nbacp.form import ChoiceField, Form, UnsupportedField, WireValue
from nbacp.form.card_answer import CardAnswer
from nbacp.widgets.card import Card
from nbacp.widgets.form_fill import filled_value
from nbacp.widgets.form_spec import FormPage, draft_value, is_secret, read_draft, shown
from nbacp.widgets.form_summary import describe_content, typed_answers
from nbacp.widgets.form_template import form_template
from nbacp.widgets.text import visible_controls

ElicitationResponse = AcceptElicitationResponse | DeclineElicitationResponse | CancelElicitationResponse

_ANSWERED_PAGE = FormPage()  # an answered card's: never written (every edit and accept is refused first)


class FormCard(Card[ElicitationResponse]):
    """The person's view of one form elicitation; ``await view`` gives the acp response.

    ``requested_schema``: the elicitation's JSON Schema (a dict or the SDK's model), or a
    ``nbacp.form.Form`` already parsed from it (``meta`` is then ignored). ``opened``: see ``Card``.
    """

    def __init__(
        self,
        message: str,
        requested_schema: Any,
        *,
        agent: str | None = None,
        meta: dict[str, Any] | None = None,
        opened: bool = True,
    ) -> None:
        # a Form: the client parsed the request's schema already (once per request)
        form = requested_schema if isinstance(requested_schema, Form) else Form.from_schema(requested_schema, meta)
        self._form = form
        self.message = message
        self.agent = agent
        self._attempted = False
        self._secrets: dict[str, Any] = {}  # Python-side fills of secret fields: never synced
        template = form_template(form)  # the parts every card of this form shares
        self._page = template.page()  # names and values as the page holds them, and back
        who = visible_controls(agent) if agent else "The agent"  # bidi tricks shown, not obeyed
        notes = [shown(text) for text in (form.title, form.description) if text and text != message]
        if not form.can_accept:
            names = visible_controls(", ".join(f.name for f in form.unsupported if f.required))
            notes.append(
                f"Accept is not possible: the required field(s) {names} cannot be shown by this client. "
                "You can decline or cancel."
            )
        spec: dict[str, Any] = {
            "kind": "form",
            "header": f"{who} asks",
            "message": visible_controls(message) if message else "",
            "notes": notes,
            "fields": template.fields,
            "actions": template.actions,
            "secret": template.secret,
        }
        if form.deadline_ms is not None:  # counted down on the page (docs/agents.md, 'Secret questions and deadlines')
            spec["deadline_at"] = int(time.time() * 1000) + form.deadline_ms
            notes.append(countdown_text(form.deadline_ms / 1000))
        super().__init__(spec, template.draft, opened=opened, _dom_classes=("nbacp-form",))

    @property
    def form(self) -> Form:
        """The parsed form: pure data, readable before and after the answer."""
        return self._form

    # -- the draft --------------------------------------------------------------------
    def _full_draft(self) -> dict[str, Any]:
        """The draft as the page would send it (page names), secrets included; {} once answered."""
        if self.done:
            return {}
        return {**self.draft, **{self._page.name(name): value for name, value in self._secrets.items()}}

    @property
    def values(self) -> dict[str, Any]:
        """The current draft as values (None = left empty). Raises once the card is answered."""
        if self.settled:
            raise ValueError(f"This card was already answered ({self.summary}); see .response.")
        return read_draft(self.form, self._page.read(self._full_draft()))[0]

    def _field(self, name: str) -> Any:
        if self.settled:
            raise ValueError(f"This card was already answered ({self.summary}); it can no longer be edited.")
        field = self.form.fields.get(name)
        if field is None:
            raise ValueError(f"{name!r} is not a field of this form; fields: {', '.join(self.form.fields)}.")
        return field

    def _write(self, name: str, value: Any) -> None:
        """Change one field of the draft as an edit on the page does (sent to the page)."""
        if is_secret(self.form.fields[name]):
            self._secrets[name] = value
            self._on_draft(None)
        else:
            # a new dict: traitlets syncs only a reassignment; the value as the page holds it
            self.draft = {**self.draft, self._page.name(name): self._page.value(name, value)}

    def pick(self, name: str, *labels: str) -> None:
        """Select options of a choice by label (title; for untitled enums the value), as clicks would."""
        field = self._field(name)
        if not isinstance(field, ChoiceField):
            owner = self.form.question(name)
            if owner is not None and owner.name != name:
                raise ValueError(f"{name!r} is the Other box of {owner.name!r}; use fill({name!r}, text).")
            raise ValueError(f"{name!r} is not a choice field; use fill({name!r}, value).")
        if not field.multi and len(labels) != 1:
            raise ValueError(f"{name!r} is single-select: pick exactly one label, got {len(labels)}.")
        wanted: set[str] = set()
        for label in labels:
            option = field.option_by_label(label)
            if option is None:
                offered = ", ".join(repr(o.label) for o in field.options)
                raise ValueError(f"{label!r} is not an option of {name!r}; offered labels: {offered}.")
            wanted.add(option.value)
        self._write(name, [o.value for o in field.options if o.value in wanted])  # option order, as the page

    def fill(self, name: str, value: Any) -> None:
        """Type ``value`` into field ``name`` (including a folded Other box), as the front end would."""
        field = self._field(name)
        if isinstance(field, ChoiceField):
            raise ValueError(f"{name!r} is a choice: use pick({name!r}, *labels) to select options.")
        if isinstance(field, UnsupportedField):
            raise ValueError(f"{name!r} has the unsupported type {field.type_name!r}; it cannot be filled.")
        self._write(name, draft_value(field, filled_value(name, field, value)))

    # -- answering: the one handler for a click's message and a Python call --------------
    def accept(self) -> bool:
        """Send the draft if it validates; otherwise show every message and stay open (False)."""
        return self._handle({"event": "accept", "draft": self._full_draft()})

    def decline(self) -> bool:
        """The person said no."""
        return self._handle({"event": "decline"})

    def cancel(self) -> bool:
        """The person dismissed the form without answering."""
        return self._handle({"event": "cancel"})

    def _action(self, event: str, content: Mapping[str, Any]) -> bool:
        if event == "accept":
            return self._accept_draft(content.get("draft"))
        if event == "decline":
            return self._resolve(DeclineElicitationResponse(action="decline"), "Declined.")
        if event == "cancel":
            return self._resolve(self._cancel_response(), "Cancelled.")
        return False

    def _check(self, draft: Mapping[str, Any]) -> tuple[dict[str, WireValue], dict[str, list[str]]]:
        """What a page draft would send (its originals), and its messages keyed by page names;
        the content counts only when there are no messages."""
        values, problems = read_draft(self.form, self._page.read(draft))
        content, errors = self.form.check(values)
        for name, messages in problems.items():
            errors[name] = messages  # what the browser could not read, instead of "required"
        return content, self._page.errors({name: list(m) for name, m in errors.items() if m})

    def _accept_draft(self, draft: Any) -> bool:
        if not self.form.can_accept:
            return False
        if not isinstance(draft, Mapping):
            self.errors = {"": ["The page sent no readable answer: press Accept again."]}
            return False
        self._attempted = True
        content, errors = self._check(draft)
        if errors:
            self.errors = errors  # each message beside its field; the page focuses the first one
            if not self._live_errors:  # from now on they follow the draft (most cards never get here)
                self._live_errors = True
                self.observe(self._on_draft, names="draft")
            return False
        if self.errors:
            self.errors = {}
        summary = "Accepted: " + describe_content(self.form, content) if content else "Accepted with no answers."
        return self._resolve(AcceptElicitationResponse(action="accept", content=content), summary)

    _live_errors = False  # the draft observer is on (after a refused accept)

    def _cancel_response(self) -> ElicitationResponse:
        return CancelElicitationResponse(action="cancel")

    def _on_draft(self, _change: Any) -> None:
        """Live errors after a refused accept: fixing a field clears its message."""
        if self._attempted and not self.done:
            self.errors = self._check(self._full_draft())[1]

    # -- secrets (docs/agents.md, 'Secret questions and deadlines') ---------------------
    def _kept(self, response: ElicitationResponse) -> ElicitationResponse:
        if isinstance(response, AcceptElicitationResponse) and response.content and self.form.secrets:
            return AcceptElicitationResponse(action="accept", content=self.form.shown(response.content))
        return response

    def _release(self) -> None:
        """Also the page's names and values and the live-errors observer: an answered card keeps
        its form, its response and its summary only (it may stay shown for the rest of the turn)."""
        super()._release()
        self._secrets = {}
        self._page = _ANSWERED_PAGE
        if self._live_errors:
            self.unobserve(self._on_draft, names="draft")

    def recorded_answers(self, kind: str, question: str) -> list[CardAnswer]:
        """One answer per question when accepted, each with its own title; else one for the form."""
        # Read from the response the card keeps (``_kept``: secrets already redacted, docs/agents.md)
        # when asked, not kept beside it: an answered card stays in the transcript for the whole turn.
        response = self.response
        if not isinstance(response, AcceptElicitationResponse):
            return super().recorded_answers(kind, question or self.message)
        typed = typed_answers(self.form, self.message, response.content or {})
        return [CardAnswer(kind, title, "accept", value, custom, line) for title, value, custom, line in typed]


def countdown_text(seconds: float) -> str:
    """The line under a form with a deadline (the page then counts down to it)."""
    return f"The agent withdraws this question in {round(seconds)} s if it is not answered."
