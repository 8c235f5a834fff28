"""The pure form model: read an elicitation schema, validate drafts, compose wire content.

Nothing here imports ipywidgets or talks protocol, so it runs (and is tested) anywhere.
"""

from nbacp.errors import FormValidationError, InvalidSchemaError
from nbacp.form.checks import PATTERN_TIMEOUT
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
    "StringField",
    "UnsupportedField",
    "WireValue",
    "redacted",
]
