"""The Ollama client replays an NDJSON stream into the same events as the OpenAI client."""

from __future__ import annotations

import json

import httpx
import pytest

from paicli_tui.core.contracts.llm import ContextLengthExceeded, LLMError, StreamDelta, StreamDone
from paicli_tui.core.llm.ollama_client import OllamaClient, to_ollama_messages
from paicli_tui.core.messages import Message, ToolCall


def ndjson(parts: list[dict]) -> bytes:
    return "".join(json.dumps(p) + "\n" for p in parts).encode()


def part(content: str = "", done: bool = False, **extra) -> dict:
    message = {"role": "assistant", "content": content, **extra.pop("message", {})}
    return {"model": "qwen", "created_at": "2026-01-01T00:00:00Z", "message": message,
            "done": done, **extra}


def make(handler) -> OllamaClient:
    return OllamaClient(host="http://127.0.0.1:11434", model="qwen", window=32_768,
                        transport=httpx.MockTransport(handler))


async def test_text_and_thinking_stream_with_usage() -> None:
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, content=ndjson([
            part(message={"thinking": "hmm"}), part("Hel"), part("lo"),
            part("", done=True, done_reason="stop", prompt_eval_count=12, eval_count=3)]))

    client = make(handler)
    events = [e async for e in client.stream([Message.system("s"), Message.user("hi")])]
    assert "".join(e.text for e in events if isinstance(e, StreamDelta)) == "Hello"
    done = events[-1]
    assert isinstance(done, StreamDone)
    assert done.message.content == "Hello" and done.message.reasoning == "hmm"
    assert done.usage.prompt_tokens == 12 and done.usage.completion_tokens == 3
    assert seen[0]["stream"] is True and seen[0]["options"]["num_ctx"] == 32_768
    assert str(seen and "/api/chat")
    await client.aclose()


async def test_tool_calls_get_unique_ids_and_json_arguments() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=ndjson([
            part(message={"tool_calls": [
                {"function": {"name": "read_file", "arguments": {"path": "a.py"}}},
                {"function": {"name": "list_dir", "arguments": {}}}]}),
            part("", done=True, done_reason="stop")]))

    done = [e async for e in make(handler).stream([Message.user("x")])][-1]
    names = [(c.name, json.loads(c.arguments)) for c in done.tool_calls]
    assert names == [("read_file", {"path": "a.py"}), ("list_dir", {})]
    ids = [c.id for c in done.tool_calls]
    assert len(set(ids)) == 2 and all(i.startswith("call_") for i in ids)


def test_messages_translate_to_ollama_form() -> None:
    history = [Message.user("u"),
               Message.assistant("", [ToolCall("c1", "read_file", '{"path": "a"}')]),
               Message.tool("c1", "read_file", "content")]
    wire = to_ollama_messages(history)
    assert wire[1]["tool_calls"] == [{"function": {"name": "read_file",
                                                   "arguments": {"path": "a"}}}]
    assert wire[2] == {"role": "tool", "content": "content", "tool_name": "read_file"}


async def test_unfinished_stream_and_errors() -> None:
    def cut(request):
        return httpx.Response(200, content=ndjson([part("partial")]))

    with pytest.raises(LLMError):
        _ = [e async for e in make(cut).stream([Message.user("x")])]

    def too_long(request):
        return httpx.Response(400, json={"error": "input length exceeds the context length"})

    with pytest.raises(ContextLengthExceeded):
        _ = [e async for e in make(too_long).stream([Message.user("x")])]

    def missing(request):
        return httpx.Response(404, json={"error": "model 'qwen' not found"})

    with pytest.raises(LLMError, match="not found"):
        _ = [e async for e in make(missing).stream([Message.user("x")])]


async def test_a_reply_that_only_thought_until_the_limit_says_so() -> None:
    def thinking(request):
        return httpx.Response(200, content=ndjson([
            part(message={"thinking": "step by step " * 10}),
            part("", done=True, done_reason="length")]))

    with pytest.raises(LLMError, match=r"^ollama stopped the reply at the model's output "
                                       r"limit before any answer or tool call \(it was still "
                                       r"thinking: 130 characters of reasoning\)$"):
        _ = [e async for e in make(thinking).stream([Message.user("x")])]


async def test_agent_turn_through_ollama(settings, project_dir) -> None:
    from paicli_tui.core.agent.session import AgentSession

    (project_dir / "a.txt").write_text("alpha\n")
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append(body)
        if len(seen) == 1:
            return httpx.Response(200, content=ndjson([
                part(message={"tool_calls": [
                    {"function": {"name": "read_file", "arguments": {"path": "a.txt"}}}]}),
                part("", done=True, done_reason="stop", prompt_eval_count=900, eval_count=5)]))
        return httpx.Response(200, content=ndjson([part("It says alpha."),
                                                   part("", done=True, done_reason="stop")]))

    session = await AgentSession.start(settings, project_dir, client=make(handler))
    events = [e async for e in session.run_turn("what is in a.txt?")]
    assert events[-1].reason == "done" and events[-1].final_text == "It says alpha."
    second = seen[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool"]
    assert second[2]["tool_calls"][0]["function"]["arguments"] == {"path": "a.txt"}
    assert second[3]["tool_name"] == "read_file" and "alpha" in second[3]["content"]
    assert seen[0]["tools"] and seen[0]["tools"][0]["function"]["name"] == "read_file"
    await session.aclose()


def endless(handler_parts, pause_s: float = 0.0):
    """A handler streaming ``handler_parts()`` NDJSON lines until the safety bound."""
    sent = {"parts": 0}

    async def body():
        import asyncio

        while sent["parts"] < 200_000:  # the safety bound: a client without caps still ends
            if pause_s:
                await asyncio.sleep(pause_s)
            sent["parts"] += 1
            yield (json.dumps(handler_parts()) + "\n").encode()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body())

    return handler, sent


async def test_a_reply_that_never_ends_is_cut_at_the_reply_cap() -> None:
    # a small local model repeating itself streams until stopped: the OpenAI client had a
    # reply cap and a total deadline, the Ollama client neither
    handler, sent = endless(lambda: part("again "))
    client = OllamaClient(host="http://127.0.0.1:11434", model="qwen", window=32_768,
                          max_reply_chars=6_000, transport=httpx.MockTransport(handler))
    done = [e async for e in client.stream([Message.user("x")])][-1]
    assert isinstance(done, StreamDone) and done.finish_reason == "length"
    assert done.message.content.startswith("again " * 1_000)
    assert done.message.content.endswith("[reply cut: ollama sent more than 6,000 characters; "
                                         "the rest was not read]")
    assert done.tool_calls == () and sent["parts"] == 1_001
    await client.aclose()


async def test_a_reply_trickling_forever_stops_at_the_total_deadline() -> None:
    handler, sent = endless(lambda: part("."), pause_s=0.05)
    client = OllamaClient(host="http://127.0.0.1:11434", model="qwen", window=32_768,
                          total_timeout=0.5, transport=httpx.MockTransport(handler))
    with pytest.raises(LLMError, match="longer than the 0.5 s cap"):
        [e async for e in client.stream([Message.user("x")])]
    assert sent["parts"] < 100
    await client.aclose()


async def test_a_cancel_while_the_next_part_is_already_read_stops_the_stream() -> None:
    """As the OpenAI client's (7d0c0af): 3.11's wait_for returned a part that was ready and
    dropped the cancel (Esc) that came with it; the Ollama stream shares the wait."""
    import asyncio

    consumer: asyncio.Task | None = None

    async def body():
        for n in range(200):
            await asyncio.sleep(0)  # a read from the network
            if n == 5:
                assert consumer is not None
                consumer.cancel()  # the part below is read in the same step
            yield ndjson([part(f"word{n} ")])
        yield ndjson([part("", done=True, done_reason="stop")])

    events: list = []

    async def consume() -> None:
        client = make(lambda request: httpx.Response(200, content=body()))
        async for event in client.stream([Message.user("hi")]):
            events.append(event)

    consumer = asyncio.ensure_future(consume())
    await asyncio.gather(consumer, return_exceptions=True)
    assert consumer.cancelled()
    assert len(events) <= 8, len(events)  # not the 200 words that followed


async def test_usage_counts_are_never_negative_nor_past_any_count() -> None:
    # the same reading as the OpenAI client's usage block (a proxy in front of Ollama
    # can write anything); a negative count used to reach the gauge and the ledger
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=ndjson([
            part("ok", done=True, done_reason="stop", prompt_eval_count=-5,
                 eval_count=10 ** 400)]))

    client = make(handler)
    done = [e async for e in client.stream([Message.user("x")])][-1]
    assert isinstance(done, StreamDone) and done.message.content == "ok"
    assert done.usage.prompt_tokens == 0 and done.usage.completion_tokens == 0
    await client.aclose()


@pytest.mark.parametrize("system,sent", [
    ("Project root: /srv/caf\udce9", "Project root: /srv/caf\ufffd"),  # b'caf\xe9' folder
    ("Project root: /srv/café", "Project root: /srv/café"),
])
async def test_a_folder_name_that_is_not_utf8_reaches_ollama(system, sent) -> None:
    """Every turn in a folder whose name is not UTF-8 failed with UnicodeEncodeError
    ('surrogates not allowed') as the OpenAI client's did: the system prompt names the
    project root. The byte goes as U+FFFD, the rest as it is."""
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, content=ndjson([part("ok", done=True,
                                                        done_reason="stop")]))

    client = make(handler)
    events = [e async for e in client.stream([Message.system(system), Message.user("hi")])]
    assert isinstance(events[-1], StreamDone)
    assert seen[0]["messages"][0]["content"] == sent
    await client.aclose()
