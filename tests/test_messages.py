"""Messages in the OpenAI wire form, and their round trip through the ledger record form."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paicli_tui.core.messages import (
    ImagePart,
    InternalKind,
    Message,
    Role,
    ToolCall,
    to_openai_messages,
)


def test_assistant_with_tool_calls_on_the_wire() -> None:
    m = Message.assistant("", [ToolCall("call_1", "read_file", '{"path": "a.py"}')],
                          reasoning="think")
    wire = m.to_openai()
    assert wire == {
        "role": "assistant", "content": None,
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}],
    }
    assert m.to_openai(include_reasoning=True)["reasoning_content"] == "think"


def test_tool_and_image_messages() -> None:
    t = Message.tool("call_1", "read_file", "data")
    assert t.to_openai() == {"role": "tool", "content": "data", "tool_call_id": "call_1"}
    u = Message.user("look", images=[ImagePart("image/png", data_base64="AAAA")])
    wire = u.to_openai()
    assert wire["content"][1]["image_url"]["url"] == "data:image/png;base64,AAAA"
    assert wire["content"][0] == {"type": "text", "text": "look"}


def test_record_round_trip_keeps_everything() -> None:
    m = Message(Role.USER, "guard", internal=InternalKind.RUNAWAY_GUARD, meta={"x": 1},
                images=(ImagePart(url="http://example.invalid/a.png"),))
    back = Message.from_record(m.to_record())
    assert back == m and back.id == m.id and back.meta == {"x": 1}
    stripped = m.to_record(strip_images=True)
    assert "images" not in stripped and stripped["images_stripped"] == 1
    assert not m.is_real_user_turn and Message.user("hi").is_real_user_turn


def test_malformed_arguments_parse_to_empty() -> None:
    assert ToolCall("c", "x", "{not json").parsed_arguments() == {}
    assert ToolCall("c", "x", "[1]").parsed_arguments() == {}


WIRE_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
WIRE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _exchange(calls: list[tuple[str, str]]) -> list[dict]:
    """An assistant message with these (id, name) calls and one result each, on the wire."""
    history = [Message.assistant("", [ToolCall(i, n, "{}") for i, n in calls]),
               *(Message.tool(i, n, "result") for i, n in calls)]
    return to_openai_messages(history)


# Ids and names other servers gave, sent back to a strict provider: OpenAI answers HTTP 400
# to an id over 40 characters ("string too long") or a name outside [A-Za-z0-9_-] ("does not
# match pattern"), gateways to Anthropic or Gemini to an id outside it. The history keeps
# the call, so every later request of the session was refused: one model slip, or one
# switch of provider (/model) after a vLLM or Kimi reply, and the session could not go on.
@pytest.mark.parametrize(("call_id", "name"), [
    ("chatcmpl-tool-" + "0123456789abcdef" * 2, "read_file"),   # vLLM: 46 characters
    ("functions.read_file:0", "read_file"),                    # Kimi K2
    ("call 1", "read_file"),
    ("call_1", "functions.read_file"),                         # a model's slip
    ("call_2", "read file"),
    ("call_3", "x" * 65),
    ("call_4", "读取文件"),
])
def test_ids_and_names_are_sent_as_strict_providers_accept_them(call_id: str,
                                                               name: str) -> None:
    wire = _exchange([(call_id, name)])
    sent = wire[0]["tool_calls"][0]
    assert WIRE_ID.fullmatch(sent["id"]) and WIRE_NAME.fullmatch(sent["function"]["name"])
    assert wire[1]["tool_call_id"] == sent["id"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.text(min_size=1, max_size=60), st.text(min_size=1, max_size=80)),
                min_size=1, max_size=6, unique_by=lambda c: c[0]))
def test_any_ids_and_names_go_out_acceptable_paired_and_distinct(calls) -> None:
    wire = _exchange(calls)
    sent = wire[0]["tool_calls"]
    ids = [c["id"] for c in sent]
    assert all(WIRE_ID.fullmatch(i) for i in ids) and len(set(ids)) == len(ids)
    assert all(WIRE_NAME.fullmatch(c["function"]["name"]) for c in sent)
    assert [m["tool_call_id"] for m in wire[1:]] == ids
    for (call_id, name), out in zip(calls, sent, strict=True):  # acceptable ones unchanged
        if WIRE_ID.fullmatch(call_id):
            assert out["id"] == call_id
        if WIRE_NAME.fullmatch(name):
            assert out["function"]["name"] == name
