"""Before an automatic summary: the warning that one is coming (once per approach to the
trigger) and the setting ``ask_before_summary`` (now / not yet, bounded by a hard limit;
nobody to answer: summarised without asking, and said so).

The summariser is a scripted completer; the person's answers come from a scripted callback
at the ``SummaryConsentCallback`` contract.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from ctx_fakes import VALID_SUMMARY
from doubles.completers import ScriptedCompleter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paicli_tui.config import Settings, load_settings
from paicli_tui.core.context.consent import hard_limit, summary_ahead
from paicli_tui.core.context.manager import ContextManager, Prepared
from paicli_tui.core.context.offload import output_saver
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.context.profile import ContextProfile
from paicli_tui.core.contracts.asks import SummaryConsent, SummaryConsentRequest
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.messages import Message
from paicli_tui.paths import ProjectPaths

PROFILE = ContextProfile.for_window(32_000)  # clearing 12,000 / compaction 20,000 / hard 22,000


@pytest.mark.parametrize(("tokens", "previous", "trigger", "ahead"), [
    (17_999, 17_000, 20_000, False),  # growth 999 < a tenth: warned from 18,000
    (18_000, 17_000, 20_000, True),
    (15_000, 10_000, 20_000, True),   # the last step added 5,000: the next one reaches it
    (14_999, 10_000, 20_000, False),
    (18_000, None, 20_000, True),     # first request: a tenth of the trigger
    (20_000, 19_000, 20_000, False),  # at the trigger the summary is not ahead, it is now
    (900, 0, 1_000, True),            # a 2,048-token window: trigger 1,000
    (899, 0, 1_000, True),            # growth 899: 899 + 899 reaches it
    (450, 440, 1_000, False),
])
def test_summary_ahead_rule(tokens: int, previous: int | None, trigger: int,
                            ahead: bool) -> None:
    assert summary_ahead(tokens, previous, trigger) is ahead


@pytest.mark.parametrize(("window", "trigger", "limit"), [
    (2_048, 1_000, 1_048),           # the reply's 1,000 stay free
    (4_000, 2_000, 2_500),
    (8_000, 5_000, 5_500),
    (32_000, 20_000, 22_000),
    (128_000, 95_000, 101_500),
    (200_000, 167_000, 173_500),
])
def test_hard_limit_is_the_trigger_plus_half_the_buffer(window: int, trigger: int,
                                                         limit: int) -> None:
    profile = ContextProfile.for_window(window)
    assert profile.compaction_trigger == trigger and hard_limit(profile) == limit
    assert limit + profile.summary_reserve <= window  # the reply's room is never taken


@dataclass
class Person:
    """Answers "summarise now?" from a script (the last answer repeats)."""

    answers: list[SummaryConsent] = field(default_factory=lambda: [SummaryConsent.NOW])
    asked: list[SummaryConsentRequest] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)

    async def __call__(self, request: SummaryConsentRequest) -> SummaryConsent:
        self.asked.append(request)
        return self.answers[min(len(self.asked), len(self.answers)) - 1]


def _manager(tmp_path: Path, *, ask: bool, person: Person | None = None,
             summariser: ScriptedCompleter | None = None) -> ContextManager:
    settings = replace(Settings(), ask_before_summary=ask, summary_timeout_s=5)
    save = output_saver(ProjectPaths.for_dir(tmp_path), SessionState("s1"))
    return ContextManager(settings, PROFILE, summariser or ScriptedCompleter(VALID_SUMMARY),
                          save_output=save, ask_consent=person)


def _step(history: list[Message], n: int, tokens: int = 1_000) -> None:
    """One user turn and its answer, ``tokens`` estimated tokens in all (text the clearing
    tier cannot touch)."""
    chars = tokens * 2
    history += [Message.user(f"request {n} " + "u" * (chars - 12)),
                Message.assistant(f"answer {n} " + "a" * (chars - 12))]


async def _run(manager: ContextManager, steps: int, tokens: int = 1_000,
               person: Person | None = None) -> list[tuple[int, Prepared]]:
    """Grow a conversation ``steps`` turns; the history follows each prepared request.
    ``person.rounds`` gets the round of each question."""
    history = [Message.system("system prompt")]
    out = []
    for n in range(steps):
        _step(history, n, tokens)
        asked = len(person.asked) if person else 0
        prepared = await manager.prepare(history)
        if person:
            person.rounds += [n] * (len(person.asked) - asked)
        assert pairing_problems(prepared.messages) == []
        assert prepared.overflow is None
        history = prepared.messages
        out.append((n, prepared))
    return out


def _kinds(prepared: Prepared) -> list[str]:
    return [f"{n.kind}:{n.answer}" if n.answer else n.kind for n in prepared.notes]


def _summaries(prepared: Prepared) -> int:
    return sum(1 for r in prepared.reports if r.changed and r.tier == "summary")


async def test_the_warning_comes_once_before_each_summary(tmp_path: Path) -> None:
    manager = _manager(tmp_path, ask=False)
    rounds = await _run(manager, 60)
    warned = [n for n, p in rounds if "summary_ahead" in _kinds(p)]
    summarised = [n for n, p in rounds if _summaries(p)]
    assert len(summarised) >= 2
    # exactly one warning before each summary, none after the last one is still pending
    for first, second in zip([-1, *summarised], summarised, strict=False):
        between = [n for n in warned if first < n < second]
        assert len(between) == 1, (warned, summarised)
    for n, prepared in rounds:
        if n in warned:
            note = prepared.notes[-1]
            # from 90% of the trigger (each step adds ~1,000 tokens, less than a tenth)
            assert 18_000 <= note.tokens < 20_000 == note.compaction_trigger
            assert note.tokens == prepared.estimated_tokens
            assert note.hard_limit == 22_000 and "one of the next requests" in note.detail
    # the warning came on the request just before the summary's (steps of ~1,000 tokens)
    assert all(s - 2 <= max(w for w in warned if w < s) < s for s in summarised)


async def test_not_yet_holds_until_the_hard_limit_then_summarises_without_asking(
        tmp_path: Path) -> None:
    person = Person([SummaryConsent.NOT_YET])
    manager = _manager(tmp_path, ask=True, person=person)
    rounds = await _run(manager, 100, tokens=600, person=person)
    summarised = [n for n, p in rounds if _summaries(p)]
    decided = [(n, k) for n, p in rounds for k in _kinds(p) if k.startswith("summary_cons")]
    assert len(summarised) >= 2
    first = summarised[0]
    asked_at = person.rounds[0]
    assert decided[:2] == [(asked_at, "summary_consent:not_yet"),
                           (first, "summary_consent:hard_limit")]
    request = person.asked[0]
    assert (request.compaction_trigger, request.hard_limit, request.window,
            request.keep_user_turns) == (20_000, 22_000, 32_000, 3)
    assert 20_000 <= request.tokens < 22_000
    # between the answer and the hard limit: sent above the trigger, below the hard limit,
    # no summary and no second question
    postponed = [p for n, p in rounds if asked_at <= n < first]
    assert len(postponed) >= 3
    assert all(20_000 <= p.estimated_tokens < 22_000 and not _summaries(p) for p in postponed)
    assert [n for n in person.rounds if n < first] == [asked_at]
    hard = next(n for n in rounds[first][1].notes if n.kind == "summary_consent")
    assert hard.tokens >= 22_000 and "without asking" in hard.detail
    assert rounds[first][1].estimated_tokens < 20_000  # the summary brought it back under
    # the next approach asks again, once
    assert [n for n in person.rounds if first < n < summarised[1]] == \
        [n for n, k in decided if first < n < summarised[1] and k.endswith("not_yet")]
    assert len([n for n in person.rounds if first < n < summarised[1]]) == 1


async def test_now_summarises_at_the_trigger(tmp_path: Path) -> None:
    person = Person([SummaryConsent.NOW])
    manager = _manager(tmp_path, ask=True, person=person)
    rounds = await _run(manager, 30, person=person)
    first = next(n for n, p in rounds if _summaries(p))
    assert _kinds(rounds[first][1])[0] == "summary_consent:now"
    assert person.rounds == [first] and 20_000 <= person.asked[0].tokens < 22_000
    # the consent note comes before the report of the summary it allowed
    assert rounds[first][1].estimated_tokens < 20_000


async def test_nobody_to_answer_summarises_without_asking_and_says_so(tmp_path: Path) -> None:
    manager = _manager(tmp_path, ask=True, person=None)  # headless
    rounds = await _run(manager, 30)
    first = next(n for n, p in rounds if _summaries(p))
    note = next(n for n in rounds[first][1].notes if n.kind == "summary_consent")
    assert note.answer == "not_asked" and "nobody can answer" in note.detail
    assert note.tokens >= 20_000


async def test_asking_off_adds_no_consent_note(tmp_path: Path) -> None:
    person = Person()
    manager = _manager(tmp_path, ask=False, person=person)
    rounds = await _run(manager, 30)
    assert person.asked == []
    assert not any(n.kind == "summary_consent" for _, p in rounds for n in p.notes)


async def test_a_provider_refusal_compacts_without_asking(tmp_path: Path) -> None:
    person = Person([SummaryConsent.NOT_YET])
    manager = _manager(tmp_path, ask=True, person=person)
    history = [Message.system("system prompt")]
    for n in range(8):
        _step(history, n)
    prepared = await manager.prepare(history, force=True)
    assert person.asked == []
    assert _kinds(prepared)[0] == "summary_consent:forced" and _summaries(prepared) == 1


async def test_a_broken_dialog_does_not_stop_the_summary(tmp_path: Path) -> None:
    async def broken(request: SummaryConsentRequest) -> SummaryConsent:
        raise RuntimeError("the screen is gone")

    manager = _manager(tmp_path, ask=True, person=broken)  # type: ignore[arg-type]
    rounds = await _run(manager, 30)
    first = next(n for n, p in rounds if _summaries(p))
    note = rounds[first][1].notes[0]
    assert note.answer == "not_asked" and "the screen is gone" in note.detail


async def test_manual_compact_never_asks(tmp_path: Path) -> None:
    person = Person([SummaryConsent.NOT_YET])
    manager = _manager(tmp_path, ask=True, person=person)
    history = [Message.system("system prompt")]
    for n in range(4):
        _step(history, n)
    prepared = await manager.compact_now(history)
    assert person.asked == [] and prepared.notes == () and _summaries(prepared) == 1


@pytest.mark.parametrize(("value", "expected"), [("1", True), ("on", True), ("0", False),
                                                 ("false", False)])
def test_setting_from_the_environment(value: str, expected: bool, paicli_home: Path) -> None:
    env = {"PAICLI_HOME": str(paicli_home), "PAICLI_ASK_BEFORE_SUMMARY": value}
    assert load_settings({}, env).ask_before_summary is expected


def test_setting_from_the_config_file(paicli_home: Path) -> None:
    (paicli_home / "config.toml").write_text("ask_before_summary = true\n")
    assert load_settings({}, {"PAICLI_HOME": str(paicli_home)}).ask_before_summary is True
    (paicli_home / "config.toml").write_text('ask_before_summary = "perhaps"\n')
    with pytest.raises(ValueError, match="ask_before_summary must be a boolean"):
        load_settings({}, {"PAICLI_HOME": str(paicli_home)})


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(answers=st.lists(st.sampled_from(list(SummaryConsent)), min_size=1, max_size=6),
       sizes=st.lists(st.integers(100, 3_000), min_size=10, max_size=45))
async def test_any_answers_any_growth_never_pass_the_hard_limit_unsummarised(
        tmp_path: Path, answers: list[SummaryConsent], sizes: list[int]) -> None:
    """Whatever the person answers and however fast the conversation grows: every request
    is within the window, nobody is asked twice before a summary, and no request above the
    hard limit goes out unless a summary was tried for it."""
    person = Person(list(answers))
    manager = _manager(tmp_path, ask=True, person=person)
    history = [Message.system("system prompt")]
    asked_since_summary = 0
    for n, size in enumerate(sizes):
        before = len(person.asked)
        _step(history, n, size)
        prepared = await manager.prepare(history)
        history = prepared.messages
        asked_since_summary += len(person.asked) - before
        assert prepared.overflow is None and prepared.estimated_tokens < PROFILE.window
        assert pairing_problems(history) == []
        tried = any(r.tier in ("summary", "digest") for r in prepared.reports)
        if _summaries(prepared) or any(r.changed and r.tier == "digest"
                                       for r in prepared.reports):
            asked_since_summary = 0
        assert asked_since_summary <= 1
        assert prepared.estimated_tokens < hard_limit(PROFILE) or tried


async def test_one_step_past_the_hard_limit_is_not_asked_about(tmp_path: Path) -> None:
    """A request that jumps straight past the hard limit (one big paste) cannot be granted
    a "not yet": it is summarised without the question, and the note says why."""
    person = Person([SummaryConsent.NOT_YET])
    manager = _manager(tmp_path, ask=True, person=person)
    history = [Message.system("system prompt")]
    for n in range(4):
        _step(history, n, 4_500)  # 4 × 4,500: 18,000 (warned), then the fifth jumps past
    await manager.prepare(history)
    _step(history, 4, 4_500)
    prepared = await manager.prepare(history)
    assert person.asked == [] and _summaries(prepared) == 1
    note = prepared.notes[0]
    assert note.answer == "hard_limit" and note.tokens >= 22_000
    assert "already past the hard limit of 22,000" in note.detail
