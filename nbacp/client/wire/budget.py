"""Size budgets per request: what one agent message may ask the notebook to build.

Building a card costs about 1 ms per form field and 0.4 ms per permission option in this
kernel (measured: 2,000 properties 2.6 s, 2,000 options 0.9 s, before the comm traffic), so
an agent that sends 10,000 of either freezes the kernel for seconds. A request over a budget
is answered with -32602 and a sentence naming the budget, before any widget is built (the
agent can retry with less; the person sees the refusal as one line in the turn). The figures
are far above what real agents send (a handful of questions, four permission options) and
keep the worst accepted request well under a second (``benchmarks/budgets.py``).

``clean_and_measure`` walks a message once, without recursion, replacing lone surrogates in
every string (so no agent string can break the widget comm) and measuring its size and depth.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nbacp.render.safe_text import comm_safe

ELICITATION = "elicitation/create"
PERMISSION = "session/request_permission"


@dataclass(frozen=True)
class Shape:
    """How big a message is: characters of text (keys included), values, and deepest nesting."""

    chars: int
    nodes: int
    depth: int


@dataclass(frozen=True)
class Budget:
    """The limits one incoming request must fit. Notifications are checked for size only."""

    max_chars: int = 8 * 1024 * 1024
    max_nodes: int = 200_000
    max_depth: int = 64
    max_properties: int = 100
    max_choices: int = 2_000
    max_options: int = 50
    # what a reply or notification may list (kept: the first ones, with a note; docs/protocol.md, 'Budgets')
    max_auth_methods: int = 20
    max_modes: int = 50
    max_config_options: int = 30
    max_option_values: int = 200
    max_commands: int = 200
    max_models: int = 200

    def trim(self, holder: Any) -> list[str]:
        """Cut the lists an agent's reply or update holds (``holder``: a result, or an update) to
        their budgets, in place; one sentence per list that was cut."""
        if not isinstance(holder, dict) or holder.keys().isdisjoint(_LISTS):  # a chunk, most often
            return []
        notes = [
            _cut(holder, "authMethods", self.max_auth_methods, "authentication methods"),
            _cut(holder.get("modes"), "availableModes", self.max_modes, "session modes"),
            _cut(holder.get("models"), "availableModels", self.max_models, "models"),
            _cut(holder, "configOptions", self.max_config_options, "config options"),
            _cut(holder, "availableCommands", self.max_commands, "commands"),
        ]
        for option in holder.get("configOptions") or () if isinstance(holder.get("configOptions"), list) else ():
            if isinstance(option, dict):
                name = f"values of config option {str(option.get('id'))[:80]!r}"
                notes.append(_cut_values(option, self.max_option_values, name))
        return [note for note in notes if note]

    def check(self, method: str, params: dict[str, Any], shape: Shape, *, request: bool) -> str | None:
        """None when ``params`` fits, else the sentence the agent and the person are shown."""
        if shape.chars > self.max_chars:
            return f"the message carries {shape.chars:,} characters of text, over the budget of {self.max_chars:,}"
        if shape.nodes > self.max_nodes:
            return f"the message has {shape.nodes:,} values, over the budget of {self.max_nodes:,}"
        if not request:
            return None
        if shape.depth > self.max_depth:
            return f"the message is nested {shape.depth} levels deep, over the budget of {self.max_depth}"
        if method == ELICITATION:
            return self._check_schema(params.get("requestedSchema"))
        if method == PERMISSION:
            return self._check_options(params.get("options"))
        return None

    def _check_schema(self, schema: Any) -> str | None:
        properties = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(properties, dict):
            return None
        if len(properties) > self.max_properties:
            return (
                f"the form has {len(properties):,} fields, over the budget of {self.max_properties}; "
                "ask in several smaller forms"
            )
        for name, prop in properties.items():
            count = _choices(prop)
            if count > self.max_choices:
                return f"field {str(name)[:80]!r} offers {count:,} choices, over the budget of {self.max_choices:,}"
        return None

    def _check_options(self, options: Any) -> str | None:
        if not isinstance(options, list):
            return None
        if len(options) > self.max_options:
            return f"the request offers {len(options):,} options, over the budget of {self.max_options}"
        return None


_LISTS = frozenset({"authMethods", "modes", "models", "configOptions", "availableCommands"})
"""The keys ``Budget.trim`` looks under: a holder without any of them has nothing to cut."""


def _cut(holder: Any, key: str, limit: int, what: str) -> str:
    items = holder.get(key) if isinstance(holder, dict) else None
    if not isinstance(items, list) or len(items) <= limit:
        return ""
    del items[limit:]
    return f"the agent listed more than {limit:,} {what}; the first {limit:,} are kept"


def _cut_values(option: dict[str, Any], limit: int, what: str) -> str:
    """A select option's values, groups counted by their values, cut to ``limit`` in all."""
    values = option.get("options")
    if not isinstance(values, list):
        return ""
    left, cut = limit, False
    for index, item in enumerate(values):
        group = item.get("options") if isinstance(item, dict) else None
        if isinstance(group, list):
            if len(group) > left:
                del group[left:]
                cut = True
            left -= len(group)
        else:
            left -= 1
        if left <= 0 and index + 1 < len(values):
            del values[index + 1 :]
            cut = True
            break
    return f"the agent listed more than {limit:,} {what}; the first {limit:,} are kept" if cut else ""


def duplicate_option_problem(params: dict[str, Any]) -> str | None:
    """Two permission options with one id would show two buttons that record the same choice."""
    options = params.get("options")
    seen: set[str] = set()
    for option in options if isinstance(options, list) else ():
        option_id = option.get("optionId") if isinstance(option, dict) else None
        if isinstance(option_id, str):
            if option_id in seen:
                return f"option id {option_id[:80]!r} is used by more than one option; each option needs its own id"
            seen.add(option_id)
    return None


def _choices(prop: Any) -> int:
    """The number of choices one property offers (enum, oneOf/anyOf, or those of its items)."""
    if not isinstance(prop, dict):
        return 0
    count = 0
    for holder in (prop, prop.get("items")):
        if isinstance(holder, dict):
            for key in ("enum", "oneOf", "anyOf"):
                value = holder.get(key)
                if isinstance(value, list):
                    count += len(value)
    return count


def clean_and_measure(value: Any, clean: Callable[[str], str] = comm_safe) -> tuple[Any, Shape]:
    """``value`` with every string made comm-safe by ``clean`` (in place for dicts and lists), and its Shape.

    One pass without recursion; only containers go on the stack (strings and numbers, most of
    a message, are measured and cleaned where they are found: one request is walked per question).
    """
    if isinstance(value, str):
        return (value if value.isascii() else clean(value)), Shape(chars=len(value), nodes=1, depth=1)
    if not isinstance(value, dict | list):
        return value, Shape(chars=0, nodes=1, depth=1)
    chars, nodes, depth = 0, 1, 1
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if level > depth:
            depth = level
        if not item:
            continue
        below = level + 1
        if below > depth:
            depth = below
        nodes += len(item)
        if isinstance(item, dict):
            for k in item:
                if isinstance(k, str) and not k.isascii():
                    fixed = {clean(k) if isinstance(k, str) else k: v for k, v in item.items()}
                    item.clear()
                    item.update(fixed)
                    break
            for k, v in item.items():
                chars += len(k) if isinstance(k, str) else 8
                if isinstance(v, str):
                    chars += len(v)
                    if not v.isascii():
                        item[k] = clean(v)
                elif isinstance(v, dict | list):
                    stack.append((v, below))
        else:
            for i, v in enumerate(item):
                if isinstance(v, str):
                    chars += len(v)
                    if not v.isascii():
                        item[i] = clean(v)
                elif isinstance(v, dict | list):
                    stack.append((v, below))
    return value, Shape(chars=chars, nodes=nodes, depth=depth)


ENVELOPE_BYTES = 256
"""Room for the JSON-RPC envelope around a result (jsonrpc, id)."""


def outgoing_size(value: Any) -> int:
    """Bytes of ``value`` (pydantic models, lists of them, plain JSON) as the SDK writes it, plus the envelope."""

    def plain(item: Any) -> Any:
        dump = getattr(item, "model_dump", None)
        if dump is not None:
            return dump(mode="json", by_alias=True, exclude_none=True)
        return [plain(i) for i in item] if isinstance(item, list) else item

    # json.dumps with ASCII escapes and compact separators, as the SDK's sender does
    return len(json.dumps(plain(value), separators=(",", ":"))) + ENVELOPE_BYTES


def prompt_problem(blocks: list[Any], limit: int | None) -> str | None:
    """Why a prompt of ``blocks`` is too large to send in one message, or None."""
    if limit is None:
        return None
    size = outgoing_size(blocks)
    if size <= limit:
        return None
    return (
        f"This prompt is {size:,} bytes, over the {limit:,}-byte limit of one message to this agent "
        "(connect(url, max_message_bytes=...) and the agent server's own); nothing was sent"
    )
