"""Agent side: ask typed single/multi-select questions with custom answers over ACP elicitation.

Usage inside an ACP Kit tool (``ctx.deps`` is the ``AcpSessionContext``) or with a raw acp
connection wrapped as ``AgentConnectionSession(conn, session_id, client_capabilities)``::

    from nbacp.questions import Option, Question, QuestionsAccepted, ask_questions

    result = await ask_questions(
        ctx.deps,
        [
            Question(
                "langs",
                "Which languages?",
                [Option(Lang.PY, "Python"), Option(Lang.RS, "Rust")],
                multi_select=True,
                allow_custom=True,
                required=True,
            ),
            Question(
                "target",
                "Deploy where?",
                [Option("prod", "Production", recommended=True), Option("dev", "Dev")],
                header="Target",
            ),
        ],
    )
    if isinstance(result, QuestionsAccepted):
        result.answers["langs"].values  # [Lang.PY, ...]: the typed values, never tokens
        result.answers["langs"].custom  # trimmed "Other" text, or None

The result is never None: QuestionsAccepted | QuestionsDeclined | QuestionsCancelled. Values
travel as opaque tokens, so they may be any Python objects. A reply that breaks the rules raises
InvalidQuestionResponseError(question_id=...); a client without form elicitation raises
ElicitationNotSupportedError unless ``fallback=`` (a sync or async callable returning a result
variant, checked like a reply: InvalidQuestionFallbackError) is given. Both reply errors are a
QuestionReplyError (nbacp.errors).
"""

from __future__ import annotations

from nbacp.errors import (
    ElicitationNotSupportedError,
    InvalidQuestionFallbackError,
    InvalidQuestionResponseError,
    QuestionReplyError,
)
from nbacp.questions._ask import (
    AgentConnectionSession,
    ElicitationSession,
    ElicitingConnection,
    QuestionsFallback,
    ask_questions,
)
from nbacp.questions._types import (
    Answer,
    Option,
    Question,
    QuestionsAccepted,
    QuestionsCancelled,
    QuestionsDeclined,
    QuestionsResult,
)
from nbacp.questions._wire import compile_questions

__all__ = [
    "AgentConnectionSession",
    "Answer",
    "ElicitationNotSupportedError",
    "ElicitationSession",
    "ElicitingConnection",
    "InvalidQuestionFallbackError",
    "InvalidQuestionResponseError",
    "Option",
    "Question",
    "QuestionReplyError",
    "QuestionsAccepted",
    "QuestionsCancelled",
    "QuestionsDeclined",
    "QuestionsFallback",
    "QuestionsResult",
    "ask_questions",
    "compile_questions",
]
