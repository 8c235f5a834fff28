"""What every card of one parsed form starts from, worked out once per ``Form``.

A form card's fields as the page shows them (labels, options, Other boxes, made safe for the
page), its buttons, its secret names and its starting draft depend on the form alone; the
message, the agent's name and a deadline are each card's own. The client hands every request
with the same schema the same ``Form`` (``nbacp.form.cache``), so a question asked again does
not have its page text worked out again (benchmarks/README.md, 'Sixth round: round trip').

The parts are shared by every card made from the form and never changed: a card's spec and
draft are replaced, never edited in place (docs/cards.md). The page tables are the exception:
they grow with the text a person types, so each card gets its own copy (``FormTemplate.page()``).

Kept for the ``SIZE`` forms used last, by identity (a form kept here stays alive, so its id
names no other form while it is kept).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from nbacp.form import Form
from nbacp.widgets.form_spec import FormPage, fields_spec, is_secret, starting_draft

SIZE = 64

ACTIONS = (
    {"event": "accept", "label": "Accept", "style": "primary", "draft": True, "default": True},
    {"event": "decline", "label": "Decline", "style": "default", "hint": "Say no to the agent"},
    {"event": "cancel", "label": "Cancel", "style": "default", "hint": "Dismiss without answering (Escape)"},
)


@dataclass(frozen=True)
class FormTemplate:
    """A form's page-side parts: shared, never written (``page()`` gives a card its own tables)."""

    fields: list[dict[str, Any]]
    actions: list[dict[str, Any]]
    secret: list[str]
    draft: dict[str, Any]
    tables: FormPage

    def page(self) -> FormPage:
        return self.tables.copy()


_TEMPLATES: OrderedDict[int, tuple[Form, FormTemplate]] = OrderedDict()
_LOCK = threading.Lock()  # cards may be made on a kernel subshell's thread too


def form_template(form: Form) -> FormTemplate:
    """The template of ``form``: made on first use, then the same one while it is kept."""
    with _LOCK:
        found = _TEMPLATES.get(id(form))
        if found is not None and found[0] is form:
            _TEMPLATES.move_to_end(id(form))
            return found[1]
    template = _build(form)
    with _LOCK:
        _TEMPLATES[id(form)] = (form, template)
        if len(_TEMPLATES) > SIZE:
            _TEMPLATES.popitem(last=False)
    return template


def _build(form: Form) -> FormTemplate:
    page = FormPage()  # filled in this order: fields, then secret names, then the draft's values
    fields = fields_spec(form, page)
    secret = [page.name(name) for name, f in form.fields.items() if is_secret(f)]
    draft = page.draft(starting_draft(form))
    actions = [dict(a) for a in ACTIONS]
    actions[0]["disabled"] = not form.can_accept
    return FormTemplate(fields, actions, secret, draft, page)
