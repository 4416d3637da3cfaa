"""Seeing at once that a running MCP server's process went away.

The SDK's session reads the server's messages from one stream; when the process exits (a
crash, a kill, the OOM killer) that stream ends, pending calls get "Connection closed", and
nothing else happens: the server was taken for running until the model's next call to it
failed. :class:`EndWatch` stands in for that stream and says when it ends, before the
session wakes the calls that were waiting, so they already find the server failed.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any

import anyio


class EndWatch:
    """The read stream the SDK's session is given: ``inner``'s messages, and ``on_end()``
    called once when it ends or is closed under the reader."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end
        self._said = False

    def _ended(self) -> None:
        if not self._said:
            self._said = True
            self._on_end()

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._ended()
            raise

    def __aiter__(self) -> EndWatch:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self._inner.__anext__()
        except (StopAsyncIteration, anyio.EndOfStream, anyio.ClosedResourceError):
            self._ended()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> EndWatch:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc_val: BaseException | None, exc_tb: TracebackType | None
                        ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)

    def __getattr__(self, name: str) -> Any:
        # what else the session may read of the stream (``last_context``) is the inner one's
        return getattr(self._inner, name)
