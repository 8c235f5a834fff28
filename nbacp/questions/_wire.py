"""Compile questions to one flat ACP form schema that Zed, JetBrains AIR and nbacp all read.

Each question is one choice property named by its id whose consts are opaque tokens; a question
that allows custom text gets a companion ``<id>_custom`` string property carrying both nbacp's
and AIR's markers (Zed shows it as a separate "Other" box, nbacp and AIR fold it in).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from acp.schema import (
    ElicitationMultiSelectPropertySchema,
    ElicitationSchema,
    ElicitationStringPropertySchema,
    EnumOption,
    TitledMultiSelectItems,
)

from nbacp.questions._types import Option, Question

RECOMMENDED_META = "nbacp/recommended"
PREVIEW_META = "nbacp/preview"
CUSTOM_FOR_META = "nbacp/customFor"
REQUIRED_META = "nbacp/required"
CUSTOM_TITLE = "Other"

ChoiceProperty = ElicitationStringPropertySchema | ElicitationMultiSelectPropertySchema


@dataclass(frozen=True, slots=True)
class Compiled:
    """What was sent, plus the token -> option index table needed to read the reply."""

    message: str
    schema: ElicitationSchema
    tokens: dict[str, dict[str, int]]  # question id -> {token: option index}


def option_token(question: Question[Any], index: int) -> str:
    return f"{question.id}_{index}"


def compile_questions(questions: Sequence[Question[Any]], message: str | None) -> Compiled:
    _check_names(questions)
    if message is not None and not message.strip():
        raise ValueError("message must not be blank")
    if message is None:
        message = questions[0].text if len(questions) == 1 else f"Please answer {len(questions)} questions"
    # The text is the message for a lone question; otherwise each property must carry it.
    describe = len(questions) > 1 or message != questions[0].text
    properties: dict[str, Any] = {}
    required: list[str] = []
    tokens: dict[str, dict[str, int]] = {}
    for question in questions:
        tokens[question.id] = {option_token(question, i): i for i in range(len(question.options))}
        properties[question.id] = _choice_property(question, describe)
        if question.required and not question.allow_custom:
            required.append(question.id)
        if question.custom_property is not None:
            properties[question.custom_property] = _custom_property(question, describe)
    schema = ElicitationSchema(type="object", properties=properties, required=required or None)
    return Compiled(message=message, schema=schema, tokens=tokens)


def _check_names(questions: Sequence[Question[Any]]) -> None:
    if not questions:
        raise ValueError("ask at least one question")
    seen: set[str] = set()
    for question in questions:
        if not isinstance(question, Question):
            raise TypeError("questions must be nbacp.questions.Question")
        for name in (question.id, question.custom_property):
            if name is None:
                continue
            if name in seen:
                raise ValueError(f"property name {name!r} is used twice (question ids must be unique)")
            seen.add(name)


def _title(question: Question[Any]) -> str:
    return question.header if question.header is not None else question.text


def _choice_property(question: Question[Any], describe: bool) -> ChoiceProperty:
    title = _title(question)
    description = question.text if describe and question.text != title else None
    options = [_enum_option(question, i, option) for i, option in enumerate(question.options)]
    # A required question that may be answered by custom text alone cannot be in the schema's
    # `required` (a strict client would then refuse a custom-only answer); flag it instead.
    meta = {REQUIRED_META: True} if question.required and question.allow_custom else None
    if question.multi_select:
        return ElicitationMultiSelectPropertySchema(
            type="array",
            title=title,
            description=description,
            items=TitledMultiSelectItems(any_of=options),
            # An empty array satisfies `required`; say what "answered" means.
            min_items=1 if question.required and not question.allow_custom else None,
            field_meta=meta,
        )
    return ElicitationStringPropertySchema(
        type="string", title=title, description=description, one_of=options, field_meta=meta
    )


def _enum_option(question: Question[Any], index: int, option: Option[Any]) -> EnumOption:
    meta: dict[str, Any] = {}
    if option.recommended:
        meta[RECOMMENDED_META] = True
    if option.preview is not None:
        meta[PREVIEW_META] = option.preview
    return EnumOption(
        const=option_token(question, index),
        title=option.label,
        description=option.description,
        field_meta=meta or None,
    )


def _custom_property(question: Question[Any], describe: bool) -> ElicitationStringPropertySchema:
    target = _title(question)
    return ElicitationStringPropertySchema(
        type="string",
        title=CUSTOM_TITLE,
        description=f"Your own answer to: {target}" if describe else "Your own answer",
        field_meta={
            CUSTOM_FOR_META: question.id,
            "jetbrains": {"air": {"customAnswer": {"questionId": question.id, "isCustomAnswer": True}}},
        },
    )
