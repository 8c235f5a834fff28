"""FormCard: one agent's ``elicitation/create`` form as a displayable card.

Every action method changes the same widget state the front end changes (a control's
``value``, a choice card's ``answer``, a button click), so tests and headless answer
policies go through the path a person's clicks take. The form model decides what is sent.

``errors`` are empty until an accept is attempted; after a failed attempt they follow the
draft live (fixing a field clears its message) until the form is answered.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
from acp.schema import AcceptElicitationResponse, CancelElicitationResponse, DeclineElicitationResponse

from nbacp.form import ChoiceField, Form, FormQuestion, FormValidationError, WireValue
from nbacp.form.card_answer import CardAnswer
from nbacp.kernel import LATE_EDITS_MESSAGE
from nbacp.widgets import shared
from nbacp.widgets.card import Card
from nbacp.widgets.choice_card import ChoiceCard
from nbacp.widgets.field_controls import ErrorList, FieldControl, field_control, show_errors_in
from nbacp.widgets.text import card_style, safe_text, text_label, visible_controls

ElicitationResponse = AcceptElicitationResponse | DeclineElicitationResponse | CancelElicitationResponse

SUMMARY_VALUE_CHARS = 80


class QuestionControl:
    """One choice question (with its folded Other box) rendered by a ChoiceCard."""

    def __init__(self, question: FormQuestion, default_picks: Any, default_custom: Any, *, lone: bool = False) -> None:
        self.question = question
        choice, custom = question.choice, question.custom
        picks = default_picks if isinstance(default_picks, list) else ([default_picks] if default_picks else [])
        text = default_custom if isinstance(default_custom, str) else ""
        spec = question_spec(question, lone=lone)
        self.card = ChoiceCard(spec=spec, answer={"picked": [str(p) for p in picks], "custom": text},
                               layout=shared.layout())
        self.names = (choice.name,) + ((custom.name,) if custom is not None else ())
        self.box = self.card

    def read(self) -> dict[str, Any]:
        picked = self.card.picked
        values: dict[str, Any] = {self.question.choice.name: picked if self.question.multi else
                                  (picked[0] if picked else None)}
        if self.question.custom is not None:
            values[self.question.custom.name] = self.card.custom or None
        return values

    def pick(self, labels: tuple[str, ...]) -> None:
        choice = self.question.choice
        if not choice.multi and len(labels) != 1:
            raise ValueError(f"{choice.name!r} is single-select: pick exactly one label, got {len(labels)}.")
        values = []
        for label in labels:
            option = choice.option_by_label(label)
            if option is None:
                offered = ", ".join(repr(o.label) for o in choice.options)
                raise ValueError(f"{label!r} is not an option of {choice.name!r}; offered labels: {offered}.")
            values.append(option.value)
        self.card.pick_values(values)

    def fill(self, name: str, value: Any) -> None:
        if name == self.question.choice.name:
            raise ValueError(f"{name!r} is a choice: use pick({name!r}, *labels) to select options.")
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise ValueError(f"{name!r} takes text, not {type(value).__name__}.")
        self.card.type_custom(value)

    def observe(self, callback: Callable[[], None]) -> None:
        self.card.observe(lambda _change: callback(), names="answer")

    def show_errors(self, errors: dict[str, list[str]]) -> None:
        messages = [m for name in self.names for m in errors.get(name, [])]
        if messages != list(self.card.errors):
            self.card.errors = messages


def _shown(text: Any) -> Any:
    """Text the card shows (never values it sends back): safe Unicode, bidi controls visible."""
    return safe_text(text) if isinstance(text, str) else text


def question_spec(question: FormQuestion, *, lone: bool = False) -> dict[str, Any]:
    """The card's ``spec`` trait: plain JSON, only text for the front end to show.

    An untitled question that is the form's only item gets no title: the message above it
    already asks it, and a heading made from the property name would only add noise.
    """
    choice, custom = question.choice, question.custom
    return {
        "name": choice.name,
        "title": _shown(choice.title if lone else choice.label),
        "description": _shown(choice.description),
        "required": question.required,
        "multi": choice.multi,
        "options": [
            {"value": o.value, "label": _shown(o.label), "description": _shown(o.description),
             "preview": _shown(o.preview), "recommended": o.recommended}
            for o in choice.options
        ],
        "custom": None if custom is None else companion_spec(question),
        "min_items": choice.min_items,
        "max_items": choice.max_items,
    }


def companion_spec(question: FormQuestion) -> dict[str, Any]:
    """The text box's label says what its text does: replace the pick, annotate it, or add to the picks."""
    custom = question.custom
    assert custom is not None
    description = custom.description if custom.description != custom.title else None
    if question.is_note and not question.multi:
        mode, title, placeholder = "note", "Note on your choice", "Add a note (optional)"
    elif question.exclusive and question.choice.options:
        mode, title, placeholder = "other", "Other (replaces your choice)", "Type your own answer"
    else:
        mode, title, placeholder = "add", custom.title or "Other", "Type your own answer"
    if description is None and custom.title not in (None, "Other", title):
        description = custom.title  # the agent's own name for the box, e.g. codex's "Additional answer or note"
    if custom.pattern_warning:  # the box's pattern cannot be checked: say so where the box is
        description = f"{description} ⚠ {custom.pattern_warning}" if description else f"⚠ {custom.pattern_warning}"
    return {"name": custom.name, "title": _shown(title), "description": _shown(description), "placeholder": placeholder,
            "mode": mode}


Control = FieldControl | QuestionControl


class FormCard(Card[ElicitationResponse]):
    """The person's view of one form elicitation; ``await view`` gives the acp response."""

    def __init__(
        self, message: str, requested_schema: Any, *, agent: str | None = None, meta: dict[str, Any] | None = None
    ) -> None:
        self._form = Form.from_schema(requested_schema, meta)  # InvalidSchemaError propagates
        super().__init__(_dom_classes=("nbacp-card", "nbacp-form"))
        self.message = message
        self.agent = agent
        self._errors: dict[str, list[str]] = {}
        self._attempted = False
        defaults = self.form.defaults()
        self._controls: list[Control] = []
        self._by_name: dict[str, Control] = {}
        for item in self.form.items:
            control: Control
            if isinstance(item, FormQuestion):
                custom_name = item.custom.name if item.custom is not None else ""
                control = QuestionControl(item, defaults.get(item.name), defaults.get(custom_name),
                                          lone=len(self.form.items) == 1)
                control.card.on_event(self._on_card_event)
            else:
                control = field_control(item)
            self._controls.append(control)
            for name in control.names:
                self._by_name[name] = control
            control.observe(self._on_edit)

        look = {"layout": shared.layout(), "style": shared.button_style()}
        accept = widgets.Button(description="Accept", button_style="primary", icon="check",
                                disabled=not self.form.can_accept, **look)
        decline = widgets.Button(description="Decline", icon="times", **look)
        cancel = widgets.Button(description="Cancel", icon="ban", **look)
        accept.on_click(lambda _b: self.accept())
        decline.on_click(lambda _b: self.decline())
        cancel.on_click(lambda _b: self.cancel())
        self._buttons = {"accept": accept, "decline": decline, "cancel": cancel}
        self._form_errors: ErrorList | None = None  # made at the first form-level message

        rows: list[widgets.Widget] = [card_style()]
        who = visible_controls(agent) if agent else "The agent"  # bidi tricks shown, not obeyed
        rows.append(text_label(f"{who} asks", "nbacp-header", bold=True))
        if message:
            rows.append(text_label(visible_controls(message), "nbacp-message"))
        for text in (self.form.title, self.form.description):
            if text and text != message:
                rows.append(text_label(text, "nbacp-form-text"))
        rows.extend(control.box for control in self._controls)
        if not self.form.can_accept:
            names = ", ".join(f.name for f in self.form.unsupported if f.required)
            rows.append(text_label(
                f"Accept is not possible: the required field(s) {names} cannot be shown by this client. "
                "You can decline or cancel.", "nbacp-cannot-accept"))
        self._actions = widgets.HBox([accept, decline, cancel], layout=shared.layout())
        rows.append(self._actions)
        self._countdown: asyncio.Task[None] | None = None
        if self.form.deadline_ms is not None:
            rows.append(self._deadline_label(self.form.deadline_ms))
        self.children = rows

    @property
    def form(self) -> Form:
        """The parsed form: pure data, readable before and after the answer (only the widgets are released)."""
        return self._form

    @property
    def accept_button(self) -> widgets.Button:
        return self._button("accept")

    @property
    def decline_button(self) -> widgets.Button:
        return self._button("decline")

    @property
    def cancel_button(self) -> widgets.Button:
        return self._button("cancel")

    def _button(self, name: str) -> widgets.Button:
        if self.settled:
            raise ValueError(f"This card was already answered ({self._summary_text}); its buttons are closed.")
        return self._buttons[name]

    # -- the draft --------------------------------------------------------------------
    @property
    def values(self) -> dict[str, Any]:
        """The current draft read back from the controls (None = left empty); once answered, the last draft."""
        if self.settled:
            raise ValueError(f"This card was already answered ({self._summary_text}); see .response.")
        return self._read_draft()

    def _read_draft(self) -> dict[str, Any]:
        draft: dict[str, Any] = {}
        for control in self._controls:
            if isinstance(control, QuestionControl):
                draft.update(control.read())
            elif control.field.kind != "unsupported":
                draft[control.field.name] = control.read()
        return draft

    @property
    def errors(self) -> dict[str, list[str]]:
        """Messages shown per property: empty before an accept attempt, then live until answered."""
        if self.settled:
            return {}
        return {name: list(messages) for name, messages in self._errors.items()}

    def _control(self, name: str) -> Control:
        if self.settled:
            raise ValueError(f"This card was already answered ({self._summary_text}); its controls are closed.")
        control = self._by_name.get(name)
        if control is None:
            raise ValueError(f"{name!r} is not a field of this form; fields: {', '.join(self.form.fields)}.")
        return control

    def widget_for(self, name: str) -> widgets.Widget:
        """The widget the front end edits for ``name``: a control, or the card of a choice or its Other box."""
        control = self._control(name)
        return control.card if isinstance(control, QuestionControl) else control.widget

    def pick(self, name: str, *labels: str) -> None:
        """Select options of a choice by label (title; for untitled enums the value), as clicks would."""
        control = self._control(name)
        if not isinstance(control, QuestionControl):
            raise ValueError(f"{name!r} is not a choice field; use fill({name!r}, value).")
        if name != control.question.name:
            raise ValueError(f"{name!r} is the Other box of {control.question.name!r}; use fill({name!r}, text).")
        control.pick(labels)

    def fill(self, name: str, value: Any) -> None:
        """Type ``value`` into field ``name`` (including a folded Other box), as the front end would."""
        control = self._control(name)
        if isinstance(control, QuestionControl):
            control.fill(name, value)
        else:
            control.write(value)

    # -- answering --------------------------------------------------------------------
    def accept(self) -> bool:
        """Send the draft if it validates; otherwise show every message and stay open (False)."""
        if self.done:
            return False
        if self._edits_may_lag():  # a click that overtook edits still held by the front end
            self._show_form_messages([LATE_EDITS_MESSAGE])
            return False
        delay = self._edit_settle_delay()
        if delay > 0:  # a click right after an edit: let an edit the front end held arrive first
            asyncio.get_running_loop().call_later(delay, self._accept_now)
            return False
        return self._accept_now()

    def _accept_now(self) -> bool:
        if self.done:
            return False
        self._attempted = True
        values = self.values
        try:
            content = self.form.content(values)
        except FormValidationError as error:
            self._show_errors(error.errors)
            return False
        self._show_errors({})
        self._typed = self._typed_answers(self.form.shown(content))  # secrets redacted (docs/agents.md)
        return self._resolve(AcceptElicitationResponse(action="accept", content=content),
                             "Accepted: " + self._describe(content) if content else "Accepted with no answers.")

    def decline(self) -> bool:
        """The person said no."""
        return self._resolve(DeclineElicitationResponse(action="decline"), "Declined.")

    def cancel(self) -> bool:
        """The person dismissed the form without answering."""
        return self._resolve(self._cancel_response(), "Cancelled.")

    _typed: list[tuple[str, Any, str | None, str]] | None = None

    def _cancel_response(self) -> ElicitationResponse:
        return CancelElicitationResponse(action="cancel")

    # -- secrets and deadlines (docs/agents.md, 'Secret questions and deadlines') ---------
    def _kept(self, response: ElicitationResponse) -> ElicitationResponse:
        if isinstance(response, AcceptElicitationResponse) and response.content and self.form.secrets:
            return AcceptElicitationResponse(action="accept", content=self.form.shown(response.content))
        return response

    def _settle(self) -> None:
        for control in getattr(self, "_controls", ()):  # the draft leaves the widget model before it closes
            if not isinstance(control, QuestionControl) and control.field.secret:
                control.widget.value = ""
        super()._settle()

    def _deadline_label(self, deadline_ms: int) -> widgets.Label:
        label = text_label(_countdown_text(deadline_ms / 1000), "nbacp-deadline")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return label  # no loop (a plain script): the label states the deadline once

        async def tick() -> None:
            while not self.done:
                left = deadline_ms / 1000 - (time.monotonic() - self.asked_at)
                label.value = _countdown_text(max(0.0, left))
                await asyncio.sleep(1.0)

        self._countdown = loop.create_task(tick())
        return label

    def _release(self) -> None:
        if self._countdown is not None:
            self._countdown.cancel()
        super()._release()
        for control in self._controls:
            if isinstance(control, QuestionControl):
                control.card.release()
        # an answered card keeps its pure form, response and summary only, so a long session stays
        # small (docs/notebooks.md, 'What a card costs')
        for name in ("_controls", "_by_name", "_buttons", "_actions", "_errors"):
            self.__dict__.pop(name, None)
        self._form_errors = None

    # -- reactions --------------------------------------------------------------------
    def _on_card_event(self, event: str) -> None:
        if event == "submit":
            self.accept()
        elif event == "cancel":
            self.cancel()

    def _on_edit(self) -> None:
        if self._attempted and not self.done:
            self._show_errors(self.form.validate(self.values))

    def _show_errors(self, errors: dict[str, list[str]]) -> None:
        self._errors = {name: list(messages) for name, messages in errors.items() if messages}
        for control in self._controls:
            control.show_errors(self._errors)
        known = set(self._by_name)
        general = [f"{name}: {m}" if name else m for name, ms in self._errors.items() if name not in known
                   for m in ms]
        if self._errors:
            general.append("Fix the marked fields, then accept again.")
        self._show_form_messages(general)

    def _show_form_messages(self, messages: list[str]) -> None:
        """Messages about the whole form (not one field), above the buttons; the box is made when first needed."""
        self._form_errors = show_errors_in(self, self._form_errors, messages, before=self._actions)

    @property
    def form_messages(self) -> list[str]:
        """The form-level messages shown now (a field-less problem, a click that overtook held edits)."""
        return list(self._form_errors.messages) if self._form_errors is not None else []

    def recorded_answers(self, kind: str, question: str) -> list[CardAnswer]:
        """One answer per question when accepted, each with its own title; else one for the form."""
        typed = getattr(self, "_typed", None)
        if typed is None or not isinstance(self.response, AcceptElicitationResponse):
            return super().recorded_answers(kind, question or self.message)
        return [CardAnswer(kind, title, "accept", value, custom, line) for title, value, custom, line in typed]

    def _typed_answers(self, content: dict[str, WireValue]) -> list[tuple[str, Any, str | None, str]]:
        """(title, value, custom, line) per question.

        A lone question is titled by the card's message (what the person read: ACP Kit's
        ``ask_choice`` titles its one property "Choice"); each of several by its own title.
        """
        lone = len(self.form.items) == 1 and bool(self.message.strip())
        out: list[tuple[str, Any, str | None, str]] = []
        for item in self.form.items:
            if isinstance(item, FormQuestion):
                title = self.message if lone else item.choice.label
                value: Any = content.get(item.choice.name)
                raw = content.get(item.custom.name) if item.custom is not None else None
                custom = raw if isinstance(raw, str) else None
                if value is None and custom is not None and item.exclusive:
                    value = custom  # a single-select's Other text is its answer
                shown = self._describe_question(item, content)
            else:
                title = self.message if lone else item.label
                value, custom = content.get(item.name), None
                shown = _short(_wire_text(content[item.name])) if item.name in content else ""
            out.append((title, value, custom, f"Accepted: {shown}" if shown else "Accepted with no answer."))
        return out

    def _describe(self, content: dict[str, WireValue]) -> str:
        content = self.form.shown(content)  # secrets never reach the summary or the record
        parts: list[str] = []
        for item in self.form.items:
            if isinstance(item, FormQuestion):
                shown = self._describe_question(item, content)
                if shown and item.choice.title is None and len(self.form.items) == 1:
                    parts.append(shown)
                elif shown:
                    parts.append(f"{item.choice.label} = {shown}")
            elif item.name in content:
                parts.append(f"{item.label} = {_short(_wire_text(content[item.name]))}")
        return "; ".join(parts)

    @staticmethod
    def _describe_question(question: FormQuestion, content: dict[str, WireValue]) -> str:
        choice: ChoiceField = question.choice
        shown: list[str] = []
        picked = content.get(choice.name)
        for value in picked if isinstance(picked, list) else ([picked] if isinstance(picked, str) else []):
            option = choice.option(value)
            shown.append(_short(option.label if option is not None else value))
        text = ", ".join(shown)
        custom = content.get(question.custom.name) if question.custom is not None else None
        if isinstance(custom, str):
            quoted = f"“{_short(custom)}”"
            text = f"{text} + {quoted}" if text else quoted
        return text


def _countdown_text(seconds: float) -> str:
    return f"The agent withdraws this question in {round(seconds)} s if it is not answered."


def _wire_text(value: WireValue) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value)
    return str(value)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SUMMARY_VALUE_CHARS else text[: SUMMARY_VALUE_CHARS - 1] + "…"


ElicitationForm = FormCard
"""The form card's first name (``nbacp.ElicitationForm``), kept for code that uses it: the same class."""
