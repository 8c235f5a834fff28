"""A person's answer awaited in a marimo cell: forwarding on, the stop button as cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

from nbacp.errors import CellWaitUnavailableError
from nbacp.marimo_runtime.forwarding import forwarding, refusal, trace

T = TypeVar("T")


def refuse_to_wait_in_cell() -> None:
    """Raise before a marimo cell waits for a card where no click could reach it (see :mod:`.forwarding`)."""
    reason = refusal()
    if reason is not None:
        raise CellWaitUnavailableError(f"a marimo cell cannot wait for a card here: {reason}; nothing was sent")


async def wait_in_cell(awaitable: Awaitable[T], on_interrupt: Callable[[], object], *, timeout: float = 1.0) -> T:
    """Await ``awaitable`` while nbacp's widget messages flow; on marimo's stop button run ``on_interrupt``.

    marimo's SIGINT handler cancels the running cell's task (``marimo/_runtime/handlers.py:
    construct_interrupt_handler`` -> ``SequentialScheduler.cancel_all``): the wait sees
    ``CancelledError``, runs the cleanup (the agent is told: ``session/cancel``) for at most
    ``timeout`` seconds, and lets the cancellation end the cell, which marimo shows as interrupted.
    """
    async with forwarding():
        try:
            return await awaitable
        except asyncio.CancelledError:
            trace("wait: cancelled")
            result = on_interrupt()
            if inspect.isawaitable(result):
                with contextlib.suppress(Exception):  # the cell ends cancelled whatever the cleanup did
                    await asyncio.wait_for(asyncio.shield(asyncio.ensure_future(result)), timeout)
            trace("wait: cleanup done")
            raise
