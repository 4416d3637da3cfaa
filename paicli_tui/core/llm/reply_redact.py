"""Keys out of a model's reply: its streamed pieces and the reply as it is recorded.

A model can write a configured key (one the person pasted, one a transformed read let
through): its text, its reasoning and its tool calls' arguments then reach the screen,
``exec``'s output, the ledger and the next requests. The reply is masked once, when it is
recorded (:func:`redact_reply`), so the history, the ledger, the events and the tools all
get the masked one; its streamed pieces are masked before they are shown
(:class:`StreamRedactor`), which holds back a tail that could be the start of a key.

Covered as for tool results (:mod:`.redact`): a key verbatim or transformed, spaced out or
split by separators (``sk-a bcd efg…``), any PIECE_CHARS of it in a row. Not covered: pieces
shorter than that with other letters or digits between them (a key spelt out in halves
around a word), a key in a ``\\uXXXX`` escape outside tool arguments, and, while streaming,
a dump with offsets (``xxd``) cut at a piece's edge (the recorded reply masks it).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from dataclasses import replace
from typing import Any

from ...config import Secret
from ..contracts.llm import StreamDelta, StreamDone
from ..messages import Message, read_arguments
from .redact import mask_spans, redact_known, secret_spans, secret_values, unfinished_from


class StreamRedactor:
    """Masks a streamed text piece by piece: :meth:`feed` returns what can be shown now,
    :meth:`flush` the rest once the stream ended."""

    def __init__(self, secrets: Iterable[Secret | str | None]) -> None:
        self._values = secret_values(secrets)
        self._pending = ""

    def feed(self, text: str) -> str:
        if not self._values:
            return text
        self._pending += text
        return self._release(final=False)

    def flush(self) -> str:
        return self._release(final=True)

    def _release(self, *, final: bool) -> str:
        pending = self._pending
        spans = secret_spans(pending, self._values)
        cut = len(pending) if final else unfinished_from(pending, self._values)
        for start, end in spans:  # a key found across the cut is held back whole
            if start < cut < end:
                cut = start
        self._pending = pending[cut:]
        return mask_spans(pending[:cut], [(s, e) for s, e in spans if e <= cut])


async def redacted_stream(parts: AsyncIterator[object],
                          secrets: Iterable[Secret | str | None]) -> AsyncIterator[object]:
    """A client's stream with its text and reasoning pieces masked; what was held back is
    sent before the reply ends, or before a failure mid-stream is passed on."""
    text, reasoning = StreamRedactor(secrets), StreamRedactor(secrets)

    def rest() -> StreamDelta | None:
        held = StreamDelta(text=text.flush(), reasoning=reasoning.flush())
        return held if held.text or held.reasoning else None

    try:
        async for part in parts:
            if isinstance(part, StreamDelta):
                part = StreamDelta(text=text.feed(part.text),
                                   reasoning=reasoning.feed(part.reasoning))
                if not part.text and not part.reasoning:
                    continue
            elif isinstance(part, StreamDone) and (held := rest()) is not None:
                yield held
            yield part
    except Exception:
        if (held := rest()) is not None:
            yield held
        raise
    if (held := rest()) is not None:  # a stream that ended without its reply
        yield held


def _masked_values(value: Any, secrets: tuple[Secret | str | None, ...]) -> Any:
    """``value`` (parsed JSON) with every string in it masked, keys of objects included."""
    if isinstance(value, str):
        return redact_known(value, secrets)
    if isinstance(value, list):
        return [_masked_values(item, secrets) for item in value]
    if isinstance(value, dict):
        return {_masked_values(k, secrets): _masked_values(v, secrets)
                for k, v in value.items()}
    return value


def redact_arguments(arguments: str, secrets: Iterable[Secret | str | None]) -> str:
    """A tool call's JSON arguments with the keys in them masked. Read first as the tool
    reads them (a fence or a second encoding forgiven), so a key written with ``\\u``
    escapes is found too; rewritten only when something was masked. A key split across two
    values is masked in the JSON text, which may leave it malformed: the tool then refuses
    the call, which is what should happen to it."""
    secrets = tuple(secrets)
    try:
        parsed = read_arguments(arguments)  # as the tool will read them: fenced, encoded twice
        masked = _masked_values(parsed, secrets)
        text = arguments if masked == parsed else json.dumps(masked, ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON (the tool says so), or nested too deep
        text = arguments
    return redact_known(text, secrets)


def redact_reply(message: Message, secrets: Iterable[Secret | str | None]) -> Message:
    """The assistant ``message`` with the keys in its text, reasoning and tool-call arguments
    masked (the same message when there were none)."""
    secrets = tuple(secrets)
    content = redact_known(message.content, secrets)
    reasoning = redact_known(message.reasoning, secrets) if message.reasoning else \
        message.reasoning
    calls = tuple(replace(call, arguments=redact_arguments(call.arguments, secrets))
                  for call in message.tool_calls)
    if (content, reasoning, calls) == (message.content, message.reasoning, message.tool_calls):
        return message
    return message.evolve(content=content, reasoning=reasoning, tool_calls=calls)
