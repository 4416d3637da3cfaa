"""An OpenAI-compatible provider faked at its protocol (httpx.MockTransport, no network):
one answer with the status, content type and body a test gives, and the events a client
streams from it (not a test module)."""

from __future__ import annotations

from collections.abc import AsyncIterable

import httpx

from paicli_tui.core.llm.openai_client import OpenAICompatibleClient
from paicli_tui.core.messages import Message


def mock_client(body: AsyncIterable[bytes] | bytes, *, status: int = 200,
                content_type: str = "text/event-stream", **options) -> OpenAICompatibleClient:
    """A client whose every request is answered with ``body`` (no retries unless given)."""
    async def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers={"content-type": content_type}, content=body)

    options.setdefault("max_retries", 0)
    return OpenAICompatibleClient(provider="fake", base_url="http://127.0.0.1:9/v1",
                                  model="m", window=128_000,
                                  transport=httpx.MockTransport(handler), **options)


async def collect(client: OpenAICompatibleClient) -> list:
    """Every event of one request, the client closed afterwards."""
    try:
        return [event async for event in client.stream([Message.user("hi")])]
    finally:
        await client.aclose()
