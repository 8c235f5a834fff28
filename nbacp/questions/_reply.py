"""Read a client's reply (or a fallback's result) back into typed answers, rejecting the impossible.

Rules (docs/design.md, 'Answer composition'): every token offered, no duplicates, a single-select has
at most one pick and never pick + custom, custom text non-empty after trim, required questions
answered. Content keys that name no asked property are ignored: the schema does not forbid
additional properties and they carry nothing the agent asked for. The one exception is custom
text for a question that allowed none, because dropping words a person typed would be silent loss.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from acp.schema import (
    AcceptElicitationResponse,
    CancelElicitationResponse,
    DeclineElicitationResponse,
)

from nbacp.errors import InvalidQuestionFallbackError, InvalidQuestionResponseError
from nbacp.questions._types import (
    Answer,
    Question,
    QuestionsAccepted,
    QuestionsCancelled,
    QuestionsDeclined,
    QuestionsResult,
)
from nbacp.questions._wire import Compiled

T = TypeVar("T")
_Error = Callable[[str, str | None], Exception]


def parse_response(response: object, questions: Sequence[Question[T]], compiled: Compiled) -> QuestionsResult[T]:
    if isinstance(response, dict):  # the raw reply (AgentConnectionSession)
        action = response.get("action")
        if action == "decline":
            return QuestionsDeclined()
        if action == "cancel":
            return QuestionsCancelled()
        if action != "accept":
            raise InvalidQuestionResponseError(f"the client replied with an unsupported action: {action!r}")
        return _accepted(response.get("content"), questions, compiled)
    if isinstance(response, DeclineElicitationResponse):
        return QuestionsDeclined()
    if isinstance(response, CancelElicitationResponse):
        return QuestionsCancelled()
    if not isinstance(response, AcceptElicitationResponse):
        action = getattr(response, "action", None)
        raise InvalidQuestionResponseError(f"the client replied with an unsupported action: {action!r}")
    return _accepted(response.content, questions, compiled)


def _accepted(content: Any, questions: Sequence[Question[T]], compiled: Compiled) -> QuestionsResult[T]:
    if content is None:
        content = {}
    if not isinstance(content, dict):
        raise InvalidQuestionResponseError("the accepted content is not an object")
    answers: dict[str, Answer[T]] = {}
    for question in questions:
        indices = _read_picks(question, content, compiled.tokens[question.id])
        custom = _read_custom(question, content)
        answers[question.id] = _settle(question, indices, custom, InvalidQuestionResponseError)
    return QuestionsAccepted(answers=answers)


def _read_picks(question: Question[Any], content: Mapping[str, Any], tokens: dict[str, int]) -> list[int]:
    qid = question.id
    if qid not in content:
        return []
    raw = content[qid]
    if question.multi_select:
        if not isinstance(raw, list) or not all(isinstance(t, str) for t in raw):
            raise InvalidQuestionResponseError(
                f"question {qid!r} is multi-select: expected an array of strings, got {_kind(raw)}", qid
            )
        picked = list(raw)
    elif isinstance(raw, list):
        raise InvalidQuestionResponseError(
            f"question {qid!r} is single-select: expected one string, got an array of {len(raw)}", qid
        )
    elif not isinstance(raw, str):
        raise InvalidQuestionResponseError(f"question {qid!r}: expected a string, got {_kind(raw)}", qid)
    else:
        picked = [raw]
    indices = []
    for token in picked:
        if token not in tokens:
            raise InvalidQuestionResponseError(f"question {qid!r}: {token!r} was not offered", qid)
        indices.append(tokens[token])
    return indices


def _read_custom(question: Question[Any], content: Mapping[str, Any]) -> str | None:
    name = f"{question.id}_custom"
    if name not in content:
        return None
    if not question.allow_custom:
        raise InvalidQuestionResponseError(
            f"question {question.id!r} does not take a custom answer, but {name!r} was sent", question.id
        )
    raw = content[name]
    if not isinstance(raw, str):
        raise InvalidQuestionResponseError(
            f"question {question.id!r}: custom answer must be a string, got {_kind(raw)}", question.id
        )
    return raw


def _settle(question: Question[T], indices: list[int], custom: str | None, error: _Error) -> Answer[T]:
    """Apply the rules shared by client replies and fallbacks; return canonical typed values."""
    qid = question.id
    if len(set(indices)) != len(indices):
        raise error(f"question {qid!r}: an option was picked twice", qid)
    if not question.multi_select and len(indices) > 1:
        raise error(f"question {qid!r} is single-select but {len(indices)} options were picked", qid)
    if custom is not None:
        if not question.allow_custom:
            raise error(f"question {qid!r} does not take a custom answer", qid)
        custom = custom.strip()
        if not custom:
            raise error(f"question {qid!r}: custom answer is blank", qid)
        if indices and not question.multi_select:
            raise error(f"question {qid!r} is single-select: a pick and a custom answer were both sent", qid)
    if question.required and not indices and custom is None:
        raise error(f"question {qid!r} is required but was not answered", qid)
    return Answer(values=[question.options[i].value for i in indices], custom=custom)


def check_fallback(result: object, questions: Sequence[Question[T]]) -> QuestionsResult[T]:
    """A fallback may only report an answer that a person could have given through the form."""
    if isinstance(result, QuestionsDeclined | QuestionsCancelled):
        return result
    if not isinstance(result, QuestionsAccepted):
        raise InvalidQuestionFallbackError(
            "a fallback must return QuestionsAccepted, QuestionsDeclined or QuestionsCancelled, "
            f"not {type(result).__name__}"
        )
    by_id = {q.id: q for q in questions}
    for qid in result.answers:
        if qid not in by_id:
            raise InvalidQuestionFallbackError(f"the fallback answered {qid!r}, which was not asked", qid)
    answers: dict[str, Answer[T]] = {}
    for question in questions:
        given = result.answers.get(question.id, Answer())
        if not isinstance(given, Answer):
            raise InvalidQuestionFallbackError(f"question {question.id!r}: answers must be Answer", question.id)
        indices = [_offered_index(question, value) for value in given.values]
        answers[question.id] = _settle(question, indices, given.custom, InvalidQuestionFallbackError)
    return QuestionsAccepted(answers=answers)


def _offered_index(question: Question[Any], value: object) -> int:
    for index, option in enumerate(question.options):
        if value is option.value:
            return index
    for index, option in enumerate(question.options):
        try:
            if (value == option.value) is True:
                return index
        except Exception:  # an exotic __eq__ is not a match
            continue
    raise InvalidQuestionFallbackError(f"question {question.id!r}: {value!r} was not offered", question.id)


def _kind(raw: object) -> str:
    names = {str: "a string", bool: "a boolean", int: "a number", float: "a number", list: "an array"}
    if raw is None:
        return "null"
    return names.get(type(raw), "an object" if isinstance(raw, dict) else type(raw).__name__)
