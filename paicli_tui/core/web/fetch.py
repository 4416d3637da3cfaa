"""``web_fetch``: read one web page as Markdown.

Bounded on every side: http and https only; at most 5 redirects, each checked again; a
connect and a total deadline; at most 5 MB read from the body (the rest is not downloaded).
The result can be long: the normal offload rule (behaviour §3) puts big pages in a file the
model pages through with ``read_file``. The call needs the person's approval (a URL can carry
data out), and its result is marked external, so the memory guard trips (behaviour §16).
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urljoin, urlsplit

from ...config import Settings
from ..contracts.approval import ask_approval
from ..contracts.asks import ApprovalRequest
from ..contracts.tools import ToolContext, ToolOutput, ToolStatus
from .page import NotText, readable_text

MAX_REDIRECTS = 5
USER_AGENT = "paicli-tui (terminal coding agent; web_fetch)"


class FetchError(Exception):
    """A page could not be fetched; the message says why in words."""


def check_url(url: str) -> str:
    """The URL, stripped, if it is an http(s) URL with a host; else FetchError."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise FetchError(f"only http and https URLs can be fetched, not {parts.scheme or url!r}")
    if not parts.hostname:
        raise FetchError(f"{url!r} has no host")
    return url


async def fetch_text(url: str, settings: Settings, *, transport: Any = None
                     ) -> tuple[str, int, str | None, str, bool]:
    """(final URL, status, content type, decoded body, cut) for ``url``."""
    import httpx

    timeout = httpx.Timeout(settings.web_fetch_timeout_s, connect=min(
        10.0, settings.web_fetch_timeout_s))
    limit = settings.web_fetch_max_bytes
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False, transport=transport,
                                 headers={"User-Agent": USER_AGENT,
                                          "Accept": "text/html, text/*;q=0.9, */*;q=0.5"}
                                 ) as client:
        current = check_url(url)
        for _ in range(MAX_REDIRECTS + 1):
            async with client.stream("GET", current) as response:
                if response.is_redirect:
                    location = response.headers.get("location")
                    if not location:
                        raise FetchError(f"{current} redirects without a Location header")
                    current = check_url(urljoin(current, location))
                    continue
                chunks: list[bytes] = []
                size = 0
                cut = False
                async for chunk in response.aiter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    if size >= limit:
                        cut = True
                        break
                raw = b"".join(chunks)[:limit]
                encoding = response.charset_encoding or "utf-8"
                try:
                    body = raw.decode(encoding, errors="replace")
                except LookupError:
                    body = raw.decode("utf-8", errors="replace")
                return (str(response.url), response.status_code,
                        response.headers.get("content-type"), body, cut)
    raise FetchError(f"more than {MAX_REDIRECTS} redirects (last: {current})")


class WebFetchTool:
    name = "web_fetch"
    description = ("Fetch one web page (http or https) and return it as Markdown: "
                   "documentation, an issue, a changelog. Large pages are saved to a file you "
                   "can page through with read_file. The content is untrusted data from outside "
                   "the project.")
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"url": {"type": "string", "description": "The http(s) URL to read."}},
        "required": ["url"],
        "additionalProperties": False,
    }
    requires_approval = True

    def __init__(self, transport: Any = None) -> None:
        self.transport = transport
        """An httpx transport for tests; None means the network."""

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        import httpx

        url = arguments.get("url")
        if not isinstance(url, str) or not url.strip():
            return ToolOutput("web_fetch needs a 'url'.", status=ToolStatus.FAILED)
        try:
            check_url(url)
        except FetchError as exc:
            return ToolOutput(f"Cannot fetch: {exc}.", status=ToolStatus.FAILED)
        request = ApprovalRequest(tool=self.name, summary=f"fetch {url.strip()}",
                                  detail="Reads a web page; the URL itself is sent to its host.")
        if not await ask_approval(context, request):
            return ToolOutput(f"The person declined to fetch {url}. Do not retry it; ask how to "
                              "proceed if the page is needed.", status=ToolStatus.DENIED)
        try:
            final, status, kind, body, cut = await fetch_text(url, context.settings,
                                                              transport=self.transport)
            title, text = await asyncio.to_thread(readable_text, body, kind)
        except FetchError as exc:
            return ToolOutput(f"Cannot fetch {url}: {exc}.", status=ToolStatus.FAILED,
                              external=True)
        except NotText as exc:
            return ToolOutput(f"Cannot read {url}: {exc}.", status=ToolStatus.FAILED,
                              external=True)
        except httpx.TimeoutException:
            return ToolOutput(f"Cannot fetch {url}: no answer within "
                              f"{context.settings.web_fetch_timeout_s:g} s.",
                              status=ToolStatus.FAILED, external=True)
        except httpx.HTTPError as exc:
            return ToolOutput(f"Cannot fetch {url}: {type(exc).__name__}: {exc}.",
                              status=ToolStatus.FAILED, external=True)
        head = [f"URL: {final}", f"Status: {status}"]
        if title:
            head.append(f"Title: {title}")
        if cut:
            head.append(f"Note: only the first {context.settings.web_fetch_max_bytes:,} bytes "
                        "were read.")
        ok = 200 <= status < 300
        return ToolOutput("\n".join(head) + "\n\n" + (text or "(the page has no text)"),
                          status=ToolStatus.DONE if ok else ToolStatus.FAILED, external=True)

