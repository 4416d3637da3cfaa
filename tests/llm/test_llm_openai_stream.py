"""The OpenAI-compatible client assembles recorded provider streams correctly."""

from __future__ import annotations

import json

import httpx
import pytest
from doubles.llm_replay import Replay, client_for, delta, sse, text_reply
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from paicli_tui.core.contracts.llm import StreamDelta, StreamDone
from paicli_tui.core.llm.assembly import ReplyAssembler, parse_usage
from paicli_tui.core.messages import Message, ToolCall


async def collect(client, messages=None, tools=()):
    events = []
    async for event in client.stream(messages or [Message.user("hi")], tools):
        events.append(event)
    return events


async def test_plain_text_reply_streams_deltas_then_done() -> None:
    replay = Replay([httpx.Response(200, content=text_reply("Hello", {"prompt_tokens": 7,
                                                                       "completion_tokens": 2}))])
    events = await collect(client_for(replay))
    assert isinstance(events[0], StreamDelta) and events[0].text == "Hello"
    done = events[-1]
    assert isinstance(done, StreamDone)
    assert done.message.content == "Hello" and done.finish_reason == "stop"
    assert done.usage.prompt_tokens == 7 and done.usage.completion_tokens == 2
    body = replay.bodies()[0]
    assert body["stream"] is True and body["model"] == "m1"
    assert body["stream_options"] == {"include_usage": True}
    assert replay.requests[0].url.path == "/v1/chat/completions"
    assert replay.requests[0].headers["authorization"] == "Bearer sk-test-secret-key-123456"


async def test_deepseek_reasoning_content_is_kept_and_sent_back() -> None:
    stream = sse([delta(role="assistant", reasoning_content="Let me "),
                  delta(reasoning_content="think."), delta(content="Answer"),
                  delta(finish="stop"),
                  {"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                            "prompt_cache_hit_tokens": 8,
                                            "prompt_cache_miss_tokens": 2}}])
    replay = Replay([httpx.Response(200, content=stream), httpx.Response(200,
                                                                         content=text_reply("ok"))])
    client = client_for(replay, send_reasoning=True)
    events = await collect(client)
    reasoning = "".join(e.reasoning for e in events if isinstance(e, StreamDelta))
    assert reasoning == "Let me think."
    done = events[-1]
    assert done.message.reasoning == "Let me think." and done.message.content == "Answer"
    assert done.usage.cached_tokens == 8
    await collect(client, [Message.user("hi"), done.message, Message.user("more")])
    sent = replay.bodies()[1]["messages"][1]
    assert sent["reasoning_content"] == "Let me think."


async def test_reasoning_not_sent_back_to_providers_that_do_not_need_it() -> None:
    replay = Replay([httpx.Response(200, content=text_reply("ok"))])
    await collect(client_for(replay, send_reasoning=False),
                  [Message.user("a"), Message.assistant("b", reasoning="secret thoughts"),
                   Message.user("c")])
    assert "reasoning_content" not in replay.bodies()[0]["messages"][1]


@pytest.mark.parametrize("field,value", [
    ("reasoning", "via reasoning"),
    ("reasoning_details", [{"type": "reasoning.text", "text": "via details"}]),
])
async def test_other_reasoning_fields(field, value) -> None:
    replay = Replay([httpx.Response(200, content=sse([delta(**{field: value}),
                                                      delta(content="x", finish="stop")]))])
    done = (await collect(client_for(replay)))[-1]
    assert done.message.reasoning.startswith("via")


@pytest.mark.parametrize("usage,cached", [
    ({"prompt_tokens": 100, "cached_tokens": 40}, 40),                       # Kimi
    ({"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": 64}}, 64),   # GLM/OpenAI
    ({"prompt_tokens": 100, "prompt_cache_hit_tokens": 90}, 90),             # DeepSeek
    ({"prompt_tokens": 100, "input_cache_hit_tokens": 12}, 12),
    ({"input_tokens": 100, "input_tokens_details": {"cached_tokens": 5}}, 5),
    # later fields override earlier ones (behaviour §8 order)
    ({"prompt_tokens": 100, "cached_tokens": 1, "prompt_cache_hit_tokens": 2}, 2),
    ({"prompt_tokens": 100, "cached_tokens": 1, "prompt_tokens_details": {"cached_tokens": 3},
      "input_tokens_details": {"cached_tokens": 4}}, 4),
    ({"prompt_tokens": 100, "prompt_cache_hit_tokens": 9, "input_cache_hit_tokens": 0}, 0),
    ({"prompt_tokens": 100}, 0),
])
def test_cache_hit_fields_in_spec_order(usage, cached) -> None:
    assert parse_usage(usage).cached_tokens == cached
    assert parse_usage(usage).prompt_tokens == 100


async def test_glm_cache_field_in_stream() -> None:
    stream = sse([delta(content="hi", finish="stop"),
                  {"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 1,
                                            "prompt_tokens_details": {"cached_tokens": 48}}}])
    done = (await collect(client_for(Replay([httpx.Response(200, content=stream)]))))[-1]
    assert done.usage.cached_tokens == 48


async def test_tool_call_arguments_split_across_many_chunks() -> None:
    arguments = json.dumps({"path": "src/main.py", "offset": 10, "note": "多字节 ✓"},
                           ensure_ascii=False)
    pieces = [arguments[i:i + 3] for i in range(0, len(arguments), 3)]
    chunks = [delta(tool_calls=[{"index": 0, "id": "call_abc", "type": "function",
                                 "function": {"name": "read_file", "arguments": ""}}])]
    chunks += [delta(tool_calls=[{"index": 0, "function": {"arguments": p}}]) for p in pieces]
    chunks.append(delta(finish="tool_calls"))
    done = (await collect(client_for(Replay([httpx.Response(200, content=sse(chunks))]))))[-1]
    assert done.tool_calls == (ToolCall("call_abc", "read_file", arguments),)
    assert done.message.tool_calls == done.tool_calls
    assert done.finish_reason == "tool_calls"


async def test_parallel_calls_interleaved_by_index() -> None:
    chunks = [
        delta(content="Reading both."),
        delta(tool_calls=[{"index": 0, "id": "a", "function": {"name": "read_file",
                                                               "arguments": '{"pa'}}]),
        delta(tool_calls=[{"index": 1, "id": "b", "function": {"name": "list_dir",
                                                               "arguments": '{"pa'}}]),
        delta(tool_calls=[{"index": 0, "function": {"arguments": 'th": "x"}'}},
                          {"index": 1, "function": {"arguments": 'th": "."}'}}]),
        delta(finish="tool_calls"),
    ]
    done = (await collect(client_for(Replay([httpx.Response(200, content=sse(chunks))]))))[-1]
    assert [(c.id, c.name, json.loads(c.arguments)) for c in done.tool_calls] == [
        ("a", "read_file", {"path": "x"}), ("b", "list_dir", {"path": "."})]
    assert done.message.content == "Reading both."


async def test_missing_ids_become_call_index_and_nameless_slots_are_dropped() -> None:
    chunks = [
        delta(tool_calls=[{"index": 0, "function": {"name": "list_dir", "arguments": "{}"}}]),
        delta(tool_calls=[{"index": 1, "function": {"arguments": '{"x": 1}'}}]),  # no name
        delta(tool_calls=[{"index": 2, "function": {"name": "read_file",
                                                    "arguments": '{"path": "a"}'}}]),
        delta(finish="tool_calls"),
    ]
    done = (await collect(client_for(Replay([httpx.Response(200, content=sse(chunks))]))))[-1]
    assert [(c.id, c.name) for c in done.tool_calls] == [("call_0", "list_dir"),
                                                         ("call_2", "read_file")]


def test_calls_without_index_are_grouped_by_id() -> None:
    assembler = ReplyAssembler()
    assembler.feed(delta(tool_calls=[{"id": "x1", "function": {"name": "a", "arguments": "{"}}]))
    assembler.feed(delta(tool_calls=[{"function": {"arguments": "}"}}]))
    assembler.feed(delta(tool_calls=[{"id": "x2", "function": {"name": "b", "arguments": "{}"}}]))
    assembler.feed(delta(finish="tool_calls"))
    calls = assembler.finish().tool_calls
    assert [(c.id, c.name, c.arguments) for c in calls] == [("x1", "a", "{}"), ("x2", "b", "{}")]


async def test_tools_are_sent_when_given() -> None:
    replay = Replay([httpx.Response(200, content=text_reply("ok"))])
    schema = {"type": "function", "function": {"name": "t", "description": "d",
                                               "parameters": {"type": "object"}}}
    await collect(client_for(replay), tools=[schema])
    assert replay.bodies()[0]["tools"] == [schema]


async def test_finish_reason_without_done_marker_is_a_complete_reply() -> None:
    stream = sse([delta(content="fine"), delta(finish="stop")], done=False)
    done = (await collect(client_for(Replay([httpx.Response(200, content=stream)]))))[-1]
    assert done.message.content == "fine"


async def test_server_that_ignores_stream_true_still_works() -> None:
    completion = {"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Calling.", "tool_calls": [
            {"id": "x", "type": "function",
             "function": {"name": "list_dir", "arguments": "{}"}}]}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 2}}
    events = await collect(client_for(Replay([httpx.Response(200, json=completion)])))
    done = events[-1]
    assert isinstance(events[0], StreamDelta) and events[0].text == "Calling."
    assert done.tool_calls == (ToolCall("x", "list_dir", "{}"),)
    assert done.usage.prompt_tokens == 9


async def test_tool_call_messages_always_carry_reasoning_for_thinking_providers() -> None:
    replay = Replay([httpx.Response(200, content=text_reply("ok"))] * 2)
    history = [Message.user("a"),
               Message.assistant("", [ToolCall("c1", "list_dir", "{}")]),  # no reasoning
               Message.tool("c1", "list_dir", "x"), Message.assistant("plain answer")]
    await collect(client_for(replay, send_reasoning=True), history)
    sent = replay.bodies()[0]["messages"]
    assert sent[1]["reasoning_content"] == "" and "reasoning_content" not in sent[3]
    await collect(client_for(replay, send_reasoning=False), history)
    assert "reasoning_content" not in replay.bodies()[1]["messages"][1]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=6)


@hypothesis_settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(["prompt_tokens", "completion_tokens", "input_tokens",
                                        "output_tokens", "cached_tokens",
                                        "prompt_cache_hit_tokens", "prompt_tokens_details"]),
                       json_values, max_size=5))
def test_any_usage_block_reads_as_counts_that_are_never_negative(usage: dict) -> None:
    report = parse_usage(usage)  # never raises, whatever a provider (or a proxy) wrote
    assert report is not None
    for number in (report.prompt_tokens, report.completion_tokens, report.cached_tokens):
        assert type(number) is int and number >= 0
