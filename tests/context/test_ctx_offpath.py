"""The context engine off the happy path: weak summarisers, huge replies, small windows.

The summariser is a scripted chat model at the ChatClient protocol, used through the real
``completer_for`` (so an empty reply is the same LLMError a provider's would be).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from ctx_fakes import BEHAVIOURS, VALID_SUMMARY, SummaryModel
from doubles.completers import ScriptedCompleter

from paicli_tui.config import Settings
from paicli_tui.core.context.boundary import wrap_tool_result
from paicli_tui.core.context.breaker import SummaryBreaker
from paicli_tui.core.context.clearing import clear_tool_results, is_cleared
from paicli_tui.core.context.digest import build_digest
from paicli_tui.core.context.manager import ContextManager
from paicli_tui.core.context.offload import output_saver
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.context.profile import ContextProfile
from paicli_tui.core.context.summary import (
    MAX_SUMMARY_CALLS,
    SummaryOptions,
    fit_entries,
    write_summary,
)
from paicli_tui.core.context.summary_format import normalise_summary, validate_summary
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.llm.complete import completer_for
from paicli_tui.core.messages import InternalKind, Message, Role, ToolCall
from paicli_tui.core.tokens import estimate_request
from paicli_tui.paths import ProjectPaths

PROFILE = ContextProfile.for_window(32_000)  # clearing 12,000 / compaction 20,000 tokens


def _turn(n: int, size: int, *, status: str = "done") -> list[Message]:
    call = ToolCall(f"c{n}", "read_file", json.dumps({"path": f"src/m{n}.py"}))
    return [Message.user(f"request {n}: look at m{n}"),
            Message.assistant(f"reading {n}", tool_calls=[call]),
            Message.tool(f"c{n}", "read_file", wrap_tool_result("read_file", "x" * size),
                         status=status),
            Message.assistant(f"answer {n} " + "w" * (2 * size))]


def _history(turns: int, size: int) -> list[Message]:
    msgs = [Message.system("system prompt")]
    for n in range(turns):
        msgs += _turn(n, size)
    return msgs


def _manager(tmp_path: Path, summarise=None, **changes) -> ContextManager:  # noqa: ANN001
    settings = replace(Settings(), summary_timeout_s=0.3, **changes)
    save = output_saver(ProjectPaths.for_dir(tmp_path), SessionState("s1"))
    return ContextManager(settings, PROFILE, summarise, save_output=save)


# -- the summariser misbehaves at the protocol --------------------------------------------------
# The part before the cut is ~100,000 characters: three 30,000-character chunks for a 32k
# window, so a summary is 3 partial calls + 1 merge (+ 1 repair when the merge is unusable).
@pytest.mark.parametrize(("behaviour", "outcome", "calls"), [
    ("valid", "summary", 4),
    ("foreign", "summary", 4),     # four headings in another language: put right, no call
    ("extra", "summary", 4),       # an extra fifth section is allowed
    ("reordered", "summary", 4),   # the sections are put back in order without a call
    ("prose", "digest", 5),        # no headings: one repair, then the model-free digest
    ("truncated", "digest", 5),    # two sections only
    ("huge", "digest", 4),         # well formed but ~16k tokens (the reserve is 8,000)
    ("empty", "digest", 1),        # an empty reply is an error: the first call ends it
    ("error", "digest", 1),
    ("timeout", "digest", 1),
])
async def test_every_summariser_behaviour_ends_under_the_trigger(
        tmp_path: Path, behaviour: str, outcome: str, calls: int) -> None:
    model = SummaryModel(behaviour)
    manager = _manager(tmp_path, completer_for(model, ()))
    msgs = _history(14, 3_000)
    assert estimate_request(msgs) >= PROFILE.compaction_trigger
    prepared = await manager.prepare(msgs)
    assert prepared.estimated_tokens < PROFILE.compaction_trigger
    assert pairing_problems(prepared.messages) == [] and prepared.overflow is None
    assert len(model.requests) == calls
    compacted = [r for r in prepared.reports if r.changed and r.tier in ("summary", "digest")]
    assert [r.tier for r in compacted] == [outcome]
    marker = prepared.messages[1]
    assert marker.internal is InternalKind.SUMMARY and marker.meta["tier"] == outcome
    assert validate_summary(compacted[0].summary or "") == []
    if outcome == "digest":
        failed = [r for r in prepared.reports if r.result == "failed"]
        assert failed and failed[0].tier == "summary" and failed[0].model_calls == calls
        transcript = tmp_path / compacted[0].path
        assert "USER: request 0: look at m0" in transcript.read_text()
        assert compacted[0].path in marker.content and "read_file(path=" in marker.content
        assert "no valid summary" in marker.content


@pytest.mark.parametrize(("mb", "most_calls"), [(1, 1), (4, 1), (50, 1)])
async def test_huge_reply_costs_a_bounded_number_of_calls(tmp_path: Path, mb: int,
                                                          most_calls: int) -> None:
    fake = ScriptedCompleter(VALID_SUMMARY)
    manager = _manager(tmp_path, fake)
    msgs = _history(4, 500)
    msgs += [Message.user("write the report"), Message.assistant("R" * (mb * 1_000_000))]
    msgs += [Message.user("thanks, now the next step")]
    prepared = await manager.prepare(msgs)
    assert len(fake.calls) <= most_calls
    assert prepared.estimated_tokens < PROFILE.compaction_trigger
    assert all(len(user_text) <= manager.chunk_chars() for _, user_text in fake.calls)
    offload = next(r for r in prepared.reports if r.tier == "offload")
    saved = list((tmp_path / ".paicli/tool-outputs/s1").glob("*-assistant.txt"))
    assert len(saved) == 1 and saved[0].stat().st_size == mb * 1_000_000
    assert "assistant text" in offload.detail


async def test_huge_tool_argument_is_offloaded_and_stays_json(tmp_path: Path) -> None:
    fake = ScriptedCompleter(VALID_SUMMARY)
    manager = _manager(tmp_path, fake)
    content = "line of the generated file\n" * 115_000  # ~3 MB
    call = ToolCall("w1", "write_file", json.dumps({"path": "big.txt", "content": content}))
    msgs = [*_history(3, 200), Message.user("write it"), Message.assistant(tool_calls=[call]),
            Message.tool("w1", "write_file", wrap_tool_result("write_file", "wrote big.txt")),
            Message.assistant("done")]
    prepared = await manager.prepare(msgs)
    assert fake.calls == [] and prepared.estimated_tokens < PROFILE.compaction_trigger
    sent = next(m for m in prepared.messages if m.tool_calls and m.tool_calls[0].id == "w1")
    notice = json.loads(sent.tool_calls[0].arguments)["offloaded_arguments"]
    assert "write_file-arguments.txt" in notice and "read_file(path=" in notice
    assert pairing_problems(prepared.messages) == []


async def test_old_reasoning_goes_first(tmp_path: Path) -> None:
    fake = ScriptedCompleter(VALID_SUMMARY)
    manager = _manager(tmp_path, fake)
    msgs = [Message.system("s")]
    for n in range(6):
        msgs += [Message.user(f"q{n}"),
                 Message.assistant(f"a{n}", reasoning="thinking " * 2_000)]  # ~18k chars each
    prepared = await manager.prepare(msgs)
    assert fake.calls == []  # dropping old reasoning was enough
    assert [r.tier for r in prepared.reports if r.changed] == ["offload"]
    assert "reasoning of 5 earlier messages" in prepared.reports[-1].detail
    assert prepared.messages[-1].reasoning  # the current turn keeps its reasoning
    assert all(m.reasoning is None for m in prepared.messages[:-1])


async def test_many_medium_messages_fit_eight_calls(tmp_path: Path) -> None:
    fake = ScriptedCompleter(*["notes"] * 7, VALID_SUMMARY)
    manager = _manager(tmp_path, fake)
    msgs = _history(400, 2_000)  # ~1.6 MB of transcript before the cut
    prepared = await manager.prepare(msgs)
    assert 2 <= len(fake.calls) <= MAX_SUMMARY_CALLS
    assert prepared.messages[1].meta["tier"] == "summary"
    assert prepared.estimated_tokens < PROFILE.compaction_trigger


# Entries a little over half a chunk each cannot share one: packed whole, each took a chunk
# of its own, so the transcript's 6 chunks' worth became up to 12 (an exec run against a
# weak summariser made 9 calls, the 64-call reply of 15,000-character arguments behind it).
@pytest.mark.parametrize(("count", "size"), [
    (11, 30_001), (9, 40_000), (7, 50_000), (12, 31_000), (300, 2_000), (6, 59_999),
    (2, 200_000),
])
async def test_a_summary_makes_at_most_eight_calls_whatever_the_entries(
        count: int, size: int) -> None:
    fake = ScriptedCompleter("notes without the sections")  # partials, merge and repair
    entries = [(f"TOOL_CALL[c{n}] read_file: " + "x" * size)[:size - 2] + "\n\n"
               for n in range(count)]
    assert all(len(e) == size for e in entries)
    attempt = await write_summary(entries, fake, SummaryOptions(chunk_chars=60_000))
    assert attempt.text is None  # prose: the repair was asked for too
    assert len(fake.calls) <= MAX_SUMMARY_CALLS
    assert all(len(user) <= 60_000 for _, user in fake.calls)


def test_fit_entries_shortens_the_longest_first() -> None:
    entries = ["a" * 100, "b" * 5_000, "c" * 5_000]
    fitted = fit_entries(entries, 4_000)
    assert fitted[0] == entries[0] and sum(map(len, fitted)) <= 4_000 + 200
    assert "characters left out here" in fitted[1]
    tiny = fit_entries(["z" * 1_000] * 100, 3_000)
    assert tiny[0].startswith("[9") and "older entries are left out" in tiny[0]


# -- the circuit breaker ------------------------------------------------------------------------
async def test_breaker_opens_after_three_failures_and_says_so(tmp_path: Path) -> None:
    model = SummaryModel("prose")
    manager = _manager(tmp_path, completer_for(model, ()))
    history = _history(14, 3_000)
    calls_per_round = []
    for round_ in range(5):
        n = 100 * (round_ + 1)
        while estimate_request(history) < PROFILE.compaction_trigger:  # grow past it again
            history += [Message.user(f"more {n}"), Message.assistant("w" * 4_000)]
            n += 1
        prepared = await manager.prepare(history)
        calls_per_round.append(len(model.requests))
        model.requests.clear()
        assert prepared.estimated_tokens < PROFILE.compaction_trigger
        assert prepared.messages[1].meta["tier"] == "digest"
        if round_ == 2:
            assert any("3 summaries failed in a row" in r.detail for r in prepared.reports)
        if round_ == 3:
            assert any(r.detail.startswith("not requested: the last 3 summaries failed")
                       for r in prepared.reports)
        history = prepared.messages
    assert all(0 < calls <= MAX_SUMMARY_CALLS for calls in calls_per_round[:3])
    assert calls_per_round[3] == 0  # open: the model is not asked
    assert calls_per_round[4] > 0  # grown by a whole trigger since: one more attempt


def test_breaker_counts_growth_since_it_opened() -> None:
    breaker = SummaryBreaker()
    history = [Message.user("x" * 4_000)]
    assert not breaker.failed(history) and not breaker.failed(history)
    assert breaker.failed(history) and breaker.is_open
    assert not breaker.allows(history, 500)
    grown = [*history, Message.user("y" * 4_000)]
    assert breaker.new_tokens(grown) == 1_004 and breaker.allows(grown, 1_000)
    breaker.succeeded()
    assert not breaker.is_open and breaker.allows(history, 10**9)


async def test_later_summary_builds_on_the_digest(tmp_path: Path) -> None:
    model = SummaryModel("error")
    manager = _manager(tmp_path, completer_for(model, ()))
    first = await manager.prepare(_history(14, 3_000))
    assert first.messages[1].meta["tier"] == "digest"
    fake = ScriptedCompleter(VALID_SUMMARY)
    manager.summarise = fake
    history = first.messages + [m for n in range(20, 32) for m in _turn(n, 3_000)]
    second = await manager.prepare(history)
    assert second.messages[1].meta["tier"] == "summary"
    sent = fake.calls[0][1]
    assert sent.startswith("PREVIOUS SUMMARY:") and "model-free" not in sent[:20]
    assert "no valid summary could be had" in sent  # the digest is carried to the model


# -- the window is never exceeded ---------------------------------------------------------------
async def test_a_tail_that_cannot_fit_is_not_sent_and_says_why(tmp_path: Path) -> None:
    manager = _manager(tmp_path, ScriptedCompleter(VALID_SUMMARY))
    msgs = [Message.system("s"), Message.user("one task")]
    for n in range(40):  # one turn, forty 4.9k-character results and replies: ~100k tokens
        msgs += [Message.assistant("a" * 4_900, tool_calls=[ToolCall(f"k{n}", "grep", "{}")]),
                 Message.tool(f"k{n}", "grep", wrap_tool_result("grep", "g" * 4_900))]
    prepared = await manager.prepare(msgs)
    assert prepared.estimated_tokens > PROFILE.window
    assert prepared.overflow is not None
    assert "Not sent" in prepared.overflow and "32,000" in prepared.overflow
    assert "/clear" in prepared.overflow
    assert pairing_problems(prepared.messages) == []


def _writes(step: int, calls: int, chars: int) -> list[Message]:
    """One step of a turn: ``calls`` write_file calls of ``chars`` characters, answered."""
    batch = [ToolCall(f"w{step}-{n}", "write_file",
                      json.dumps({"path": f"gen/f{step}_{n}.py", "content": "c" * chars}))
             for n in range(calls)]
    return [Message.assistant(f"step {step}", tool_calls=batch),
            *(Message.tool(c.id, "write_file", wrap_tool_result("write_file", f"wrote {c.id}"))
              for c in batch)]


# One turn that writes many files: each call's arguments are below the offload threshold
# (20,000 characters at this window), so nothing was saved, clearing leaves arguments alone
# and the turn cannot be summarised: "Not sent", and the task stopped mid-way. A model can
# do it in one reply too (64 calls of 15,000 characters each, within the reply cap). The
# arguments of calls that ran are saved to files, largest first, until the request fits.
@pytest.mark.parametrize(("steps", "calls", "chars"), [
    (12, 1, 12_000),   # a long task: twelve files of 12,000 characters, one per step
    (1, 20, 8_000),    # one reply asking for twenty writes at once
    (30, 2, 3_000),
])
async def test_a_turn_of_many_medium_writes_is_sent_with_their_arguments_saved(
        tmp_path: Path, steps: int, calls: int, chars: int) -> None:
    manager = _manager(tmp_path, ScriptedCompleter(VALID_SUMMARY))
    msgs = [Message.system("s"), *_turn(0, 100), Message.user("generate the package")]
    for step in range(steps):
        msgs += _writes(step, calls, chars)
    assert estimate_request(msgs) > PROFILE.window
    prepared = await manager.prepare(msgs)
    assert prepared.overflow is None
    assert prepared.estimated_tokens < PROFILE.compaction_trigger
    assert pairing_problems(prepared.messages) == []
    sent = [c for m in prepared.messages for c in m.tool_calls if c.name == "write_file"]
    assert len(sent) == steps * calls  # every call is still there, with its id
    saved = [c for c in sent if "offloaded_arguments" in json.loads(c.arguments)]
    assert saved and all(len(c.arguments) < 2_000 for c in saved)
    notice = json.loads(saved[0].arguments)["offloaded_arguments"]
    path = tmp_path / notice.split("Full output saved in: ")[1].split()[0]
    assert json.loads(path.read_text())["content"] == "c" * chars  # lossless
    assert any(r.tier == "offload" and "arguments" in r.detail for r in prepared.reports)


async def test_small_window_is_honoured(tmp_path: Path) -> None:
    manager = _manager(tmp_path, ScriptedCompleter(VALID_SUMMARY))
    manager.set_window(4_000)
    assert manager.profile.compaction_trigger == 2_000 and manager.profile.window == 4_000
    prepared = await manager.prepare(_history(6, 600))
    assert prepared.estimated_tokens < 2_000 and prepared.overflow is None


# -- the digest itself --------------------------------------------------------------------------
def test_digest_lists_requests_calls_files_and_errors() -> None:
    msgs = [Message.system("s"), *_turn(0, 10), *_turn(1, 10, status="failed")]
    msgs.insert(1, Message(Role.USER, "[ctx]\n\nfix the parser", meta={"user_input":
                                                                       "fix the parser"}))
    edit = ToolCall("e1", "edit_file", json.dumps({"path": "src/parser.py", "old": "a"}))
    msgs += [Message.assistant(tool_calls=[edit]),
             Message.tool("e1", "edit_file", wrap_tool_result("edit_file", "Error: no match"),
                          status="failed")]
    digest = build_digest(msgs, reason="the model failed", transcript=".paicli/t.txt")
    assert validate_summary(digest) == []
    assert '"fix the parser"' in digest and '"request 1: look at m1"' in digest
    assert "read_file ×2" in digest and "edit_file ×1" in digest
    assert "Files read: src/m0.py, src/m1.py" in digest
    assert "Files changed: src/parser.py" in digest
    assert "edit_file: Error: no match" in digest and "read_file: xxxxxxxxxx" in digest
    assert '.paicli/t.txt' in digest and "Why: the model failed" in digest


def test_digest_stays_within_its_budget() -> None:
    msgs = [Message.system("s")]
    for n in range(500):
        msgs += _turn(n, 10)
    digest = build_digest(msgs, reason="r", transcript="t.txt", max_chars=6_000)
    assert len(digest) <= 6_500 and validate_summary(digest) == []
    assert "more requests (in the transcript)" in digest


# -- summary format: near misses put right ------------------------------------------------------
@pytest.mark.parametrize(("behaviour", "fixed"), [
    ("valid", True), ("foreign", True), ("extra", True), ("reordered", True),
    ("prose", False), ("truncated", False), ("empty", False),
])
def test_normalise_summary(behaviour: str, fixed: bool) -> None:
    result = normalise_summary(BEHAVIOURS[behaviour])
    assert (result is not None) is fixed
    if result is not None:
        assert validate_summary(result) == []
    if behaviour == "foreign":
        assert "修复 src/auth.py 的登录错误。" in result
    if behaviour == "extra":
        assert "## 5. Notes\nThe CI is slow." in result  # valid as it is: extras are allowed


# -- clearing settings --------------------------------------------------------------------------
def test_clearing_exclude_list() -> None:
    msgs = [Message.system("s"), Message.user("u")]
    for n, name in enumerate(["load_skill", "grep", "grep", "grep", "grep"]):
        msgs += [Message.assistant(tool_calls=[ToolCall(f"c{n}", name, "{}")]),
                 Message.tool(f"c{n}", name, wrap_tool_result(name, "r" * 2_000))]
    out, _ = clear_tool_results(msgs, keep_recent=1, exclude=("load_skill",))
    tools = [m for m in out if m.role is Role.TOOL]
    assert [is_cleared(m) for m in tools] == [False, True, True, True, False]


async def test_clearing_off_and_trigger_override(tmp_path: Path) -> None:
    msgs = _history(6, 2_000)  # ~6,500 tokens: under the 12,000 clearing trigger
    manager = _manager(tmp_path, clearing_trigger_tokens=5_000)
    assert [r.tier for r in (await manager.prepare(msgs)).reports] == ["clearing"]
    manager = _manager(tmp_path, clearing_trigger_tokens=5_000, clearing_enabled=False)
    assert (await manager.prepare(msgs)).reports == []


async def test_breaker_survives_a_resume(tmp_path: Path) -> None:
    """`exec --resume` starts a new process: the digest carries the breaker's count."""
    history = _history(14, 3_000)
    for _ in range(3):
        model = SummaryModel("prose")
        manager = _manager(tmp_path, completer_for(model, ()))  # a new process each time
        while estimate_request(history) < PROFILE.compaction_trigger:
            history += [Message.user("more"), Message.assistant("w" * 4_000)]
        history = (await manager.prepare(history)).messages
        assert model.requests  # asked: the breaker was still closed
    assert history[1].meta["failed_summaries"] == 3 and history[1].meta["breaker_last_id"]
    while estimate_request(history) < PROFILE.compaction_trigger:
        history += [Message.user("more"), Message.assistant("w" * 4_000)]
    model = SummaryModel("prose")
    prepared = await _manager(tmp_path, completer_for(model, ())).prepare(history)
    assert model.requests == []  # open, restored from the digest
    assert prepared.messages[1].meta["failed_summaries"] == 3


# -- task state after a summary -----------------------------------------------------------------
@pytest.mark.parametrize("behaviour", ["valid", "error"])  # after a summary, after the digest
async def test_recent_files_are_read_again_after_a_summary(tmp_path: Path,
                                                           behaviour: str) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for n in range(14):
        (src / f"m{n}.py").write_text(f"def f{n}():\n    return {n}\n")
    (src / "m1.py").write_text("big = 1\n" * 4_000)  # ~8,000 tokens: listed, not included
    (tmp_path.parent / "secret.txt").write_text("outside")
    model = SummaryModel(behaviour)
    manager = _manager(tmp_path, completer_for(model, ()))
    manager.project_root = tmp_path
    manager.redact = str  # nothing to mask here; without a redactor files are only listed
    msgs = _history(14, 3_000)
    escape = ToolCall("e1", "read_file", json.dumps({"path": "../secret.txt"}))
    msgs[2:2] = [Message.assistant(tool_calls=[escape]),
                 Message.tool("e1", "read_file", wrap_tool_result("read_file", "denied"))]
    prepared = await manager.prepare(msgs)
    marker = prepared.messages[1].content
    assert "Files you were working on before this summary" in marker
    shown = [f"src/m{n}.py" for n in range(14) if f"### src/m{n}.py" in marker]
    assert 1 <= len(shown) <= 5 and "### src/m10.py" in marker  # the newest summarised first
    assert "def f10():" in marker and "outside" not in marker
    assert "### src/m13.py" not in marker  # still in the kept messages
    assert prepared.estimated_tokens < PROFILE.compaction_trigger
