"""Undoing the last compaction keeps what was said after it: the ledger's view before the
compaction ends where the compaction happened, and put back alone it dropped every later
turn from what the model sees."""

from __future__ import annotations

from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.context.summary import rebuild
from paicli_tui.core.context.undo import said_since, undone_view
from paicli_tui.core.messages import Message, ToolCall


def turn(n: int) -> list[Message]:
    call = ToolCall(f"c{n}", "read_file", '{"path": "a.py"}')
    return [Message.user(f"question {n}"), Message.assistant("", (call,)),
            Message.tool(call.id, "read_file", f"result {n} " * 100),
            Message.assistant(f"answer {n}")]


def contents(view: list[Message]) -> list[str]:
    return [m.content[:12] for m in view]


def test_undoing_a_summary_keeps_the_turns_after_it() -> None:
    before = [Message.system("sys"), *turn(1), *turn(2), *turn(3)]
    summarised = rebuild(before, 9, "## Goal\nThe work so far.")  # turns 1-2 summarised
    now = [*summarised, *turn(4), *turn(5)]  # two more turns after the summary
    undone = undone_view(before, now)
    assert [m.id for m in undone] == [m.id for m in before + now[-8:]]
    assert contents(undone)[-4:] == ["question 5", "", "result 5 res", "answer 5"]
    assert len(said_since(before, now)) == 8 and pairing_problems(undone) == []


def test_undoing_a_clearing_brings_the_results_back_whole_once() -> None:
    before = [Message.system("sys"), *turn(1), *turn(2)]
    cleared = [m.evolve(content="[cleared: read_file result]") if m.tool_call_id == "c1"
               else m for m in before]
    now = [*cleared, *turn(3)]
    undone = undone_view(before, now)
    assert [m.id for m in undone] == [m.id for m in before + now[-4:]]
    assert undone[3].content.startswith("result 1")  # the result as it was, not the stub
    assert len(said_since(before, now)) == 4


def test_undoing_right_after_the_compaction_is_the_view_before_it() -> None:
    before = [Message.system("sys"), *turn(1), *turn(2), *turn(3)]
    now = rebuild(before, 9, "## Goal\nThe work so far.")
    assert [m.id for m in undone_view(before, now)] == [m.id for m in before]
    assert said_since(before, now) == []


def test_a_new_system_prompt_is_not_put_in_twice() -> None:
    before = [Message.system("sys"), *turn(1)]
    now = [Message.system("sys, another model"), *before[1:], *turn(2)]
    undone = undone_view(before, now)
    assert sum(1 for m in undone if m.role.value == "system") == 1
    assert contents(undone)[-1] == "answer 2"
