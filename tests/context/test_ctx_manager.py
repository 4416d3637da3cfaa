"""The compaction manager (behaviour §6): tier order, triggers, force, /compact, fast path."""

from __future__ import annotations

from dataclasses import replace

import pytest
from ctx_fakes import VALID_SUMMARY
from doubles.completers import ScriptedCompleter

from paicli_tui.config import Settings
from paicli_tui.core.context.boundary import wrap_tool_result
from paicli_tui.core.context.clearing import is_cleared
from paicli_tui.core.context.fastpath import SummaryCache
from paicli_tui.core.context.manager import NOTHING_TO_GAIN, ContextManager
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.context.profile import ContextProfile
from paicli_tui.core.messages import InternalKind, Message, ToolCall
from paicli_tui.core.tokens import TokenCalibrator, estimate_request

SMALL = ContextProfile.for_window(8_000)  # clearing 3,000 / compaction 5,000 tokens


def _turn(n: int, size: int) -> list[Message]:
    return [Message.user(f"request {n}"),
            Message.assistant(tool_calls=[ToolCall(f"c{n}", "read_file", "{}")]),
            Message.tool(f"c{n}", "read_file", wrap_tool_result("read_file", "x" * size)),
            Message.assistant(f"answer {n}")]


def _history(turns: int, size: int) -> list[Message]:
    msgs = [Message.system("system prompt")]
    for n in range(turns):
        msgs += _turn(n, size)
    return msgs


def _manager(settings: Settings, fake: ScriptedCompleter | None = None, **kw) -> ContextManager:
    return ContextManager(settings, SMALL, fake, **kw)


async def test_below_triggers_nothing_happens(settings: Settings,
                                              fake_summariser: ScriptedCompleter) -> None:
    msgs = _history(2, 1_000)
    prepared = await _manager(settings, fake_summariser).prepare(msgs)
    assert prepared.reports == [] and all(a is b for a, b in zip(prepared.messages, msgs,
                                                                 strict=True))
    assert prepared.estimated_tokens == estimate_request(msgs)


async def test_clearing_alone_when_enough(settings: Settings,
                                          fake_summariser: ScriptedCompleter) -> None:
    msgs = _history(5, 3_000)  # ~3,800 tokens: over clearing, under compaction
    assert SMALL.clearing_trigger <= estimate_request(msgs) < SMALL.compaction_trigger
    prepared = await _manager(settings, fake_summariser).prepare(msgs)
    assert [r.tier for r in prepared.reports] == ["clearing"]
    assert prepared.reports[0].changed and fake_summariser.calls == []
    assert len(prepared.messages) == len(msgs)


async def test_clearing_then_summary(settings: Settings,
                                     fake_summariser: ScriptedCompleter) -> None:
    msgs = _history(8, 3_000)
    for n in range(5):  # each paste below the 5,000-character message threshold
        msgs += [Message.user(f"paste {n} " + "p" * 4_000), Message.assistant("ok")]
    prepared = await _manager(settings, fake_summariser).prepare(msgs)
    assert [r.tier for r in prepared.reports] == ["clearing", "summary"]
    assert prepared.reports[1].changed
    assert prepared.messages[1].internal is InternalKind.SUMMARY
    assert pairing_problems(prepared.messages) == []


async def test_force_runs_both_tiers(settings: Settings, fake_summariser: ScriptedCompleter) -> None:
    msgs = _history(5, 1_000)
    prepared = await _manager(settings, fake_summariser).prepare(msgs, force=True)
    assert [r.tier for r in prepared.reports] == ["clearing", "summary"]
    assert prepared.reports[1].changed


async def test_force_with_one_long_turn_keeps_that_turn(settings: Settings,
                                                        fake_summariser: ScriptedCompleter) -> None:
    msgs = [Message.system("s"), Message.user("one task")]
    for n in range(10):
        msgs += [Message.assistant(tool_calls=[ToolCall(f"c{n}", "read_file", "{}")]),
                 Message.tool(f"c{n}", "read_file", "y" * 3_000)]
    msgs += [Message.user("and now this")]
    prepared = await _manager(settings, fake_summariser).prepare(msgs, force=True)
    assert prepared.reports[-1].changed and prepared.messages[-1] is msgs[-1]


async def test_compact_now_keeps_one_turn(settings: Settings,
                                          fake_summariser: ScriptedCompleter) -> None:
    msgs = _history(4, 500)
    prepared = await _manager(settings, fake_summariser).compact_now(msgs)
    assert prepared.reports[0].tier == "summary" and prepared.reports[0].changed
    assert prepared.messages[3:] == msgs[-4:]


async def test_compact_now_without_model_digests(settings: Settings) -> None:
    msgs = _history(6, 2_000)
    prepared = await _manager(settings, None).compact_now(msgs)
    assert [r.tier for r in prepared.reports] == ["digest"]
    assert prepared.reports[0].changed and "no model" in prepared.reports[0].detail
    assert prepared.messages[1].meta["tier"] == "digest"
    assert prepared.messages[3:] == msgs[-4:]


async def test_compact_now_with_nothing_before_the_turn_clears(settings: Settings) -> None:
    msgs = [Message.system("s"), *_turn(0, 2_000)[:3], Message.assistant(
        tool_calls=[ToolCall("c9", "read_file", "{}")]),
        Message.tool("c9", "read_file", "y" * 500)]
    prepared = await _manager(settings, None).compact_now(msgs)
    assert [r.tier for r in prepared.reports] == ["summary", "clearing"]
    assert not prepared.reports[0].changed and "nothing to summarise" in \
        prepared.reports[0].detail


async def test_pairing_is_guaranteed(settings: Settings) -> None:
    broken = [Message.system("s"), Message.user("u"),
              Message.assistant(tool_calls=[ToolCall("a", "read_file", "{}")]),
              Message.tool("ghost", "read_file", "x")]
    prepared = await _manager(settings).prepare(broken)
    assert pairing_problems(prepared.messages) == []


async def test_empty_history(settings: Settings) -> None:
    prepared = await _manager(settings).prepare([], force=True)
    assert prepared.messages == [] and prepared.estimated_tokens == 0


async def test_set_window_recomputes(settings: Settings) -> None:
    manager = _manager(settings)
    manager.set_window(200_000)
    assert manager.profile.compaction_trigger == 167_000
    manager.set_window(None)
    assert manager.profile.compaction_trigger == 95_000


async def test_calibration_moves_the_decision(settings: Settings,
                                              fake_summariser: ScriptedCompleter) -> None:
    msgs = _history(4, 2_000)  # ~2,100 tokens by estimate: under clearing
    calibrator = TokenCalibrator()
    calibrator.observe(1_000, 1_600)  # the provider counts 60% more
    manager = _manager(settings, fake_summariser, calibrator=calibrator)
    prepared = await manager.prepare(msgs)
    assert [r.tier for r in prepared.reports] == ["clearing"]
    assert prepared.reports[0].tokens_before == calibrator.adjust(estimate_request(msgs))


async def test_tool_schemas_count(settings: Settings) -> None:
    schema = {"type": "function", "function": {"name": "t", "description": "d" * 12_000}}
    prepared = await _manager(settings).prepare(_history(1, 10), [schema])
    assert [r.tier for r in prepared.reports] == ["clearing"]


async def test_fast_path_uses_background_summary(settings: Settings) -> None:
    fake = ScriptedCompleter(VALID_SUMMARY)
    fast = replace(settings, summary_fast_path=True)
    manager = _manager(fast, fake)
    assert isinstance(manager.summary_cache, SummaryCache)
    msgs = _history(6, 400)
    for n in range(3):
        msgs += [Message.user(f"paste {n} " + "q" * 3_600), Message.assistant("ok")]
    assert 0.6 * SMALL.compaction_trigger <= estimate_request(msgs) < SMALL.compaction_trigger
    first = await manager.prepare(msgs)
    assert [r.tier for r in first.reports] == ["clearing"]
    msgs = first.messages
    await manager.summary_cache.wait()
    assert len(fake.calls) == 1 and manager.summary_cache.ready is not None
    for n in range(2):
        msgs += [Message.user(f"more {n} " + "m" * 4_000), Message.assistant("fine")]
    second = await manager.prepare(msgs)
    summary = second.reports[-1]
    assert summary.changed and "background" in summary.detail
    assert len(fake.calls) == 1  # no new call at the trigger
    assert pairing_problems(second.messages) == []
    await manager.aclose()


async def test_incremental_pairing_check_sees_new_faults(settings: Settings) -> None:
    manager = _manager(settings)
    history = (await manager.prepare(_history(2, 10))).messages
    history.append(Message.tool("ghost", "read_file", "late"))  # appended to the returned list
    prepared = await manager.prepare(history)
    assert pairing_problems(prepared.messages) == [] and len(prepared.messages) == 9
    # a changed prefix (not the same objects) is checked in full
    changed = [history[0], Message.tool("ghost2", "x", "y"), *history[1:8]]
    assert pairing_problems((await manager.prepare(changed)).messages) == []


async def test_force_without_summary_clears_harder(settings: Settings) -> None:
    """One long turn with no model to summarise it: the last resort clears every older
    result (only the newest is spared; none once the provider refused the request)."""
    msgs = [Message.system("s"), Message.user("one long task")]
    for n in range(4):
        msgs += [Message.assistant("step " + "a" * 4_800,
                                   tool_calls=[ToolCall(f"c{n}", "read_file", "{}")]),
                 Message.tool(f"c{n}", "read_file", "z" * 4_800)]
    prepared = await _manager(settings, None).prepare(msgs)
    assert prepared.reports[-1].detail.startswith("forced (kept tail too big)")
    tools = [m for m in prepared.messages if m.role.value == "tool"]
    assert [is_cleared(m) for m in tools] == [True, True, True, False]
    assert SMALL.compaction_trigger <= prepared.estimated_tokens <= SMALL.window
    assert prepared.overflow is None
    forced = await _manager(settings, None).prepare(msgs, force=True)
    tools = [m for m in forced.messages if m.role.value == "tool"]
    assert all(is_cleared(m) for m in tools)


@pytest.mark.parametrize(("window", "chunk"), [
    (1_000_000, 60_000), (128_000, 60_000), (32_768, 30_720), (16_000, 15_000), (8_000, 7_500),
])
def test_summary_chunks_fit_small_windows(settings: Settings, window: int, chunk: int) -> None:
    # behaviour §5's 60,000 characters would overflow a 16k model on its own (CJK: 40,000 tokens).
    manager = ContextManager(settings, ContextProfile.for_window(window))
    assert manager.chunk_chars() == chunk
    manager.set_window(200_000)
    assert manager.chunk_chars() == 60_000


async def test_compact_now_of_a_short_history_is_nothing_to_gain_not_a_failure(
        settings: Settings, fake_summariser: ScriptedCompleter) -> None:
    """/compact when the turns before the last one are shorter than a summary of them:
    the model was asked once, its summary would not shrink anything, so the history stays,
    no digest is tried (nor its transcript written) and nothing reads as failed."""
    msgs = _history(2, 10)  # turn 0 is a few tokens; the four-section summary is ~90
    prepared = await _manager(settings, fake_summariser).compact_now(msgs)
    summary = prepared.reports[0]
    assert (summary.tier, summary.result, summary.changed) == ("summary", "skipped", False)
    assert summary.no_gain and summary.model_calls == 1 and len(fake_summariser.calls) == 1
    assert summary.detail == NOTHING_TO_GAIN
    assert "digest" not in [r.tier for r in prepared.reports]
    assert all(r.result != "failed" for r in prepared.reports)
    assert [m.id for m in prepared.messages] == [m.id for m in msgs]


async def test_an_automatic_summary_that_is_not_smaller_still_fails(
        settings: Settings, fake_summariser: ScriptedCompleter) -> None:
    """The same outcome when the window is filling is a failure (the digest is next)."""
    msgs = _history(2, 10)
    prepared = await _manager(settings, fake_summariser).prepare(msgs, force=True)
    summary = next(r for r in prepared.reports if r.tier == "summary")
    assert summary.result == "failed" and summary.no_gain and "not smaller" in summary.detail
