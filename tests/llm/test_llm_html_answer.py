"""A web page where a chat completion was expected (a base URL without its /v1, a gateway's
sign-in page, a proxy's error page): the error names the page by its title and points at
the URL, instead of quoting 500 characters of tags or saying the stream stopped early."""

from __future__ import annotations

import httpx
import pytest
from doubles.llm_replay import Replay, client_for, text_reply

from paicli_tui.core.contracts.llm import LLMError, StreamDone
from paicli_tui.core.llm.html_answer import is_html_page, page_title
from paicli_tui.core.messages import Message

NGINX = ("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>"
         "502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n"
         "</html>\r\n")
PORTAL = ("<!DOCTYPE html>\n<html lang=en>\n<head><meta charset=utf-8>\n<title>Sign in &amp; "
          "go - Corp\n Portal</title>\n<style>" + "x{color:red}" * 80 + "</style></head>\n"
          "<body><h1>Welcome</h1></body></html>\n")
HINT = ("is the base URL right? Requests go to https://api.example.test/v1/chat/completions "
        "(an OpenAI-compatible server's base URL usually ends in /v1)")


def _page(status: int, body: str, kind: str = "text/html; charset=utf-8") -> httpx.Response:
    return httpx.Response(status, headers={"content-type": kind}, content=body.encode())


@pytest.mark.parametrize(("answer", "said"), [
    (_page(404, PORTAL),
     f"deepseek answered HTTP 404: an HTML page titled 'Sign in & go - Corp Portal'; {HINT}"),
    (_page(200, PORTAL),
     f"deepseek answered with an HTML page titled 'Sign in & go - Corp Portal' (HTTP 200), "
     f"not a chat completion: {HINT}"),
    # labelled as a stream, still a page: the body decides, not the header
    (_page(200, "\n\n" + NGINX, "text/event-stream"),
     f"deepseek answered with an HTML page titled '502 Bad Gateway' (HTTP 200), not a chat "
     f"completion: {HINT}"),
    (_page(400, "<html><body><p>no title here</p></body></html>"),
     f"deepseek answered HTTP 400: an HTML page without a title; {HINT}"),
    (_page(400, '{"error": {"message": "<html> is not a model"}}', "application/json"),
     "deepseek answered HTTP 400: <html> is not a model"),
])
async def test_a_page_is_named_by_its_title(answer: httpx.Response, said: str) -> None:
    client = client_for(Replay([answer]), max_retries=0)
    with pytest.raises(LLMError) as caught:
        _ = [e async for e in client.stream([Message.user("hi")])]
    assert str(caught.value) == said
    await client.aclose()


async def test_a_proxys_error_page_is_retried_under_its_title() -> None:
    replay = Replay([_page(502, NGINX), _page(502, NGINX), httpx.Response(
        200, content=text_reply("ok"))])
    events = [e async for e in client_for(replay).stream([Message.user("hi")])]
    assert [e.reason for e in events if hasattr(e, "reason")] == \
        ["HTTP 502: an HTML page titled '502 Bad Gateway'"] * 2
    assert isinstance(events[-1], StreamDone) and events[-1].message.content == "ok"


@pytest.mark.parametrize(("text", "page", "title"), [
    (NGINX, True, "502 Bad Gateway"),
    (PORTAL, True, "Sign in & go - Corp Portal"),
    ("<!-- served by x -->\n<!doctype html><h1>Not  Found</h1>", True, "Not Found"),
    ("  <HTML><HEAD><TITLE>Error</TITLE>", True, "Error"),
    ('data: {"choices": []}', False, ""),
    ("Internal Server Error", False, ""),
    ("<b>bold</b> words", False, ""),
])
def test_what_counts_as_a_page(text: str, page: bool, title: str) -> None:
    assert is_html_page(text) is page
    if page:
        assert page_title(text) == title
