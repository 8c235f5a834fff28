"""The pure form model: read an elicitation schema, validate drafts, compose wire content.

Nothing here imports ipywidgets or talks protocol, so it runs (and is tested) anywhere.
"""

from nbacp.form.checks import PATTERN_TIMEOUT
from nbacp.form.errors import FormValidationError, InvalidSchemaError
from nbacp.form.fields import (
    BooleanField,
    ChoiceField,
    Field,
    FormItem,
    NumberField,
    Option,
    Question,
    StringField,
    UnsupportedField,
)
from nbacp.form.model import Form, WireValue
from nbacp.form.patterns import PATTERN_BUDGET

__all__ = [
    "PATTERN_BUDGET",
    "PATTERN_TIMEOUT",
    "BooleanField",
    "ChoiceField",
    "Field",
    "Form",
    "FormItem",
    "FormValidationError",
    "InvalidSchemaError",
    "NumberField",
    "Option",
    "Question",
    "StringField",
    "UnsupportedField",
    "WireValue",
]
