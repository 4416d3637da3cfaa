"""Tier 3 summary (behaviour §5): cut points, rendering, chunking, validation, repair, abandon."""

from __future__ import annotations

import pytest
from ctx_fakes import VALID_SUMMARY
from doubles.completers import ScriptedCompleter
from doubles.one_pass import assert_read_in_one_pass
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.context.summary import (
    ACKNOWLEDGEMENT,
    SUMMARY_MARKER,
    SummaryOptions,
    chunk_entries,
    find_cut,
    render_entries,
    summarise_history,
    validate_summary,
)
from paicli_tui.core.context.summary_format import normalise_summary
from paicli_tui.core.messages import ImagePart, InternalKind, Message, Role, ToolCall
from paicli_tui.resources import load_prompt


def _turn(n: int, size: int = 2_000) -> list[Message]:
    return [Message.user(f"request {n}"),
            Message.assistant(tool_calls=[ToolCall(f"c{n}", "read_file", '{"path": "a"}')]),
            Message.tool(f"c{n}", "read_file", "x" * size),
            Message.assistant(f"answer {n}")]


def _history(turns: int, size: int = 2_000) -> list[Message]:
    msgs = [Message.system("system prompt")]
    for n in range(turns):
        msgs += _turn(n, size)
    return msgs


def test_cut_counts_only_real_user_turns() -> None:
    msgs = _history(4)
    assert find_cut(msgs, 3) == 5  # the second turn's user message
    assert find_cut(msgs, 1) == 13
    skill = Message.user("skill body", internal=InternalKind.SKILL)
    guard = Message.user("you repeat yourself", internal=InternalKind.RUNAWAY_GUARD)
    with_internal = msgs[:9] + [skill] + msgs[9:15] + [guard] + msgs[15:]
    cut = find_cut(with_internal, 3)
    assert with_internal[cut] is msgs[5]
    assert find_cut(_history(3), 3) is None  # nothing before the kept turns
    assert find_cut(_history(2), 3) is None


def test_cut_never_splits_tool_groups() -> None:
    msgs = _history(6)
    for keep in (1, 2, 3):
        cut = find_cut(msgs, keep)
        assert msgs[cut].is_real_user_turn
        assert pairing_problems(msgs[cut:]) == []


def test_render_labels() -> None:
    msgs = [Message.system("s"), Message.user("hi", images=[ImagePart(url="u")]),
            Message.assistant("", tool_calls=[ToolCall("c1", "grep_code", '{"q":"x"}')]),
            Message.tool("c1", "grep_code", "hit"),
            Message.user("skill", internal=InternalKind.SKILL),
            Message.user("old", internal=InternalKind.SUMMARY)]
    assert render_entries(msgs) == [
        "USER: hi [image]\n\n", 'TOOL_CALL[c1] grep_code: {"q":"x"}\n\n', "TOOL[c1]: hit\n\n",
        "PREVIOUS SUMMARY: old\n\n"]


def test_59992_char_user_message_is_exactly_one_60000_char_chunk() -> None:
    entries = render_entries([Message.user("u" * 59_992)])
    chunks = chunk_entries(entries, 60_000)
    assert len(chunks) == 1 and len(chunks[0]) == 60_000
    assert chunks[0].startswith("USER: ") and chunks[0].endswith("u\n\n")
    assert len(chunk_entries(render_entries([Message.user("u" * 59_993)]), 60_000)) == 2


def test_chunking_keeps_order_and_limit() -> None:
    entries = [f"E{i}:" + "y" * 25_000 + "\n\n" for i in range(5)]
    chunks = chunk_entries(entries, 60_000)
    assert all(len(c) <= 60_000 for c in chunks) and "".join(chunks) == "".join(entries)
    assert len(chunks) == 3


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        (VALID_SUMMARY, True),
        (VALID_SUMMARY.replace("## 1. ", "# "), True),
        (VALID_SUMMARY.replace("## ", "### "), True),
        (VALID_SUMMARY.replace("## 3. Work done and evidence", "## 3. Work"), False),
        ("\n".join(VALID_SUMMARY.splitlines()[2:] + VALID_SUMMARY.splitlines()[:2]), False),
        (VALID_SUMMARY + "## 4. Open problems and next steps\nagain\n", False),
        ("Current goal and success criteria\nno headings at all", False),
        ("", False),
    ],
)
def test_validation(text: str, ok: bool) -> None:
    assert (validate_summary(text) == []) is ok


def test_prompts_demand_the_four_titles() -> None:
    for name in ("summary", "summary_merge", "summary_repair"):
        assert validate_summary(load_prompt(name)) == [], name


async def test_single_chunk_rebuild(fake_summariser: ScriptedCompleter) -> None:
    msgs = _history(5)
    out, report = await summarise_history(msgs, fake_summariser)
    assert report.changed and report.tokens_after < report.tokens_before
    assert len(fake_summariser.calls) == 1
    system, marker, ack, *tail = out
    assert system is msgs[0]
    assert marker.role is Role.USER and marker.internal is InternalKind.SUMMARY
    assert marker.content.startswith(SUMMARY_MARKER) and VALID_SUMMARY.strip() in marker.content
    assert ack.role is Role.ASSISTANT and ack.content == ACKNOWLEDGEMENT and not ack.tool_calls
    assert all(a is b for a, b in zip(tail, msgs[9:], strict=True))
    assert report.summary == VALID_SUMMARY.strip()
    rendered = fake_summariser.calls[0][1]
    assert "USER: request 0" in rendered and "request 2" not in rendered
    # a second summary counts the marker as internal: still 3 real turns kept
    assert find_cut(out, 3) is None


async def test_several_chunks_partials_then_merge() -> None:
    fake = ScriptedCompleter("p" * 9_000, "q" * 9_000, "r" * 9_000, VALID_SUMMARY)
    msgs = _history(6, size=50_000)
    out, report = await summarise_history(msgs, fake, SummaryOptions())
    assert report.changed
    partial_calls, merge_call = fake.calls[:-1], fake.calls[-1]
    assert len(partial_calls) >= 2
    assert all(len(user_text) <= 60_000 for _, user_text in partial_calls)
    assert "Notes for part 1" in merge_call[1] and "p" * 8_000 in merge_call[1]
    assert "p" * 8_001 not in merge_call[1]
    assert merge_call[0] == load_prompt("summary_merge")


async def test_exactly_one_repair_call() -> None:
    fake = ScriptedCompleter("not a summary", VALID_SUMMARY)
    out, report = await summarise_history(_history(5), fake)
    assert report.changed and len(fake.calls) == 2
    assert fake.calls[1] == (load_prompt("summary_repair"), "not a summary")


async def test_abandon_when_still_invalid() -> None:
    fake = ScriptedCompleter("bad", "still bad")
    msgs = _history(5)
    out, report = await summarise_history(msgs, fake)
    assert not report.changed and len(fake.calls) == 2 and "abandoned" in report.detail
    assert all(a is b for a, b in zip(out, msgs, strict=True)) and len(out) == len(msgs)


async def test_abandon_when_not_smaller() -> None:
    huge = VALID_SUMMARY.replace("Keep Java 17.", "z" * 100_000)
    msgs = _history(5, size=10)
    out, report = await summarise_history(msgs, ScriptedCompleter(huge))
    assert not report.changed and "not smaller" in report.detail
    assert all(a is b for a, b in zip(out, msgs, strict=True))


async def test_failing_model_keeps_history() -> None:
    msgs = _history(5)
    fake = ScriptedCompleter(RuntimeError("provider down"))
    out, report = await summarise_history(msgs, fake)
    assert not report.changed and "provider down" in report.detail and out == msgs


async def test_no_summariser_or_too_few_turns(fake_summariser: ScriptedCompleter) -> None:
    _, report = await summarise_history(_history(5), None)
    assert not report.changed and "no model" in report.detail
    _, report = await summarise_history(_history(2), fake_summariser)
    assert not report.changed and fake_summariser.calls == []
    _, report = await summarise_history([], fake_summariser)
    assert not report.changed


async def test_skill_note(fake_summariser: ScriptedCompleter) -> None:
    msgs = _history(5)
    skill = Message(Role.USER, "skill text", internal=InternalKind.SKILL,
                    meta={"skill": "java-refactor"})
    msgs.insert(2, skill)
    out, _ = await summarise_history(msgs, fake_summariser)
    assert "java-refactor" in out[1].content and "Load them again" in out[1].content
    assert "skill text" not in fake_summariser.calls[0][1]
    out2, _ = await summarise_history(_history(5), ScriptedCompleter(VALID_SUMMARY))
    assert "Skills whose" not in out2[1].content


async def test_keep_one_turn_for_manual_compact(fake_summariser: ScriptedCompleter) -> None:
    msgs = _history(4)
    out, report = await summarise_history(msgs, fake_summariser,
                                          SummaryOptions(keep_user_turns=1))
    assert report.changed and out[3:] == msgs[13:]


# A summary line of a heading and a long run of blanks before its last word made the heading
# pattern try every split of the blanks three ways: 4,000 took minutes; a model that streams
# blanks up to the reply cap held the event loop, Esc and the summary's own time limit with
# it (the check runs before the size check). The heading is read in one pass.
@pytest.mark.parametrize("line", [
    "## Current goal and success criteria" + " \t" * 300_000 + "x",
    "# a" + " " * 600_000 + "#" + " " * 10 + "x",
], ids=["blanks-after-a-title", "blanks-hash-blanks"])
def test_a_heading_with_a_long_run_of_blanks_is_read_in_one_pass(line: str) -> None:
    def check() -> None:
        validate_summary(line)
        normalise_summary(line)

    assert_read_in_one_pass(check)


@hypothesis_settings(max_examples=500, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([" ", "\t", "#", "1", "2", ".", ")", "a", ":", "\u3000"]),
                max_size=14).map("".join))
def test_a_heading_is_read_as_the_pattern_read_it(line: str) -> None:
    import re

    from paicli_tui.core.context.summary_format import _heading

    pattern = re.compile(r"^\s{0,3}(#{1,6})\s*(?:\d+[.)]\s*)?(.+?)\s*#*\s*$")
    match = pattern.match(line)
    assert _heading(line) == (match.groups() if match else None)


@pytest.mark.parametrize(("kept_users", "detail"), [
    (1, "summarised 4 messages; kept the last 2 messages"),
    (0, "summarised 4 messages; kept the last 1 message"),
])
def test_the_summary_detail_names_what_it_kept(kept_users, detail) -> None:
    """The inspector read "summarised 12 messages; kept the last 1": one what? The kept
    part is counted in messages, and said so."""
    from paicli_tui.core.context.summary import apply_summary
    from paicli_tui.core.messages import Message
    from paicli_tui.core.tokens import estimate_request

    history = [Message.system("sys"), Message.user("first " * 400), Message.assistant("a " * 400),
               Message.user("second " * 400), Message.assistant("b " * 400)]
    history += [Message.user("third"), Message.assistant("c")][: 2 if kept_users else 1]
    cut = 5
    _, report = apply_summary(history, cut, VALID_SUMMARY, estimate_request(history))
    assert report.changed and report.detail == detail
