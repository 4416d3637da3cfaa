"""Helpers to replay recorded SSE streams through httpx.MockTransport (not a test module)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import httpx

from paicli_tui.config import Secret
from paicli_tui.core.llm.openai_client import OpenAICompatibleClient


def sse(chunks: Iterable[dict[str, Any] | str], *, done: bool = True) -> bytes:
    """An SSE body: one ``data:`` line per chunk (dicts as JSON, strings verbatim)."""
    lines = []
    for chunk in chunks:
        data = chunk if isinstance(chunk, str) else json.dumps(chunk, ensure_ascii=False)
        lines.append(f"data: {data}\n\n")
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def delta(finish: str | None = None, **fields: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": fields, "finish_reason": finish}]}


def text_reply(text: str, usage: dict[str, Any] | None = None) -> bytes:
    chunks: list[dict[str, Any]] = [delta(content=text), delta(finish="stop")]
    if usage:
        chunks.append({"choices": [], "usage": usage})
    return sse(chunks)


class Replay:
    """A MockTransport handler answering each request with the next scripted response."""

    def __init__(self, responses: Sequence[httpx.Response | Callable[[httpx.Request],
                                                                      httpx.Response]]):
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        item = self.responses.pop(0)
        return item(request) if callable(item) else item

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


def client_for(replay: Replay, *, key: str | None = "sk-test-secret-key-123456",
               **options: Any) -> OpenAICompatibleClient:
    async def no_sleep(seconds: float) -> None:
        replay.slept = [*getattr(replay, "slept", []), seconds]  # type: ignore[attr-defined]

    options.setdefault("provider", "deepseek")
    return OpenAICompatibleClient(
        base_url="https://api.example.test/v1", model="m1", window=128_000,
        api_key=Secret(key) if key else None, transport=httpx.MockTransport(replay),
        sleep=no_sleep, **options)
