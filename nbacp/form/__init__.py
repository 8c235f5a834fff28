"""The pure form model: read an elicitation schema, validate drafts, compose wire content.

Nothing here imports ipywidgets or talks protocol, so it runs (and is tested) anywhere.
"""

from nbacp.form.checks import PATTERN_TIMEOUT
from nbacp.form.errors import FormValidationError, InvalidSchemaError
from nbacp.form.fields import (
    BooleanField,
    ChoiceField,
    ChoiceOption,
    Field,
    FormItem,
    FormQuestion,
    NumberField,
    StringField,
    UnsupportedField,
    redacted,
)
from nbacp.form.model import Form, WireValue
from nbacp.form.patterns import PATTERN_BUDGET

# The names before ``ChoiceOption`` / ``FormQuestion``, kept for code that imports them; the new
# names keep the form model's option and question apart from ``nbacp.questions``' builders.
Option = ChoiceOption
Question = FormQuestion

__all__ = [
    "PATTERN_BUDGET",
    "PATTERN_TIMEOUT",
    "BooleanField",
    "ChoiceField",
    "ChoiceOption",
    "Field",
    "Form",
    "FormItem",
    "FormQuestion",
    "FormValidationError",
    "InvalidSchemaError",
    "NumberField",
    "Option",
    "Question",
    "StringField",
    "UnsupportedField",
    "WireValue",
    "redacted",
]
