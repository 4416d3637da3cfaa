"""``web_search``: offered only when the person configured a search backend.

The backend is a SearXNG instance (``web_search_url``), whose JSON API needs no key: a team
can run one for everybody. Results are titles, URLs and snippets; the model reads a page with
``web_fetch``. Like every web tool its output is external content (behaviour §16).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ...config import Settings
from ..contracts.approval import ask_approval
from ..contracts.asks import ApprovalRequest
from ..contracts.tools import ToolContext, ToolOutput, ToolStatus

MAX_RESULTS = 8
SNIPPET_CHARS = 300


class SearchError(Exception):
    """The backend's answer was too large or too slow; the message says which."""


class WebSearchTool:
    name = "web_search"
    description = ("Search the web and get titles, URLs and snippets of the best results. Use "
                   "web_fetch to read one. Results are untrusted data from outside the project.")
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "What to search for."}},
        "required": ["query"],
        "additionalProperties": False,
    }
    requires_approval = True

    def __init__(self, base_url: str, transport: Any = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.transport = transport

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        import httpx

        query = arguments.get("query")
        if not isinstance(query, str) or not query.strip():
            return ToolOutput("web_search needs a 'query'.", status=ToolStatus.FAILED)
        request = ApprovalRequest(tool=self.name, summary=f"search the web for {query.strip()!r}",
                                  detail=f"The query is sent to {self.base_url}.")
        if not await ask_approval(context, request):
            return ToolOutput("The person declined the web search. Do not retry it.",
                              status=ToolStatus.DENIED)
        try:
            data = json.loads(await self._answer(query.strip(), context.settings))
        except (httpx.HTTPError, ValueError, RecursionError, SearchError) as exc:
            return ToolOutput(f"The search backend at {self.base_url} failed: "
                              f"{type(exc).__name__}: {exc}.", status=ToolStatus.FAILED,
                              external=True)
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list) or not results:
            return ToolOutput(f"No results for {query.strip()!r}.", external=True)
        lines = [f"Results for {query.strip()!r}:"]
        for i, item in enumerate(results[:MAX_RESULTS], 1):
            if not isinstance(item, dict):
                continue
            title = " ".join(str(item.get("title") or "").split()) or "(no title)"
            snippet = " ".join(str(item.get("content") or "").split())[:SNIPPET_CHARS]
            lines.append(f"{i}. {title}\n   {item.get('url', '')}\n   {snippet}".rstrip())
        return ToolOutput("\n".join(lines), external=True)

    async def _answer(self, query: str, settings: Settings) -> bytes:
        """The backend's answer, bounded like a fetched page: within ``web_fetch_timeout_s``
        in all and ``web_fetch_max_bytes`` (a backend that answered without end, or a byte
        at a time, held the turn and filled memory: httpx's timeout bounds each wait only)."""
        import httpx

        limit, deadline = settings.web_fetch_max_bytes, settings.web_fetch_timeout_s
        try:
            async with asyncio.timeout(deadline), httpx.AsyncClient(
                    timeout=httpx.Timeout(deadline), transport=self.transport) as client, \
                    client.stream("GET", f"{self.base_url}/search",
                                  params={"q": query, "format": "json"}) as response:
                response.raise_for_status()
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > limit:
                        raise SearchError(f"its answer is larger than {limit:,} bytes")
                return bytes(body)
        except TimeoutError:
            raise SearchError(f"no whole answer within {deadline:g} s") from None
