"""Typed values the agent offers and gets back; none of these touch the wire."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeAlias, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Option(Generic[T]):
    """One typed value a person may pick; only ``label`` and the hints go on the wire."""

    value: T
    label: str
    description: str | None = None
    recommended: bool = False
    preview: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.label, str) or not self.label.strip():
            raise ValueError("an option label must be a non-blank string")


@dataclass(frozen=True, slots=True, init=False)
class Question(Generic[T]):
    """One question: pick one (or several) options, optionally type your own answer.

    ``required`` means the person must answer it by a pick or (when allowed) by custom text.
    """

    id: str
    text: str
    options: tuple[Option[T], ...]
    multi_select: bool
    allow_custom: bool
    required: bool
    header: str | None

    def __init__(
        self,
        id: str,
        text: str,
        options: Sequence[Option[T]],
        *,
        multi_select: bool = False,
        allow_custom: bool = False,
        required: bool = False,
        header: str | None = None,
    ) -> None:
        opts = tuple(options)
        if not isinstance(id, str) or not id or id != id.strip():
            raise ValueError(f"question id must be a non-empty string without surrounding space: {id!r}")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"question {id!r}: text must not be blank")
        if not opts:
            raise ValueError(f"question {id!r}: needs at least one option")
        if not all(isinstance(o, Option) for o in opts):
            raise TypeError(f"question {id!r}: options must be nbacp.questions.Option")
        labels = [o.label.strip() for o in opts]
        if len(set(labels)) != len(labels):
            # A person (and clients that pick by label) could not tell the options apart.
            raise ValueError(f"question {id!r}: option labels must be distinct")
        if not multi_select and sum(o.recommended for o in opts) > 1:
            raise ValueError(f"question {id!r}: a single-select may recommend at most one option")
        if header is not None and not header.strip():
            raise ValueError(f"question {id!r}: header must not be blank")
        for name, value in (
            ("id", id),
            ("text", text),
            ("options", opts),
            ("multi_select", bool(multi_select)),
            ("allow_custom", bool(allow_custom)),
            ("required", bool(required)),
            ("header", header),
        ):
            object.__setattr__(self, name, value)

    @property
    def custom_property(self) -> str | None:
        """Name of the companion free-text property, when custom answers are allowed."""
        return f"{self.id}_custom" if self.allow_custom else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer(Generic[T]):
    """The answer to one question: picked typed values, plus trimmed custom text if any.

    ``values`` keep the order the client sent. An unanswered optional question has
    ``values == []`` and ``custom is None``.
    """

    values: list[T] = field(default_factory=list)
    custom: str | None = None

    @property
    def answered(self) -> bool:
        return bool(self.values) or self.custom is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionsAccepted(Generic[T]):
    """The person answered; ``answers`` has an entry for every question asked."""

    answers: Mapping[str, Answer[T]]
    status: Literal["accepted"] = field(init=False, default="accepted")


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionsDeclined:
    """The person explicitly said no."""

    status: Literal["declined"] = field(init=False, default="declined")


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionsCancelled:
    """The questions were dismissed without an answer."""

    status: Literal["cancelled"] = field(init=False, default="cancelled")


QuestionsResult: TypeAlias = QuestionsAccepted[T] | QuestionsDeclined | QuestionsCancelled
