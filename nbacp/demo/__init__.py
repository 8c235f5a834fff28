"""A deterministic ACP agent for examples and tests: no API key, every kind of question.

``nbacp.connect(nbacp.demo.demo_agent())`` runs it in the kernel; ``python -m nbacp.demo
serve --port P --token T`` serves it on loopback over acpremote. Prompt words pick the path:
"full", "quick", "single", "login", "explore" (anything else gets a short help text).
"""

from __future__ import annotations

try:
    import pydantic_acp  # noqa: F401
except ImportError as exc:  # pragma: no cover - the test extra installs it
    raise ImportError("nbacp.demo needs ACP Kit: pip install 'nbacp[demo]'") from exc

from nbacp.demo.agent import AGENT_NAME, AGENT_TITLE, demo_agent
from nbacp.demo.model import SCENARIOS, scenario_of
from nbacp.demo.plan import Dataset, Environment, Plan, Schedule

__all__ = [
    "AGENT_NAME",
    "AGENT_TITLE",
    "SCENARIOS",
    "Dataset",
    "Environment",
    "Plan",
    "Schedule",
    "demo_agent",
    "scenario_of",
]
