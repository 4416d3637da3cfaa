"""Streaming chat client for a local Ollama server, through the ``ollama`` package.

Ollama speaks its own wire form: tool-call arguments are objects rather than JSON text, calls
carry no ids, and tool results name the tool. This module translates both ways so the agent
loop sees the same events as from an OpenAI-compatible server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

from ...surrogates import without_surrogates
from ..contracts.llm import (
    ContextLengthExceeded,
    LLMError,
    StreamDelta,
    StreamDone,
    StreamEvent,
    StreamInterrupted,
    UsageReport,
)
from ..messages import Message, Role, ToolCall
from .assembly import empty_reply, token_count
from .openai_client import is_context_length_error, next_within
from .tools_in_prompt import ToolProtocol


def to_ollama_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages in Ollama's chat form (arguments as objects, tool results with tool_name)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        # a lone surrogate (an undecodable byte of a folder's name in the system prompt)
        # as U+FFFD: the request could not be encoded and every turn failed
        item: dict[str, Any] = {"role": message.role.value,
                                "content": without_surrogates(message.content)}
        if message.role is Role.ASSISTANT and message.tool_calls:
            item["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.parsed_arguments()}}
                for c in message.tool_calls
            ]
        if message.role is Role.TOOL and message.name:
            item["tool_name"] = message.name
        images = [i.data_base64 for i in message.images if i.data_base64]
        if images:
            item["images"] = images
        out.append(item)
    return out


class OllamaClient:
    """A :class:`~paicli_tui.core.contracts.llm.ChatClient` for Ollama (``OLLAMA_HOST``)."""

    def __init__(self, *, host: str, model: str, window: int, timeout: float = 120.0,
                 total_timeout: float = 1_800.0, max_reply_chars: int = 1_000_000,
                 tool_protocol: str = "auto", **httpx_options: Any) -> None:
        import ollama  # imported here: only an Ollama user pays for it

        self.provider = "ollama"
        self.tool_protocol = ToolProtocol(tool_protocol, self.provider)
        """Tools passed natively, or described in the prompt (see ``tools_in_prompt``)."""
        self.model = model
        self.window = window
        self.host = host
        self.total_timeout = total_timeout
        """Seconds one reply may take in all (a small model repeating itself never stops)."""
        self.max_reply_chars = max_reply_chars
        """A reply longer than this (text, thinking, tool arguments) is cut here."""
        self._ollama = ollama
        self._client = ollama.AsyncClient(host=host, timeout=timeout, **httpx_options)

    def __repr__(self) -> str:
        return f"OllamaClient(host={self.host!r}, model={self.model!r})"

    def stream(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]] = (),
               *, model: str | None = None) -> AsyncIterator[StreamEvent]:
        """Stream one reply: StreamDelta events, then one StreamDone; or raise LLMError."""
        return self.tool_protocol.stream(self._one_request, messages, tools, model or self.model)

    async def _one_request(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]],
                           model: str | None) -> AsyncIterator[StreamEvent]:
        text: list[str] = []
        thinking: list[str] = []
        calls: list[ToolCall] = []
        done_reason: str | None = None
        usage: UsageReport | None = None
        finished = False
        call_prefix = uuid.uuid4().hex[:8]  # Ollama gives no ids; ours must be unique
        size = 0
        clock = asyncio.get_running_loop().time
        deadline = clock() + self.total_timeout
        try:
            response = await self._client.chat(
                model=model or self.model, messages=to_ollama_messages(messages),
                tools=list(tools) or None, stream=True,
                options={"num_ctx": self.window})
            parts = response.__aiter__()
            while True:
                try:
                    part = await next_within(parts, max(0.0, deadline - clock()))
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    raise LLMError(f"ollama: the reply took longer than the "
                                   f"{self.total_timeout:g} s cap; stopped") from None
                message = part.message
                delta_text = message.content or ""
                delta_thinking = getattr(message, "thinking", None) or ""
                for call in message.tool_calls or ():
                    arguments = call.function.arguments
                    calls.append(ToolCall(
                        f"call_{call_prefix}_{len(calls)}", call.function.name,
                        json.dumps(dict(arguments or {}), ensure_ascii=False)))
                    size += len(calls[-1].name) + len(calls[-1].arguments)
                if delta_text or delta_thinking:
                    text.append(delta_text)
                    thinking.append(delta_thinking)
                    yield StreamDelta(text=delta_text, reasoning=delta_thinking)
                size += len(delta_text) + len(delta_thinking)
                if size > self.max_reply_chars:  # what arrived is kept, with why it ends
                    await _close(response)
                    note = (f"\n\n[reply cut: ollama sent more than {self.max_reply_chars:,} "
                            "characters; the rest was not read]")
                    cut = Message.assistant("".join(text)[:self.max_reply_chars] + note,
                                            reasoning="".join(thinking)[:self.max_reply_chars]
                                            or None)
                    yield StreamDone(message=cut, finish_reason="length", usage=None,
                                     tool_calls=(), cut_by_client=True)
                    return
                if part.done:
                    finished = True
                    done_reason = part.done_reason or "stop"
                    usage = UsageReport(prompt_tokens=token_count(part.prompt_eval_count),
                                        completion_tokens=token_count(part.eval_count))
        except self._ollama.ResponseError as exc:
            message_text = str(exc.error)
            if is_context_length_error(exc.status_code, message_text):
                raise ContextLengthExceeded(f"ollama: {message_text}") from None
            raise LLMError(f"ollama answered HTTP {exc.status_code}: {message_text}") from None
        except ConnectionError as exc:
            raise LLMError(f"ollama: cannot reach {self.host} ({exc})") from None
        except Exception as exc:  # httpx errors surface raw from the ollama package
            import httpx

            if isinstance(exc, httpx.HTTPError):
                if text or calls:
                    raise StreamInterrupted(f"ollama: the stream broke ({exc})") from None
                raise LLMError(f"ollama: cannot reach {self.host} ({exc})") from None
            raise
        if not finished:
            raise StreamInterrupted("ollama stopped streaming before the reply was complete")
        content = "".join(text)
        if not content.strip() and not calls:
            raise LLMError(empty_reply("ollama", done_reason, "".join(thinking)))
        assistant = Message.assistant(content, calls, reasoning="".join(thinking) or None)
        yield StreamDone(message=assistant, finish_reason=done_reason, usage=usage,
                         tool_calls=tuple(calls))

    async def aclose(self) -> None:
        close = getattr(self._client, "_client", None)
        if close is not None:
            await close.aclose()


async def _close(stream: Any) -> None:
    """Stop reading a cut reply (the connection goes back, the model stops generating)."""
    close = getattr(stream, "aclose", None)
    if close is not None:
        with contextlib.suppress(Exception):
            await close()
