"""Attack table, the model at its protocol: a server whose stream line never ends, error and
whole-JSON answers without end, and streams of thousands of tool-call pieces. The server is
faked at its protocol (httpx.MockTransport, no network); each attempt counts what the server
had to send before the client stopped reading. One test per attempt."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator

import pytest
from doubles.openai_mock import collect, mock_client
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts.events import AgentError, TurnFinished, Usage
from paicli_tui.core.contracts.llm import LLMError, StreamDone
from paicli_tui.core.llm.assembly import MAX_NAME_CHARS, ReplyAssembler

SAFETY_BYTES = 40_000_000
"""Every endless body stops here, so a client without the bounds still ends the test."""


class Endless:
    """A body that repeats ``piece`` after ``head`` (until the safety bound), counting."""

    def __init__(self, head: bytes, piece: bytes, pause_s: float = 0.0) -> None:
        self.head, self.piece, self.pause_s = head, piece, pause_s
        self.sent = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        self.sent = len(self.head)
        yield self.head
        while self.sent < SAFETY_BYTES:
            if self.pause_s:
                await asyncio.sleep(self.pause_s)
            self.sent += len(self.piece)
            yield self.piece


async def test_a_stream_line_that_never_ends_is_cut_at_the_line_bound() -> None:
    # 'data: {"…": "aaaa…' with no line break, ever: the whole line used to be kept in
    # memory (40 MB here; without end until the 30-minute total deadline in real use)
    body = Endless(b'data: {"choices":[{"index":0,"delta":{"content":"', b"a" * 65_536)
    events = await collect(mock_client(body, max_reply_chars=1_000))
    done = events[-1]
    assert isinstance(done, StreamDone) and done.finish_reason == "length"
    assert "reply cut: fake sent more than 1,000 characters" in done.message.content
    assert body.sent <= 2 * 65_536  # the line bound (64 K characters at this reply cap)


async def test_one_huge_chunk_keeps_only_the_reply_cap_of_its_text() -> None:
    text = "b" * 60_000  # one whole line, below the line bound, far above the reply cap
    line = json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]})
    body = f"data: {line}\n\ndata: [DONE]\n\n".encode()
    events = await collect(mock_client(body, max_reply_chars=1_000))
    done = events[-1]
    assert isinstance(done, StreamDone) and done.finish_reason == "length"
    assert done.message.content.startswith("b" * 1_000)
    assert done.message.content[1_000:].startswith("\n\n[reply cut:")


async def test_an_error_answer_without_end_is_read_to_64_kib() -> None:
    body = Endless(b'{"error": {"message": "overloaded ', b"z" * 65_536)
    with pytest.raises(LLMError, match="HTTP 500") as caught:
        await collect(mock_client(body, status=500, content_type="application/json"))
    assert "too long or too slow" in str(caught.value)
    assert body.sent <= 3 * 65_536


async def test_an_error_answer_that_drips_ends_within_the_idle_timeout() -> None:
    body = Endless(b'{"error": {"message": "', b"z", pause_s=0.05)
    started = time.monotonic()
    with pytest.raises(LLMError, match="HTTP 503"):
        await collect(mock_client(body, status=503, content_type="application/json",
                                  timeout=0.5))
    assert time.monotonic() - started < 30  # a hang guard; the bound itself is 0.5 s
    assert body.sent < 200  # about ten drops in half a second, not the 40 MB safety bound


async def test_a_whole_json_reply_without_end_is_refused_at_its_bound() -> None:
    # a server that ignores stream=true answers one JSON document: bounded like the stream
    body = Endless(b'{"choices":[{"message":{"content":"', b"c" * 65_536)
    with pytest.raises(LLMError, match="sent a reply of more than 65,536 bytes"):
        await collect(mock_client(body, content_type="application/json", max_reply_chars=1_000))
    assert body.sent <= 2 * 65_536


def _call_chunk(call: dict) -> dict:
    return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}


def test_thousands_of_calls_without_an_index_each_find_their_slot_and_count() -> None:
    # each chunk opens a call by a new id and no index: finding the slot used to read every
    # slot (20,000 such calls took 27 s of the event loop, now 0.06 s); ids and names did
    # not count towards the reply cap
    calls = 2_000
    assembler = ReplyAssembler()
    for i in range(calls):
        assembler.feed(_call_chunk({"id": f"c{i}", "function": {"name": "list_dir",
                                                                "arguments": "{}"}}))
        # the id's later piece without an index finds its own slot again
        assembler.feed(_call_chunk({"id": f"c{i}", "function": {"arguments": " "}}))
    assembled = assembler.tool_calls()
    assert [c.id for c in assembled[:3]] == ["c0", "c1", "c2"]
    assert len(assembled) == calls and assembled[-1].id == f"c{calls - 1}"
    assert assembled[0].arguments == "{}"
    assert assembler.size == calls * (len("c0") + len("list_dir") + 3) + sum(
        len(str(i)) - 1 for i in range(calls))  # ids, names and arguments all count


def test_a_name_sent_in_endless_pieces_stops_growing_and_counts_towards_the_cap() -> None:
    assembler = ReplyAssembler()
    for i in range(20_000):
        assembler.feed(_call_chunk({"index": 0, "function": {"name": "ab"[i % 2] * 100}}))
    (call,) = assembler.tool_calls()
    assert len(call.name) == MAX_NAME_CHARS
    assert assembler.size == 2_000_000  # before: 0, so the reply cap never saw them


async def test_a_stream_of_endless_name_pieces_is_cut_at_the_reply_cap() -> None:
    piece = f"data: {json.dumps(_call_chunk({'index': 0, 'function': {'name': 'x' * 100}}))}\n\n"
    body = Endless(b"", piece.encode())
    events = await collect(mock_client(body, max_reply_chars=10_000))
    done = events[-1]
    assert isinstance(done, StreamDone) and done.finish_reason == "length"
    # 10,000 characters of names = 100 pieces; the one over the cap is the last read
    assert done.tool_calls == () and body.sent == 101 * len(piece)


async def test_a_stream_line_nested_past_the_recursion_limit_is_skipped_like_garbage() -> None:
    # json.loads raised RecursionError for it, which no handler of the stream expected
    text = json.dumps({"choices": [{"index": 0, "delta": {"content": "kept"},
                                    "finish_reason": "stop"}]})
    body = (b"data: " + b"[" * 100_000 + b"\n\n" + f"data: {text}\n\ndata: [DONE]\n\n".encode())
    events = await collect(mock_client(body))
    assert isinstance(events[-1], StreamDone) and events[-1].message.content == "kept"


async def test_an_error_body_nested_past_the_recursion_limit_still_says_the_status() -> None:
    with pytest.raises(LLMError, match="HTTP 400"):
        await collect(mock_client(b"[" * 60_000, status=400, content_type="application/json"))


# A usage block is the provider's word about tokens: JSON allows numbers no int holds
# (1e400 is infinity to Python, and so is the Infinity literal Python's json accepts),
# and a broken proxy reports negatives. Reading one used to raise OverflowError out of the
# stream: the turn ended with "unexpected failure" and the reply that had arrived was lost.
@pytest.mark.parametrize("raw", [
    '1e400', '-1e400', 'Infinity', '-Infinity', 'NaN', '-5', '-1.5', '"-7"', '1e30',
    '"1e400"', '[1]', '{"a": 1}', 'true', 'null', '"x"',
])
async def test_an_absurd_usage_number_keeps_the_reply(raw: str) -> None:
    usage = (f'{{"prompt_tokens": {raw}, "completion_tokens": {raw}, '
             f'"prompt_tokens_details": {{"cached_tokens": {raw}}}}}')
    text = json.dumps({"choices": [{"index": 0, "delta": {"content": "kept"},
                                    "finish_reason": "stop"}]})
    body = f'data: {text}\n\ndata: {{"choices": [], "usage": {usage}}}\n\ndata: [DONE]\n\n'
    events = await collect(mock_client(body.encode()))
    done = events[-1]
    assert isinstance(done, StreamDone) and done.message.content == "kept"
    assert done.usage is not None
    numbers = (done.usage.prompt_tokens, done.usage.completion_tokens,
               done.usage.cached_tokens)
    assert all(type(n) is int and n >= 0 for n in numbers)


# A JSON integer of 400 digits is a whole int to Python, so it passed as a count; the
# turn then divided it by the estimate (OverflowError: too large for a float) and ended
# with "unexpected failure", the reply that had arrived lost.
async def test_a_usage_count_of_400_digits_keeps_the_turn(settings, project_dir) -> None:
    huge = "1" + "0" * 400
    text = json.dumps({"choices": [{"index": 0, "delta": {"content": "kept"},
                                    "finish_reason": "stop"}]})
    usage = f'{{"prompt_tokens": {huge}, "completion_tokens": {huge}}}'
    body = f'data: {text}\n\ndata: {{"choices": [], "usage": {usage}}}\n\ndata: [DONE]\n\n'
    client = mock_client(body.encode())
    session = await AgentSession.start(settings, project_dir, client=client)
    try:
        events = [event async for event in session.run_turn("hi")]
    finally:
        await client.aclose()
    assert not [e for e in events if isinstance(e, AgentError)]
    assert isinstance(events[-1], TurnFinished) and events[-1].reason == "done"
    assert session.history[-1].content == "kept"
    reported = [e for e in events if isinstance(e, Usage)]
    assert reported and reported[0].prompt_tokens == 0 and reported[0].completion_tokens == 0


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["choices", "delta", "message", "content", "tool_calls", "function",
                         "name", "arguments", "index", "id", "usage", "finish_reason",
                         "reasoning_content", "reasoning_details", "x"]), inner, max_size=4),
    max_leaves=12)


# A chunk of the right JSON but the wrong shape ("delta": "x", "choices": 5, "tool_calls": 5)
# raised AttributeError or TypeError out of the stream: the turn ended with "unexpected
# failure" and the reply that had arrived was lost, where a line that is not JSON at all is
# skipped. Any chunk is read for what it holds, the rest ignored.
@hypothesis_settings(max_examples=300, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(["choices", "usage", "x"]), _json, max_size=3))
def test_a_chunk_of_any_shape_never_breaks_the_reply(garbage: dict) -> None:
    assembler = ReplyAssembler()
    assembler.feed({"choices": [{"index": 0, "delta": {"content": "kept "}}]})
    assembler.feed(garbage)
    assembler.feed({"choices": [{"index": 0, "delta": {"content": "too"},
                                 "finish_reason": "stop"}]})
    done = assembler.finish()
    assert done.message.content.startswith("kept ") and done.message.content.endswith("too")


@pytest.mark.parametrize("garbage", [
    {"choices": [{"delta": "x"}]}, {"choices": [{"delta": ["a"]}]}, {"choices": [{"message": 5}]},
    {"choices": 5}, {"choices": [{"delta": {"tool_calls": 5}}]},
])
async def test_a_chunk_of_the_wrong_shape_keeps_the_reply(garbage: dict) -> None:
    text = json.dumps({"choices": [{"index": 0, "delta": {"content": "kept"},
                                    "finish_reason": "stop"}]})
    body = f"data: {json.dumps(garbage)}\n\ndata: {text}\n\ndata: [DONE]\n\n".encode()
    events = await collect(mock_client(body))
    assert isinstance(events[-1], StreamDone) and events[-1].message.content == "kept"
