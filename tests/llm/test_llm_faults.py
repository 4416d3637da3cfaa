"""Provider faults: retries only before the first byte, typed errors, no key in any message."""

from __future__ import annotations

import httpx
import pytest
from doubles.llm_replay import Replay, client_for, delta, sse, text_reply

from paicli_tui.core.contracts.llm import (
    ContextLengthExceeded,
    LLMError,
    StreamDelta,
    StreamInterrupted,
    StreamRetry,
)
from paicli_tui.core.llm.openai_client import is_context_length_error, retry_after_seconds
from paicli_tui.core.messages import Message

KEY = "sk-test-secret-key-123456"


async def run(client):
    return [e async for e in client.stream([Message.user("hi")])]


async def test_500_then_success_retries_with_backoff() -> None:
    replay = Replay([httpx.Response(500, json={"error": {"message": "boom"}}),
                     httpx.Response(200, content=text_reply("ok"))])
    events = await run(client_for(replay))
    assert events[-1].message.content == "ok"
    assert len(replay.requests) == 2 and len(replay.slept) == 1


async def test_429_honours_retry_after() -> None:
    replay = Replay([httpx.Response(429, headers={"Retry-After": "7"},
                                    json={"error": {"message": "slow down"}}),
                     httpx.Response(200, content=text_reply("ok"))])
    await run(client_for(replay))
    assert replay.slept == [7.0]


@pytest.mark.parametrize(("header", "slept", "said"), [
    ("60", [60.0], None),
    ("61", [], "it asks to wait 61 s before the next request"),
    ("3600", [], "it asks to wait 60 min before the next request"),
    ("86400", [], "it asks to wait 24 h before the next request"),
    ("9000", [], "it asks to wait 2 h 30 min before the next request"),
    ("604800", [], "it asks to wait 168 h before the next request"),
    ("604801", [], "it asks to wait more than a week before the next request"),
    ("1e300", [], "it asks to wait more than a week before the next request"),
    ("Fri, 31 Dec 9999 23:59:59 GMT", [],
     "it asks to wait more than a week before the next request"),
])
async def test_a_wait_past_a_minute_is_said_not_retried(header, slept, said) -> None:
    # a daily quota used up ("come back in an hour"): retried after the 60 s cap it only
    # failed again, four requests and three minutes of countdowns later
    replay = Replay([httpx.Response(429, headers={"Retry-After": header},
                                    json={"error": {"message": "quota exceeded"}}),
                     httpx.Response(200, content=text_reply("ok"))])
    if said is None:
        await run(client_for(replay))
    else:
        with pytest.raises(LLMError) as caught:
            await run(client_for(replay))
        assert str(caught.value) == (f"deepseek: HTTP 429: quota exceeded; {said} "
                                     "(Retry-After), longer than the 60 s a retry waits, so "
                                     "none was made")
    assert getattr(replay, "slept", []) == slept


async def test_gives_up_after_three_retries_with_the_reason() -> None:
    replay = Replay([httpx.Response(503, text="overloaded")] * 4)
    with pytest.raises(LLMError, match="503.*overloaded.*4 attempts"):
        await run(client_for(replay))
    assert len(replay.requests) == 4


def _timeout(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectTimeout("timed out", request=request)


def _refused(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("connection refused", request=request)


async def test_timeout_and_connect_error_are_retried() -> None:
    replay = Replay([_timeout, _refused, httpx.Response(200, content=text_reply("ok"))])
    events = await run(client_for(replay))
    assert events[-1].message.content == "ok" and len(replay.requests) == 3


async def test_context_length_400_is_a_typed_error_without_retry() -> None:
    replay = Replay([httpx.Response(400, json={"error": {
        "message": "This model's maximum context length is 131072 tokens", "code":
        "context_length_exceeded"}})])
    with pytest.raises(ContextLengthExceeded):
        await run(client_for(replay))
    assert len(replay.requests) == 1


async def test_other_4xx_shows_the_provider_message_and_never_the_key() -> None:
    replay = Replay([httpx.Response(401, json={"error": {
        "message": f"Incorrect API key provided: {KEY}"}})])
    with pytest.raises(LLMError) as info:
        await run(client_for(replay, key=KEY))
    text = str(info.value)
    assert "Incorrect API key provided" in text and "401" in text
    assert KEY not in text and "sk-test" not in text


async def test_malformed_sse_line_is_skipped() -> None:
    stream = sse([delta(content="a"), "{not json", delta(content="b"), delta(finish="stop")])
    events = await run(client_for(Replay([httpx.Response(200, content=stream)])))
    assert events[-1].message.content == "ab"


@pytest.mark.parametrize(("garbled", "skipped"), [(0, 0), (1, 1), (3, 3), (250, 250)])
async def test_skipped_stream_lines_are_counted_on_the_reply(garbled: int, skipped: int) -> None:
    """Each garbled line is dropped, and counted once on the reply: the loop tells the
    person at its end (before, only a log line said so)."""
    chunks = [delta(content="a"), *["{not json"] * garbled, delta(content="b"),
              delta(finish="stop")]
    events = await run(client_for(Replay([httpx.Response(200, content=sse(chunks))])))
    assert events[-1].message.content == "ab"
    assert events[-1].skipped_lines == skipped


async def test_a_reply_lost_to_garbled_lines_says_so_in_its_error() -> None:
    stream = sse(["{not json", '{"choices": [{"delta": {"content": "x"', delta(finish="stop")])
    with pytest.raises(LLMError, match=r"empty reply \(2 unreadable stream lines were "
                                       r"skipped\)"):
        await run(client_for(Replay([httpx.Response(200, content=stream)])))


async def test_stream_without_done_or_finish_reason_is_interrupted() -> None:
    stream = sse([delta(content="half an ans")], done=False)
    with pytest.raises(StreamInterrupted):
        await run(client_for(Replay([httpx.Response(200, content=stream)])))


class _BreakingStream(httpx.AsyncByteStream):
    def __init__(self, first: bytes) -> None:
        self.first = first

    async def __aiter__(self):
        yield self.first
        raise httpx.ReadError("connection reset by peer")


async def test_disconnect_mid_stream_is_interrupted_and_not_retried() -> None:
    first = sse([delta(content="partial")], done=False)
    replay = Replay([httpx.Response(200, stream=_BreakingStream(first)),
                     httpx.Response(200, content=text_reply("should not be used"))])
    with pytest.raises(StreamInterrupted):
        await run(client_for(replay))
    assert len(replay.requests) == 1


async def test_empty_reply_is_an_error() -> None:
    stream = sse([delta(content=""), delta(finish="stop")])
    with pytest.raises(LLMError, match="empty"):
        await run(client_for(Replay([httpx.Response(200, content=stream)])))


@pytest.mark.parametrize(("chunks", "said"), [
    ([delta(reasoning_content="Let me think. " * 30), delta(finish="length")],
     "fake stopped the reply at the model's output limit before any answer or tool call "
     "(it was still thinking: 420 characters of reasoning)"),
    ([delta(content=""), delta(finish="length")],
     "fake stopped the reply at the model's output limit before any answer or tool call"),
    ([delta(reasoning_content="Hmm."), delta(finish="stop")],
     "fake sent only reasoning (4 characters of reasoning), no answer or tool call"),
    ([delta(content="  "), delta(finish="stop")], "fake returned an empty reply"),
])
async def test_a_reply_without_an_answer_says_what_it_held(chunks, said) -> None:
    # a reasoning model that spent its output limit thinking: the person watched it think,
    # and "returned an empty reply" sent them looking at the server instead of the limit
    replay = Replay([httpx.Response(200, content=sse(chunks))])
    with pytest.raises(LLMError) as caught:
        await run(client_for(replay, provider="fake"))
    assert str(caught.value) == said


@pytest.mark.parametrize(("body", "said"), [
    ({"code": 1301, "msg": "系统检测到输入或生成内容可能包含不安全或敏感内容"},
     "deepseek answered with JSON that is not a chat completion: "
     "系统检测到输入或生成内容可能包含不安全或敏感内容"),
    ({"error_code": 18, "error_msg": "Open api qps request limit reached"},
     "deepseek answered with JSON that is not a chat completion: Open api qps request limit "
     "reached"),
    ({"status": "失败"},
     'deepseek answered with JSON that is not a chat completion: {"status": "失败"}'),
    ({"error": {"message": "余额不足"}}, "deepseek error in stream: 余额不足"),
])
async def test_a_gateways_own_json_answer_is_quoted(body, said) -> None:
    # sent with status 200 in the gateway's own shape, it read as an empty stream: "stopped
    # streaming before the reply was complete"
    replay = Replay([httpx.Response(200, json=body)])
    with pytest.raises(LLMError) as caught:
        await run(client_for(replay))
    assert str(caught.value) == said


@pytest.mark.parametrize(("chunk", "said"), [
    ({"code": 1301, "msg": "系统检测到输入或生成内容可能包含不安全或敏感内容"},
     "deepseek error in stream: 系统检测到输入或生成内容可能包含不安全或敏感内容"),
    ({"error_code": 336501, "error_msg": "Rate limit reached for RPM"},
     "deepseek error in stream: Rate limit reached for RPM"),
])
async def test_a_gateways_own_error_line_in_the_stream_is_quoted(chunk, said) -> None:
    # passed over as a line of no known shape, the turn ended on "returned an empty reply"
    replay = Replay([httpx.Response(200, content=sse([chunk]))])
    with pytest.raises(LLMError) as caught:
        await run(client_for(replay))
    assert str(caught.value) == said


async def test_error_object_inside_the_stream() -> None:
    stream = sse([{"error": {"message": "upstream failed"}}], done=False)
    with pytest.raises(LLMError, match="upstream failed"):
        await run(client_for(Replay([httpx.Response(200, content=stream)])))


@pytest.mark.parametrize("status,message,expected", [
    (400, "This model's maximum context length is 8192 tokens", True),
    (400, "Range of input length should be [1, 30720]", True),
    (400, "prompt is too long: 210000 tokens > 200000 maximum", True),
    (400, "输入超过最大上下文长度", True),
    (413, "request too long", True),
    (400, "invalid tool schema", False),
    (500, "context length", False),
])
def test_context_length_wording(status, message, expected) -> None:
    assert is_context_length_error(status, message) is expected


@pytest.mark.parametrize("header,seconds", [("3", 3.0), ("0.5", 0.5), ("999", 999.0),
                                            ("-5", 0.0), ("nan", None), ("inf", None),
                                            (None, None), ("garbage", None)])
def test_retry_after_parsing(header, seconds) -> None:
    assert retry_after_seconds(header) == seconds


def test_client_repr_and_request_hide_the_key() -> None:
    client = client_for(Replay([]), key=KEY)
    assert KEY not in repr(client)
    assert KEY not in str(client.request_body([Message.user("x")]))


def _unsupported(request: httpx.Request) -> httpx.Response:
    raise httpx.UnsupportedProtocol(f"no handler for {request.headers['authorization']}",
                                    request=request)


def _undecodable(request: httpx.Request) -> httpx.Response:
    raise httpx.DecodingError("bad gzip", request=request)


@pytest.mark.parametrize("handler", [_unsupported, _undecodable])
async def test_other_httpx_errors_become_llm_errors_without_the_key(handler) -> None:
    # Any httpx failure reaches the loop as an LLMError (never a raw exception), scrubbed.
    replay = Replay([handler])
    with pytest.raises(LLMError) as info:
        await run(client_for(replay, key=KEY))
    assert KEY not in str(info.value) and "sk-test" not in str(info.value)
    assert len(replay.requests) == 1  # not retried


async def test_each_retry_is_announced_before_the_wait() -> None:
    """500 then 503 then a reply: two StreamRetry events (attempt 1 and 2 of 3, the delay
    that is then slept, the reason without the key) come before the first text."""
    replay = Replay([httpx.Response(500, json={"error": {"message": f"boom {KEY}"}}),
                     httpx.Response(503, headers={"Retry-After": "4"}, text="overloaded"),
                     httpx.Response(200, content=text_reply("ok"))])
    events = await run(client_for(replay, key=KEY))
    retries = [e for e in events if isinstance(e, StreamRetry)]
    assert [(r.attempt, r.max_retries) for r in retries] == [(1, 3), (2, 3)]
    assert retries[0].reason.startswith("HTTP 500: boom") and KEY not in retries[0].reason
    assert retries[1].reason == "HTTP 503: overloaded" and retries[1].delay_s == 4.0
    assert [r.delay_s for r in retries] == replay.slept
    assert isinstance(events[0], StreamRetry) and isinstance(events[2], StreamDelta)


async def test_a_cancel_while_the_next_line_is_already_read_stops_the_stream() -> None:
    """Found in tmux: after a long reply was on the screen (the app's loop slowed by its
    layout), Esc and Ctrl+C no longer stopped a streaming reply: it ran to its end. The
    cancel arrived while the next SSE line had just been read, and 3.11's wait_for returned
    that line and dropped the cancel. Cancelled at exactly that moment, the stream stops."""
    import asyncio

    from doubles.openai_mock import mock_client

    consumer: asyncio.Task | None = None

    async def body():
        yield sse([delta(role="assistant", content="")], done=False)
        for n in range(200):
            await asyncio.sleep(0)  # a read from the network
            if n == 5:
                assert consumer is not None
                consumer.cancel()  # the line below is read in the same step
            yield sse([delta(content=f"word{n} ")], done=False)
        yield sse([delta(finish="stop")])

    events: list = []

    async def consume() -> None:
        async for event in mock_client(body()).stream([Message.user("hi")]):
            events.append(event)

    consumer = asyncio.ensure_future(consume())
    await asyncio.gather(consumer, return_exceptions=True)
    assert consumer.cancelled()
    assert len(events) <= 8, len(events)  # not the 200 words that followed
