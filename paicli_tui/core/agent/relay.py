"""Passing on events that concurrent work posts to a queue, as they come."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from ..contracts.events import AgentEvent


async def relay_until(queue: asyncio.Queue[AgentEvent], work: asyncio.Future[Any]
                      ) -> AsyncIterator[AgentEvent]:
    """Every event put on ``queue``, in order, until ``work`` is done and the queue is
    empty. ``work``'s own result or exception is left to the caller."""
    getter: asyncio.Future[AgentEvent] | None = None
    try:
        while not work.done() or not queue.empty():
            if not queue.empty():
                yield queue.get_nowait()
                continue
            getter = asyncio.ensure_future(queue.get())
            await asyncio.wait({getter, work}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield getter.result()
            else:
                getter.cancel()
            getter = None
    finally:
        if getter is not None:
            getter.cancel()


def settle_quietly(future: asyncio.Future[Any]) -> None:
    """Mark a cancelled or failed future's outcome as seen (a cancelled gather holds a
    CancelledError that asyncio would otherwise log as never retrieved)."""
    if future.done() and not future.cancelled():
        future.exception()
