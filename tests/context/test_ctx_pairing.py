"""Pairing checks and repair for loaded or interrupted histories."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.core.context.pairing import (
    pairing_problems,
    repair_pairing,
    with_sendable_arguments,
)
from paicli_tui.core.messages import Message, Role, ToolCall


def _calls(*ids: str) -> Message:
    return Message.assistant(tool_calls=[ToolCall(i, "read_file", "{}") for i in ids])


def test_valid_history_is_untouched() -> None:
    msgs = [Message.system("s"), Message.user("u"), _calls("a", "b"),
            Message.tool("b", "read_file", "1"), Message.tool("a", "read_file", "2"),
            Message.assistant("done")]
    assert pairing_problems(msgs) == []
    out, notes = repair_pairing(msgs)
    assert notes == [] and all(x is y for x, y in zip(out, msgs, strict=True))


def test_orphan_result_dropped() -> None:
    msgs = [Message.user("u"), Message.tool("ghost", "read_file", "x"), Message.assistant("ok")]
    assert pairing_problems(msgs)
    out, notes = repair_pairing(msgs)
    assert [m.role for m in out] == [Role.USER, Role.ASSISTANT] and notes
    assert pairing_problems(out) == []


def test_dangling_call_answered() -> None:
    msgs = [Message.user("u"), _calls("a", "b"), Message.tool("a", "read_file", "x")]
    out, notes = repair_pairing(msgs)
    assert pairing_problems(out) == []
    assert out[-1].tool_call_id == "b" and "may have run" in out[-1].content.lower()
    assert out[-1].meta["synthetic"] is True and any("'b'" in n for n in notes)


def test_result_after_interruption_and_duplicates() -> None:
    msgs = [Message.user("u"), _calls("a"), Message.user("interrupt"),
            Message.tool("a", "read_file", "late"), _calls("c", "c"),
            Message.tool("c", "read_file", "1"), Message.tool("c", "read_file", "dup")]
    assert len(pairing_problems(msgs)) >= 3
    out, _ = repair_pairing(msgs)
    assert pairing_problems(out) == []
    assert [m.role for m in out] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.USER,
                                     Role.ASSISTANT, Role.TOOL]
    assert "may have run" in out[2].content.lower()  # the late result is not moved across a user turn
    assert [c.id for c in out[4].tool_calls] == ["c"] and out[5].content == "1"


def test_empty() -> None:
    assert pairing_problems([]) == [] and repair_pairing([]) == ([], [])


@pytest.mark.parametrize(
    ("assistant", "kept"),
    [
        (Message.assistant(""), False),
        (Message.assistant("   \n"), False),
        (Message.assistant("", reasoning="thinking only"), False),
        (Message.assistant("ok"), True),
        (_calls("z"), True),
    ],
)
def test_empty_assistant_messages_are_never_sent(assistant: Message, kept: bool) -> None:
    # A loaded session can hold an assistant message providers refuse (no text, no calls).
    tail = [Message.tool("z", "read_file", "r")] if assistant.tool_calls else []
    msgs = [Message.user("u"), assistant, *tail, Message.user("next")]
    assert (pairing_problems(msgs) == []) is kept
    out, notes = repair_pairing(msgs)
    assert (assistant in out) is kept and bool(notes) is not kept
    assert pairing_problems(out) == []


@pytest.mark.parametrize(
    ("arguments", "sent"),
    [
        ('{"path": "a.txt"}', '{"path": "a.txt"}'),
        ("{}", "{}"),
        ('{"path": "a.t', '{"invalid_arguments": "{\\"path\\": \\"a.t"}'),
        ("[1, 2]", '{"invalid_arguments": "[1, 2]"}'),
        ("", '{"invalid_arguments": ""}'),
    ],
)
def test_tool_call_arguments_are_always_sent_as_a_json_object(arguments: str, sent: str) -> None:
    message = Message.assistant(tool_calls=[ToolCall("a", "read_file", arguments)])
    out = with_sendable_arguments(message)
    assert out.tool_calls[0].arguments == sent and out.id == message.id
    assert (out is message) is (arguments == sent)


def test_loaded_history_with_malformed_arguments_is_repaired() -> None:
    # An older ledger may hold a call whose arguments are not JSON: flagged and repaired,
    # with its result still paired.
    bad = Message.assistant(tool_calls=[ToolCall("a", "read_file", '{"path": ')])
    msgs = [Message.user("u"), bad, Message.tool("a", "read_file", "r")]
    assert pairing_problems(msgs)
    out, notes = repair_pairing(msgs)
    assert pairing_problems(out) == [] and notes
    assert out[1].id == bad.id and out[1].tool_calls[0].arguments.startswith('{"invalid_arg')
    assert out[2] is msgs[2]


_IDS = st.sampled_from(["a", "b", "c", "d"])
_ARGS = st.sampled_from(["{}", '{"path": "x"}', '{"path": ', "[]", ""])
_ANY_MESSAGE = st.one_of(
    st.builds(lambda t: Message.user(t), st.sampled_from(["u", "v"])),
    st.builds(lambda t: Message.assistant(t), st.sampled_from(["", " ", "ok"])),
    st.builds(lambda calls, t: Message.assistant(t, [ToolCall(i, "read_file", a)
                                                     for i, a in calls]),
              st.lists(st.tuples(_IDS, _ARGS), min_size=1, max_size=3),
              st.sampled_from(["", "thinking"])),
    st.builds(lambda i: Message.tool(i, "read_file", "r"), _IDS),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ANY_MESSAGE, max_size=14))
def test_repair_makes_any_history_sendable_and_is_idempotent(msgs: list[Message]) -> None:
    # Loaded sessions can hold anything: after one repair a provider accepts the history,
    # and a second repair changes nothing.
    out, _ = repair_pairing(msgs)
    assert pairing_problems(out) == []
    again, notes = repair_pairing(out)
    assert notes == [] and all(x is y for x, y in zip(again, out, strict=True))
    assert [m for m in msgs if m.role is Role.USER] == [m for m in out if m.role is Role.USER]
