"""Messages in the OpenAI wire form, and their round trip through the ledger record form."""

from __future__ import annotations

from paicli_tui.core.messages import ImagePart, InternalKind, Message, Role, ToolCall


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
