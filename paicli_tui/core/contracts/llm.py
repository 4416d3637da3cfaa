"""What the rest of the core needs from a model, independent of the provider.

Context summaries, fact extraction and query rewriting only need "send a system prompt and a
user text, get text back": a :data:`TextCompleter`. The agent loop needs streaming with tools:
a :class:`ChatClient`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..messages import Message, ToolCall

TextCompleter = Callable[[str, str], Awaitable[str]]
"""``await complete(system_prompt, user_text) -> answer text`` (raises LLMError on failure)."""


class LLMError(Exception):
    """A provider failed. The message is safe to show: it never contains a key."""


class ContextLengthExceeded(LLMError):
    """The provider refused the request as too long (HTTP 400 'context length')."""


class StreamInterrupted(LLMError):
    """The stream ended without [DONE] or a finish reason: the reply is incomplete."""


@dataclass(frozen=True)
class UsageReport:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0


@dataclass(frozen=True)
class StreamDelta:
    """One piece of a streamed reply: text, reasoning, or both empty."""

    text: str = ""
    reasoning: str = ""


CONTENT_FILTER_REASONS = frozenset({"content_filter", "sensitive"})
"""Finish reasons of a reply the provider's content filter stopped (OpenAI, Azure, Qwen:
``content_filter``; Zhipu GLM: ``sensitive``)."""


@dataclass(frozen=True)
class StreamDone:
    """The assembled reply once the stream ended properly."""

    message: Message
    finish_reason: str | None
    usage: UsageReport | None = None
    tool_calls: tuple[ToolCall, ...] = field(default_factory=tuple)
    skipped_lines: int = 0
    """Stream lines that could not be read (garbled JSON) and were dropped: the reply may
    lack what they carried."""
    cut_by_client: bool = False
    """The client stopped reading at its own reply cap (finish reason ``length``, a note
    saying so already in the text); False when ``length`` is the provider's output limit."""


@dataclass(frozen=True)
class StreamRetry:
    """The request failed before any reply arrived; it is sent again after ``delay_s``.

    Yielded before the wait, so the person sees the retry as it happens.
    """

    reason: str
    """Why, safe to show (no key): ``HTTP 500: overloaded``, ``cannot reach …``."""
    attempt: int
    """Which retry this is: 1 for the first."""
    max_retries: int
    delay_s: float


StreamEvent = StreamDelta | StreamDone | StreamRetry


class ChatClient(Protocol):
    provider: str
    model: str
    window: int

    def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]] = (),
        *,
        model: str | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """Stream one reply; the last event is a StreamDone, or an LLMError is raised.
        StreamRetry events may come before the first StreamDelta."""
        ...

    async def aclose(self) -> None: ...
