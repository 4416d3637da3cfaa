"""Streaming chat client for any OpenAI-compatible ``/chat/completions`` endpoint (httpx).

Retries (connection errors, timeouts, 429, 5xx) happen only before the first streamed byte:
once text has reached the caller a retry would show it twice. Each retry is announced with
a StreamRetry event before the wait. The key goes only into the
Authorization header; every error text is passed through :func:`redact`.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import logging
import math
import random
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import httpx

from ...config import Secret
from ...surrogates import without_surrogates
from ..contracts.llm import (
    ContextLengthExceeded,
    LLMError,
    StreamEvent,
    StreamInterrupted,
    StreamRetry,
)
from ..messages import Message, to_openai_messages
from .assembly import ReplyAssembler
from .html_answer import html_page_said, is_html_page
from .redact import redact
from .tools_in_prompt import ToolProtocol

log = logging.getLogger(__name__)

RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504, 520, 522, 524, 529})
MAX_RETRY_AFTER_S = 60.0
MAX_ERROR_BODY_BYTES = 65_536
"""An error answer is read this far (its message is cut at 500 characters anyway)."""
MIN_LINE_CHARS = 65_536
BYTES_PER_REPLY_CHAR = 8
"""One stream line (or a whole-JSON reply) may be this many times the reply cap: JSON
escapes a character in up to 6 (``\\uXXXX``), and a chunk carries its framing. Without a
bound, a line that never ends was kept in memory until the total deadline."""
_LINE_BREAK = re.compile("[\r\n]")
# Wording providers use when a request is longer than the model's window.
_CONTEXT_WORDS = (
    "context length", "context_length", "context window", "maximum context",
    "too many tokens", "prompt is too long", "input is too long", "too long",
    "exceeds the model", "token limit", "range of input length", "上下文", "超过最大",
)


def is_context_length_error(status: int, message: str) -> bool:
    """A 400/413 whose text says the request is longer than the model accepts."""
    if status not in (400, 413, 422):
        return False
    lowered = message.lower()
    return any(word in lowered for word in _CONTEXT_WORDS)


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta seconds or an HTTP date), never negative;
    None when there is none to read. Not capped: a wait past MAX_RETRY_AFTER_S is no retry."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            moment = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = moment.timestamp() - time.time()
    return max(0.0, seconds) if math.isfinite(seconds) else None  # "nan", "inf"


WEEK_S = 7 * 24 * 3600


def _wait_words(seconds: float) -> str:
    """``2 min``, ``1 h 30 min``, ``90 s``: how long a provider asks to wait; past a week,
    ``more than a week`` (a header of '1e300' or a date in the year 9999 wrote out its
    hundreds of digits)."""
    if seconds > WEEK_S:
        return "more than a week"
    if seconds < 120:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    if minutes < 120:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def _error_message(body: bytes) -> str:
    """The provider's own error text from a JSON or plain body; of an HTML page, its title
    (a proxy's or a web app's page, not the provider's words)."""
    text = body.decode("utf-8", "replace").strip()
    if is_html_page(text):
        return html_page_said(text)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text[:500]
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, dict):
            message = error.get("message") or error.get("msg") or error.get("error_msg") \
                or json.dumps(error, ensure_ascii=False)
        else:
            message = str(error)
        return str(message)[:500]
    return text[:500]



_JSON = {"Content-Type": "application/json"}


def request_bytes(body: dict[str, Any]) -> bytes:
    """The request body as httpx encodes ``json=body`` (compact, UTF-8), except that a lone
    surrogate goes as U+FFFD: an undecodable byte of a folder's name (``caf\\xe9``) in the
    system prompt failed every request of that project with UnicodeEncodeError."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return without_surrogates(text).encode("utf-8")


class _TooLong(Exception):
    """A stream line, or a body, passed its bound before it ended."""


async def bounded_lines(pieces: AsyncIterator[str], limit: int) -> AsyncIterator[str]:
    """The lines of a streamed text (``\\r``, ``\\n`` and ``\\r\\n`` end a line; a
    ``\\r\\n`` also gives an empty line, which SSE ignores); _TooLong as soon as one line
    passes ``limit`` characters, whether or not its end ever comes."""
    pending: list[str] = []
    size = 0
    async for piece in pieces:
        start = 0
        for found in _LINE_BREAK.finditer(piece):
            part = piece[start:found.start()]
            if size + len(part) > limit:
                raise _TooLong
            pending.append(part)
            yield "".join(pending)
            pending, size = [], 0
            start = found.end()
        rest = piece[start:]
        if rest:
            size += len(rest)
            if size > limit:
                raise _TooLong
            pending.append(rest)
    if pending:
        yield "".join(pending)


async def next_within(items: AsyncIterator[Any], seconds: float) -> Any:
    """The next item, or TimeoutError after ``seconds``. Not ``asyncio.wait_for``: on
    Python 3.11 it returns the item and drops a cancel that arrives just as the item is
    ready, and when the app's loop is slow (a long conversation on the screen) that is
    nearly every cancel: Esc no longer stopped a streaming reply."""
    async with asyncio.timeout(seconds):
        return await items.__anext__()


async def read_bounded(response: httpx.Response, limit: int, seconds: float) -> bytes:
    """The body, read until ``limit`` bytes or ``seconds`` pass; _TooLong past the limit,
    TimeoutError past the time (an answer that drips never holds a request for long)."""
    async def read() -> bytes:
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > limit:
                raise _TooLong
        return bytes(body)

    async with asyncio.timeout(seconds):  # not wait_for: see next_within
        return await read()


class _Retry(Exception):
    def __init__(self, reason: str, delay: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.delay = delay


class OpenAICompatibleClient:
    """A :class:`~paicli_tui.core.contracts.llm.ChatClient` for OpenAI-compatible servers."""

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        model: str,
        window: int,
        api_key: Secret | None = None,
        send_reasoning: bool = False,
        stream_usage: bool = True,
        timeout: float = 120.0,
        max_retries: int = 3,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        backoff_base: float = 1.0,
        redact_also: Sequence[Secret] = (),
        total_timeout: float = 1_800.0,
        max_reply_chars: int = 1_000_000,
        tool_protocol: str = "auto",
    ) -> None:
        self.provider = provider
        self.tool_protocol = ToolProtocol(tool_protocol, provider)
        """Tools passed natively, or described in the prompt (see ``tools_in_prompt``)."""
        self.model = model
        self.window = window
        self.base_url = base_url.rstrip("/")
        self.send_reasoning = send_reasoning
        self.stream_usage = stream_usage
        self.max_retries = max(0, max_retries)
        self._key = api_key
        self.idle_timeout = timeout
        """Seconds allowed between two data events; keep-alive comments do not count."""
        self.total_timeout = total_timeout
        """Seconds one reply may take in all, however steadily it trickles."""
        self.max_reply_chars = max_reply_chars
        """A reply longer than this (text, reasoning and tool arguments) is cut here."""
        # every configured key, not only this one: an error body may echo another provider's
        self._secrets = tuple(dict.fromkeys(s for s in (api_key, *redact_also) if s))
        self._sleep = sleep
        self._backoff_base = backoff_base
        headers = {"Accept": "text/event-stream"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key.reveal()}"
        self._http = httpx.AsyncClient(
            headers=headers, transport=transport,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 20.0)))

    def __repr__(self) -> str:
        return f"OpenAICompatibleClient(provider={self.provider!r}, model={self.model!r})"

    def request_body(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]] = (),
                     *, model: str | None = None) -> dict[str, Any]:
        """The JSON body sent for these messages (also used to measure prefix stability)."""
        wire = to_openai_messages(messages, include_reasoning=self.send_reasoning)
        if self.send_reasoning:
            # Thinking modes (DeepSeek, Kimi) reject a history whose tool-calling assistant
            # message lacks reasoning_content, even when that reasoning was empty.
            for message, item in zip(messages, wire, strict=True):
                if message.tool_calls and "reasoning_content" not in item:
                    item["reasoning_content"] = message.reasoning or ""
        body: dict[str, Any] = {"model": model or self.model, "messages": wire, "stream": True}
        if self.stream_usage:
            body["stream_options"] = {"include_usage": True}
        if tools:
            body["tools"] = list(tools)
        return body

    def _safe(self, text: str) -> str:
        return redact(text, *self._secrets)

    def _backoff(self, attempt: int) -> float:
        return self._backoff_base * (2 ** attempt) * (0.75 + random.random() / 2)

    def stream(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]] = (),
               *, model: str | None = None) -> AsyncIterator[StreamEvent]:
        """Stream one reply: StreamDelta events, then one StreamDone; or raise LLMError."""
        return self.tool_protocol.stream(self._one_request, messages, tools, model or self.model)

    async def _one_request(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]],
                           model: str | None) -> AsyncIterator[StreamEvent]:
        body = self.request_body(messages, tools, model=model)
        url = f"{self.base_url}/chat/completions"
        attempt = 0
        while True:
            try:
                async for event in self._attempt(url, body):
                    yield event
                return
            except _Retry as retry:
                if attempt >= self.max_retries:
                    raise LLMError(self._safe(
                        f"{self.provider}: {retry.reason} (gave up after "
                        f"{attempt + 1} attempts)")) from None
                delay = retry.delay if retry.delay is not None else self._backoff(attempt)
                reason = self._safe(retry.reason)
                log.info("%s: %s; retrying in %.1fs", self.provider, reason, delay)
                attempt += 1
                yield StreamRetry(reason, attempt, self.max_retries, delay)
                await self._sleep(delay)

    async def _attempt(self, url: str, body: dict[str, Any]) -> AsyncIterator[StreamEvent]:
        assembler = ReplyAssembler(provider=self.provider)
        started = False  # a byte of the reply body has arrived: no retry from here on
        cut = False
        line_cap = max(MIN_LINE_CHARS, BYTES_PER_REPLY_CHAR * self.max_reply_chars)
        try:
            async with self._http.stream("POST", url, content=request_bytes(body),
                                         headers=_JSON) as response:
                if response.status_code >= 400:
                    self._raise_for_status(response, await self._error_body(response))
                if response.headers.get("content-type", "").startswith("application/json"):
                    # Some compatible servers ignore stream=true and send one completion.
                    started = True
                    event = self._whole_reply(await self._json_body(response, line_cap),
                                              assembler)
                    if event is not None:
                        yield event
                    yield assembler.finish()
                    return
                clock = asyncio.get_running_loop().time
                deadline = clock() + self.total_timeout
                last_data = clock()
                lines = bounded_lines(response.aiter_text(), line_cap).__aiter__()
                read_text = False  # a line with more than blanks has arrived
                while True:
                    try:
                        line = await next_within(lines, max(0.0, deadline - clock()))
                    except StopAsyncIteration:
                        break
                    except _TooLong:
                        cut = True  # a line that does not end: the reply is cut there
                        log.warning("%s: a stream line passed %d characters without an end",
                                    self.provider, line_cap)
                        break
                    except TimeoutError:
                        raise LLMError(
                            f"{self.provider}: the reply took longer than the "
                            f"{self.total_timeout:g} s cap; stopped") from None
                    if not read_text and line.strip():
                        read_text = True
                        if is_html_page(line):  # never the start of a stream
                            page = await self._rest_of_page(line, lines)
                            raise LLMError(self._safe(
                                f"{self.provider} answered with {html_page_said(page)} (HTTP "
                                f"{response.status_code}), not a chat completion: "
                                f"{self._url_hint()}"))
                    started = True
                    now = clock()
                    if line.strip().startswith("data:"):
                        last_data = now
                    elif now - last_data > self.idle_timeout:
                        # SSE comments (": keep-alive") alone must not hold a request open
                        raise StreamInterrupted(
                            f"{self.provider}: no data for {self.idle_timeout:g} s (only "
                            "keep-alive messages); stopped waiting")
                    event = self._parse_line(line, assembler)
                    if event is not None:
                        yield event
                    if assembler.saw_done:
                        break
                    if assembler.size > self.max_reply_chars:
                        cut = True
                        break
        except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            if started:
                raise StreamInterrupted(self._safe(
                    f"{self.provider}: the connection broke mid-reply ({reason})")) from None
            raise _Retry(f"cannot reach {self.base_url} ({reason})") from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            # Not worth a retry (bad URL scheme, proxy refusal, undecodable body); the
            # caller still gets an LLMError, never a raw httpx exception.
            raise LLMError(self._safe(
                f"{self.provider}: request to {self.base_url} failed "
                f"({type(exc).__name__}: {exc})")) from None
        if cut:  # what arrived is kept, with the reason it ends there
            log.warning("%s: reply cut at %d characters (%d had arrived)", self.provider,
                        self.max_reply_chars, assembler.size)
            yield assembler.cut(
                f"\n\n[reply cut: {self.provider} sent more than {self.max_reply_chars:,} "
                "characters; the rest was not read]", keep=self.max_reply_chars)
            return
        yield assembler.finish()

    async def _error_body(self, response: httpx.Response) -> bytes:
        """An error answer's first bytes, read within one idle timeout."""
        try:
            return await read_bounded(response, MAX_ERROR_BODY_BYTES, self.idle_timeout)
        except (_TooLong, TimeoutError):
            return b"(the error answer was too long or too slow to read)"

    async def _json_body(self, response: httpx.Response, limit: int) -> bytes:
        """A whole (non-streamed) reply, bounded like the stream: in size and in time."""
        try:
            return await read_bounded(response, limit, self.total_timeout)
        except _TooLong:
            raise LLMError(f"{self.provider} sent a reply of more than {limit:,} bytes; "
                           "stopped reading") from None
        except TimeoutError:
            raise LLMError(f"{self.provider}: the reply took longer than the "
                           f"{self.total_timeout:g} s cap; stopped") from None

    def _raise_for_status(self, response: httpx.Response, raw: bytes) -> None:
        status = response.status_code
        message = self._safe(_error_message(raw))
        if status in RETRY_STATUS:
            wait = retry_after_seconds(response.headers.get("retry-after"))
            if wait is not None and wait > MAX_RETRY_AFTER_S:
                # a daily quota's "come back in an hour": retried within a minute it only
                # failed again, three times over, while the person watched the countdowns
                raise LLMError(
                    f"{self.provider}: HTTP {status}: {message}; it asks to wait "
                    f"{_wait_words(wait)} before the next request (Retry-After), longer than "
                    f"the {MAX_RETRY_AFTER_S:g} s a retry waits, so none was made")
            raise _Retry(f"HTTP {status}: {message}", wait)
        if is_context_length_error(status, message):
            raise ContextLengthExceeded(
                f"{self.provider}: the request is longer than the model accepts ({message})")
        if status in (401, 403):
            raise LLMError(f"{self.provider} refused the key (HTTP {status}): {message}")
        if message.startswith("an HTML page"):  # a web page is never the API's own answer
            message = f"{message}; {self._url_hint()}"
        raise LLMError(f"{self.provider} answered HTTP {status}: {message}")

    async def _rest_of_page(self, first: str, lines: AsyncIterator[str]) -> str:
        """An HTML answer as far as its title (at most 64 KiB, within one idle timeout)."""
        page, size = [first], len(first)
        clock = asyncio.get_running_loop().time
        deadline = clock() + self.idle_timeout
        with contextlib.suppress(StopAsyncIteration, TimeoutError, _TooLong):
            while size < MAX_ERROR_BODY_BYTES and "</title" not in page[-1].lower():
                page.append(await next_within(lines, max(0.0, deadline - clock())))
                size += len(page[-1])
        return "\n".join(page)

    def _url_hint(self) -> str:
        return (f"is the base URL right? Requests go to {self.base_url}/chat/completions (an "
                "OpenAI-compatible server's base URL usually ends in /v1)")

    def _whole_reply(self, raw: bytes, assembler: ReplyAssembler) -> StreamEvent | None:
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            raise LLMError(f"{self.provider} sent a reply that is not JSON") from None
        if not isinstance(data, dict):
            raise LLMError(f"{self.provider} sent an unexpected reply")
        if "choices" not in data and "error" not in data:
            # a gateway's own answer in its own shape ({"code": 1301, "msg": …}, Baidu's
            # error_msg): read as an empty stream it "stopped before the reply was complete"
            raise LLMError(self._safe(f"{self.provider} answered with JSON that is not a chat "
                                      f"completion: {_error_message(raw)}"))
        try:
            return assembler.feed(data)
        except LLMError as exc:
            raise LLMError(self._safe(str(exc))) from None

    def _parse_line(self, line: str, assembler: ReplyAssembler) -> StreamEvent | None:
        line = line.strip()
        if not line or line.startswith(":") or not line.startswith("data:"):
            return None  # blank separators, comments, event:/id:/retry: fields
        data = line[5:].strip()
        if data == "[DONE]":
            assembler.saw_done = True
            return None
        try:
            chunk = json.loads(data)
        except (ValueError, RecursionError):
            # One garbled line should not lose a whole reply; the end check still applies.
            # Counted: the reply tells the person once at its end (a log line each is noise).
            if not assembler.skipped_lines:
                log.warning("%s: skipped a malformed stream line", self.provider)
            assembler.skipped_lines += 1
            return None
        if not isinstance(chunk, dict):
            return None
        try:
            return assembler.feed(chunk)
        except LLMError as exc:
            raise LLMError(self._safe(str(exc))) from None

    async def aclose(self) -> None:
        await self._http.aclose()
