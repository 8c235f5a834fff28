"""Cards of one parsed Form share what the form alone decides, and nothing a person types."""

from __future__ import annotations

from nbacp.form import Form
from nbacp.widgets.form_card import FormCard
from nbacp.widgets.form_spec import FormPage, fields_spec
from nbacp.widgets.form_template import form_template

SCHEMA = {
    "type": "object",
    "properties": {
        "pick": {"type": "string", "title": "Which", "enum": ["a\u202e", "b"]},  # a bidi mark: a page stand-in
        "pick_other": {"type": "string", "title": "Other"},
        "token": {"type": "string", "writeOnly": True},
    },
}


def test_cards_of_one_form_share_its_template_and_keep_their_own_text() -> None:
    form = Form.from_schema(SCHEMA)
    one, two = FormCard("First?", form), FormCard("Second?", form)
    assert one.spec["fields"] is two.spec["fields"] == fields_spec(form, FormPage())
    assert one.spec["message"] == "First?" and two.spec["message"] == "Second?"
    assert one.spec["secret"] == ["token"] and one.draft == two.draft == {"pick": [], "pick_other": ""}
    one.fill("pick_other", "typed \u202e text")
    one.pick("pick", "a\u202e")
    assert one.values == {"pick": "a\u202e", "pick_other": "typed \u202e text", "token": None}
    assert two.values == {"pick": None, "pick_other": None, "token": None}
    typed = one.draft["pick_other"]  # the typed text as the page holds it: a stand-in for the mark
    assert typed != "typed \u202e text" and one._page.read({"pick_other": typed})["pick_other"] == "typed \u202e text"
    for other in (two._page, form_template(form).tables):  # neither learnt the first card's text
        assert other.read({"pick_other": typed})["pick_other"] == typed
    assert one.accept() and one.response.content == {"pick_other": "typed \u202e text"}  # type: ignore[union-attr]
    assert two.spec["fields"] == fields_spec(form, FormPage())  # unchanged by the other card's answer
    one.close()
    two.close()


def test_a_template_is_made_once_per_form_object() -> None:
    form = Form.from_schema(SCHEMA)
    assert form_template(form) is form_template(form)
    assert form_template(Form.from_schema(SCHEMA)) is not form_template(form)
