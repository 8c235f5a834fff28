"""The demo's scenario: planning a data-pipeline run, with typed answers.

Everything here is plain Python the tools use: the typed values offered to the person, the
questions, and the report that names every typed value the agent got back (reprs of enum
members, custom text, and an explicit word for an empty answer, declined or cancelled; never
None).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Literal

from nbacp.questions import Option, Question


class Environment(enum.Enum):
    """Where the run happens; asked with ACP Kit's single-select ``ask_choice``."""

    DEV = "dev"
    STAGING = "staging"
    PRODUCTION = "production"


class Dataset(enum.Enum):
    """What the run refreshes; a multi-select with an Other box (nbacp.questions)."""

    ORDERS = "orders"
    CUSTOMERS = "customers"
    EVENTS = "events"


class Schedule(enum.Enum):
    """When the run starts; a single-select with an Other box (custom text wins there)."""

    NOW = "now"
    TONIGHT = "tonight"
    WEEKEND = "weekend"


ENVIRONMENT_QUESTION = "Which environment should the pipeline run in?"
WORKERS_QUESTION = "How many workers should the run use?"
WORKERS_MIN, WORKERS_MAX, WORKERS_DEFAULT = 1, 16, 4

DATASETS = Question(
    "datasets",
    "Which datasets should the run refresh?",
    [
        Option(Dataset.ORDERS, "Orders", description="Yesterday's orders from the shop database"),
        Option(Dataset.CUSTOMERS, "Customers", description="The customer table, deduplicated"),
        Option(Dataset.EVENTS, "Events", description="Raw click events from the tracker"),
    ],
    multi_select=True,
    allow_custom=True,
    required=True,
    header="Datasets",
)

SCHEDULE = Question(
    "schedule",
    "When should the run start?",
    [
        Option(Schedule.NOW, "Right now", recommended=True),
        Option(Schedule.TONIGHT, "Tonight at 02:00"),
        Option(Schedule.WEEKEND, "Saturday morning"),
    ],
    allow_custom=True,
    header="Schedule",
)

Status = Literal["declined", "cancelled", "invalid"]


@dataclass
class Plan:
    """What the person chose so far; ``stopped`` says at which step and how the asking ended."""

    scenario: str
    environment: Environment | None = None
    datasets: list[Dataset] = field(default_factory=list)
    datasets_custom: str | None = None
    schedule: Schedule | None = None
    schedule_custom: str | None = None
    workers: int | None = None
    stopped: tuple[str, Status] | None = None
    launch: str | None = None  # "approved" / "rejected" once the permission was asked
    answered: list[str] = field(default_factory=list)  # questions accepted, even with nothing picked

    @property
    def complete(self) -> bool:
        return self.stopped is None

    def report(self) -> str:
        """One line per typed value received, in the order they were asked."""
        lines: list[str] = []
        if self.environment is not None:
            lines.append(f"environment = {self.environment!r}")
        if self.datasets or self.datasets_custom is not None:
            lines.append(f"datasets = {_answer(self.datasets, self.datasets_custom)}")
        elif "datasets" in self.answered:
            lines.append("datasets: accepted with nothing picked")
        if self.schedule is not None or self.schedule_custom is not None:
            # a single-select: one value (the pick) or the Other text, never a list
            shown = f"other {self.schedule_custom!r}" if self.schedule_custom is not None else repr(self.schedule)
            lines.append(f"schedule = {shown}")
        elif "schedule" in self.answered:
            lines.append("schedule: accepted with nothing picked")
        if self.workers is not None:
            lines.append(f"workers = {self.workers!r}")
        if self.stopped is not None:
            step, status = self.stopped
            lines.append(f"{step}: {status}, so I stopped there")
        if self.launch is not None:
            lines.append(f"launch: {self.launch}")
        return "\n".join(lines) if lines else "no answers received"


def _answer(values: list[Any], custom: str | None) -> str:
    """A multi-select's picks as a list of reprs, the Other text quoted after them."""
    parts = [repr(values)] if values else []
    if custom is not None:
        parts.append(f"other {custom!r}")
    return " + ".join(parts)
