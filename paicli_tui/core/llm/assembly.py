"""Assemble an OpenAI-style streamed reply from its chunks.

Kept apart from the HTTP code so every rule (tool-call slots by index, ids, reasoning fields,
usage cache fields) can be tested with plain dicts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..contracts.llm import (
    CONTENT_FILTER_REASONS,
    LLMError,
    StreamDelta,
    StreamDone,
    StreamInterrupted,
    UsageReport,
)
from ..messages import Message, ToolCall

# behaviour §8: later fields override earlier ones.
_CACHE_FIELDS: tuple[tuple[str, ...], ...] = (
    ("cached_tokens",),
    ("prompt_cache_hit_tokens",),
    ("input_cache_hit_tokens",),
    ("prompt_tokens_details", "cached_tokens"),
    ("input_tokens_details", "cached_tokens"),
)


def _dig(data: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = data
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


MAX_TOKEN_COUNT = 2 ** 53
"""Past this no count is real (the largest int a float holds exactly, far past any window)."""


def token_count(value: Any) -> int:
    """A token count as a provider wrote it, never negative; 0 when it is no count at all.

    JSON's 1e400 and Python's Infinity literal are infinite floats (int() raised
    OverflowError out of the stream, the reply that had arrived lost), and a JSON integer
    of 400 digits is an int no float holds (the estimate's calibration divided by it).
    """
    try:
        count = max(0, int(value or 0))
    except (TypeError, ValueError, OverflowError):
        return 0
    return count if count <= MAX_TOKEN_COUNT else 0


def parse_usage(usage: Mapping[str, Any] | None) -> UsageReport | None:
    """Token usage with cache hits read from every known field, later overriding earlier."""
    if not isinstance(usage, Mapping):
        return None
    cached = 0
    for path in _CACHE_FIELDS:
        value = _dig(usage, path)
        if value is not None:
            cached = token_count(value)
    prompt = token_count(usage.get("prompt_tokens", usage.get("input_tokens")))
    completion = token_count(usage.get("completion_tokens", usage.get("output_tokens")))
    return UsageReport(prompt_tokens=prompt, completion_tokens=completion, cached_tokens=cached)


def _list(value: Any) -> list[Any]:
    """``value`` when it is a list, else nothing (a server's part of the wrong shape)."""
    return value if isinstance(value, list) else []


def reasoning_text(delta: Mapping[str, Any]) -> str:
    """Reasoning from ``reasoning_content``, ``reasoning`` or ``reasoning_details``."""
    for key in ("reasoning_content", "reasoning"):
        value = delta.get(key)
        if isinstance(value, str) and value:
            return value
    details = delta.get("reasoning_details")
    if isinstance(details, list):
        parts = []
        for item in details:
            if isinstance(item, Mapping):
                text = item.get("text") or item.get("summary")
                if isinstance(text, str):
                    parts.append(text)
        return "".join(parts)
    return ""


MAX_NAME_CHARS = 256
"""A tool name longer than this is no tool's (providers allow 64): a stream that keeps
sending name pieces stops growing it here (the pieces still count towards the reply's size)."""


@dataclass
class _Slot:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class ReplyAssembler:
    """Feed chunks in order with :meth:`feed`; :meth:`finish` gives the complete reply."""

    provider: str = "provider"
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    slots: dict[int, _Slot] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: UsageReport | None = None
    saw_done: bool = False
    size: int = 0
    """Characters received so far (text, reasoning, tool-call names, ids and arguments)."""
    skipped_lines: int = 0
    """Stream lines dropped as unreadable (the client counts them; the reply carries it)."""
    _by_id: dict[str, int] = field(default_factory=dict, repr=False)
    """The slot each call id opened, so a chunk finds its slot in constant time (a stream
    of thousands of calls without an index once took seconds per thousand chunks)."""
    _last: int | None = field(default=None, repr=False)

    def _slot_for(self, index: Any, call_id: Any) -> _Slot:
        if not isinstance(index, int):
            # Some servers omit the index: a new id opens a slot, otherwise continue the last.
            if isinstance(call_id, str) and call_id in self._by_id:
                index = self._by_id[call_id]
            elif isinstance(call_id, str) and call_id or self._last is None:
                index = len(self.slots)
                while index in self.slots:  # an index an earlier chunk named
                    index += 1
            else:
                index = self._last
        if self._last is None or index > self._last:
            self._last = index
        slot = self.slots.setdefault(index, _Slot())
        if isinstance(call_id, str) and call_id:
            self._by_id.setdefault(call_id, index)
        return slot

    def feed(self, chunk: Mapping[str, Any]) -> StreamDelta | None:
        """Take one parsed chunk; returns the visible delta it carried (or None)."""
        error = chunk.get("error")
        if error:
            message = error.get("message") if isinstance(error, Mapping) else str(error)
            raise LLMError(f"{self.provider} error in stream: {message}")
        said = gateway_error(chunk)
        if said:
            raise LLMError(f"{self.provider} error in stream: {said}")
        usage = parse_usage(chunk.get("usage"))
        if usage is not None:
            self.usage = usage
        text_part, reasoning_part = "", ""
        # a part of the wrong shape ("delta": "x", "choices": 5) is ignored like a line that
        # is not JSON: it raised out of the stream and the reply that had arrived was lost
        for choice in _list(chunk.get("choices")):
            if not isinstance(choice, Mapping):
                continue
            delta = choice.get("delta") or choice.get("message") or {}
            if not isinstance(delta, Mapping):
                delta = {}
            content = delta.get("content")
            if isinstance(content, str) and content:
                text_part += content
            reasoning_part += reasoning_text(delta)
            for call in _list(delta.get("tool_calls")):
                if not isinstance(call, Mapping):
                    continue
                slot = self._slot_for(call.get("index"), call.get("id"))
                if call.get("id") and not slot.id:
                    slot.id = str(call["id"])[:MAX_NAME_CHARS]
                    self.size += len(slot.id)
                function = call.get("function") or {}
                if not isinstance(function, Mapping):
                    function = {}
                if function.get("name"):
                    # Names arrive whole in practice; some servers repeat them per chunk.
                    name = str(function["name"])
                    self.size += len(name)
                    if slot.name in ("", name):
                        slot.name = name[:MAX_NAME_CHARS]
                    elif len(slot.name) < MAX_NAME_CHARS:
                        slot.name = (slot.name + name)[:MAX_NAME_CHARS]
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    slot.arguments.append(arguments)
                    self.size += len(arguments)
                elif isinstance(arguments, Mapping):
                    slot.arguments.append(json.dumps(arguments, ensure_ascii=False))
                    self.size += len(slot.arguments[-1])
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        self.size += len(text_part) + len(reasoning_part)
        if text_part:
            self.text.append(text_part)
        if reasoning_part:
            self.reasoning.append(reasoning_part)
        if text_part or reasoning_part:
            return StreamDelta(text=text_part, reasoning=reasoning_part)
        return None

    def cut(self, note: str, keep: int | None = None) -> StreamDone:
        """The reply as far as it arrived, ended early on purpose: the text (its first
        ``keep`` characters) with ``note`` after it, no tool calls (their arguments may be
        incomplete), finish reason ``length``."""
        text, reasoning = "".join(self.text), "".join(self.reasoning)
        if keep is not None:
            text, reasoning = text[:keep], reasoning[:keep]
        message = Message.assistant(text + note, reasoning=reasoning or None)
        return StreamDone(message=message, finish_reason="length", usage=self.usage,
                          tool_calls=(), skipped_lines=self.skipped_lines, cut_by_client=True)

    def tool_calls(self) -> tuple[ToolCall, ...]:
        """Assembled calls in index order; a missing id becomes ``call_<index>``, nameless
        slots are dropped (they cannot be run or answered)."""
        calls = []
        for index in sorted(self.slots):
            slot = self.slots[index]
            if not slot.name:
                continue
            arguments = "".join(slot.arguments).strip() or "{}"
            calls.append(ToolCall(slot.id or f"call_{index}", slot.name, arguments))
        return tuple(calls)

    def finish(self) -> StreamDone:
        """The complete reply; StreamInterrupted when the stream never ended properly,
        LLMError when it ended with nothing in it."""
        if not self.saw_done and self.finish_reason is None:
            raise StreamInterrupted(
                f"{self.provider} stopped streaming before the reply was complete"
                f"{self.skipped_note()}")
        calls = self.tool_calls()
        content = "".join(self.text)
        reasoning = "".join(self.reasoning) or None
        if not content.strip() and not calls:
            raise LLMError(empty_reply(self.provider, self.finish_reason, reasoning or "")
                           + self.skipped_note())
        message = Message.assistant(content, calls, reasoning=reasoning)
        return StreamDone(message=message, finish_reason=self.finish_reason, usage=self.usage,
                          tool_calls=calls, skipped_lines=self.skipped_lines)

    def skipped_note(self) -> str:
        """`` (3 unreadable stream lines were skipped)`` for a failure's message: the lines
        may have held what is missing."""
        count = self.skipped_lines
        if not count:
            return ""
        return f" ({count:,} unreadable stream line{'s were' if count > 1 else ' was'} skipped)"


def empty_reply(provider: str, finish_reason: str | None, reasoning: str) -> str:
    """Why a reply that holds no answer and no tool call failed, as the person reads it. A
    reasoning model that spent its whole output limit thinking has not sent an "empty
    reply": the person watched it think, and the limit is what to look at."""
    thought = f"{len(reasoning):,} characters of reasoning" if reasoning.strip() else ""
    if finish_reason in CONTENT_FILTER_REASONS:
        return (f"{provider} stopped the reply with finish reason {finish_reason!r} (its "
                "content filter) before any answer or tool call")
    if finish_reason == "length":
        still = f" (it was still thinking: {thought})" if thought else ""
        return (f"{provider} stopped the reply at the model's output limit before any answer "
                f"or tool call{still}")
    if thought:
        return f"{provider} sent only reasoning ({thought}), no answer or tool call"
    return f"{provider} returned an empty reply"


def gateway_error(chunk: Mapping[str, Any]) -> str:
    """A gateway's error in its own shape (``{"code": 1301, "msg": "…"}``, Baidu's
    ``error_msg``) where a chunk was expected; "" for anything else. A chunk of a reply
    always carries ``choices`` (or only ``usage``): such a line used to be passed over, and
    the turn ended on "returned an empty reply" without the gateway's words."""
    if "choices" in chunk or "usage" in chunk:
        return ""
    for key in ("msg", "error_msg"):
        value = chunk.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:500]
    return ""
