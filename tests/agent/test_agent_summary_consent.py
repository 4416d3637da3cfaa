"""The warning before a summary and ``ask_before_summary`` through the real session and loop:
the events in the order a person sees them, and the ledger records.

The model is a scripted ChatClient (its tool-less requests are the summaries); the person's
answer comes through the session's ``ask_summary`` callback.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent_script import ScriptedClient, Step, drain

from paicli_tui.config import Settings
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.contracts.asks import SummaryConsent, SummaryConsentRequest

WINDOW = 8_000  # clearing 3,000 · compaction 5,000 · hard limit 5,500


def _ledger_events(session: AgentSession, kind: str) -> list[dict]:
    lines = Path(session.ledger.path).read_text(encoding="utf-8").splitlines()
    return [r for r in map(json.loads, lines) if r.get("type") == "event"
            and r.get("kind") == kind]


async def _turns(session: AgentSession, count: int) -> list[list[ev.AgentEvent]]:
    out = []
    for n in range(count):
        # ~500 tokens of the person's own text a turn: nothing but a summary can shrink it
        out.append(await drain(session.run_turn(f"turn {n}: " + "notes " * 330)))
    return out


def _types(events: list[ev.AgentEvent]) -> list[str]:
    return [e.type for e in events if e.type.startswith("context_") or
            e.type == "request_started"]


async def test_warned_once_then_asked_then_summarised(settings: Settings,
                                                      project_dir: Path) -> None:
    asked: list[SummaryConsentRequest] = []

    async def person(request: SummaryConsentRequest) -> SummaryConsent:
        asked.append(request)
        return SummaryConsent.NOW

    client = ScriptedClient([Step(text=f"answer {n}") for n in range(12)], window=WINDOW)
    session = await AgentSession.start(settings.with_overrides(ask_before_summary=True),
                                       project_dir, client=client, ask_summary=person)
    turns = await _turns(session, 12)
    flat = [e for t in turns for e in t]
    ahead = [e for e in flat if isinstance(e, ev.SummaryAhead)]
    consent = [e for e in flat if isinstance(e, ev.SummaryConsentDecided)]
    summary = next(i for i, t in enumerate(turns) if any(
        isinstance(e, ev.ContextCompacted) and e.tier == "summary" for e in t))
    assert len(asked) == len(consent) >= 1 and consent[0].answer == "now"
    assert asked[0].compaction_trigger == 5_000 and asked[0].hard_limit == 5_500
    # the order in the turn that summarised: compacting… → asked → summarised → sent
    assert _types(turns[summary])[:4] == ["context_compacting", "context_summary_consent",
                                          "context_compacted", "request_started"]
    # the warning came once, in an earlier turn, before the first question
    first_ahead = next(i for i, t in enumerate(turns) if any(
        isinstance(e, ev.SummaryAhead) for e in t))
    assert first_ahead < summary
    assert len([e for t in turns[:summary] for e in t if isinstance(e, ev.SummaryAhead)]) == 1
    assert ahead[0].compaction_trigger == 5_000 and 4_500 <= ahead[0].tokens < 5_000
    # every path is in the ledger too
    ledger_ahead = _ledger_events(session, "summary_ahead")
    ledger_consent = _ledger_events(session, "summary_consent")
    assert [r["tokens"] for r in ledger_ahead] == [e.tokens for e in ahead]
    assert [(r["answer"], r["hard_limit"]) for r in ledger_consent] == \
        [(e.answer, 5_500) for e in consent]
    assert client.problems == []
    await session.aclose()


async def test_not_yet_sends_above_the_trigger_until_the_hard_limit(
        settings: Settings, project_dir: Path) -> None:
    asked: list[SummaryConsentRequest] = []

    async def person(request: SummaryConsentRequest) -> SummaryConsent:
        asked.append(request)
        return SummaryConsent.NOT_YET

    client = ScriptedClient([Step(text=f"answer {n}") for n in range(14)], window=WINDOW)
    session = await AgentSession.start(settings.with_overrides(ask_before_summary=True),
                                       project_dir, client=client, ask_summary=person)
    turns = await _turns(session, 14)
    flat = [e for t in turns for e in t]
    answers = [e.answer for e in flat if isinstance(e, ev.SummaryConsentDecided)]
    assert answers[:2] == ["not_yet", "hard_limit"]
    sent = [e.estimated_tokens for e in flat if isinstance(e, ev.RequestStarted)]
    not_yet = next(i for i, e in enumerate(flat) if isinstance(e, ev.SummaryConsentDecided))
    hard = next(i for i, e in enumerate(flat) if isinstance(e, ev.SummaryConsentDecided)
                and e.answer == "hard_limit")
    between = [e.estimated_tokens for e in flat[not_yet:hard]
               if isinstance(e, ev.RequestStarted)]
    assert between and all(5_000 <= t < 5_500 for t in between)
    assert max(sent) < 5_500 < WINDOW
    # each approach: asked once, then "not yet" runs out at the hard limit
    assert len(asked) == answers.count("not_yet") >= 2
    assert answers == ["not_yet", "hard_limit"] * (len(answers) // 2) + \
        ["not_yet"] * (len(answers) % 2)
    assert [r["answer"] for r in _ledger_events(session, "summary_consent")][:2] == \
        ["not_yet", "hard_limit"]
    await session.aclose()


async def test_headless_session_never_waits(settings: Settings, project_dir: Path) -> None:
    client = ScriptedClient([Step(text=f"answer {n}") for n in range(12)], window=WINDOW)
    session = await AgentSession.start(settings.with_overrides(ask_before_summary=True),
                                       project_dir, client=client, mode="headless")
    flat = [e for t in await _turns(session, 12) for e in t]
    consent = [e for e in flat if isinstance(e, ev.SummaryConsentDecided)]
    assert consent and consent[0].answer == "not_asked"
    assert any(isinstance(e, ev.ContextCompacted) and e.tier == "summary" for e in flat)
    assert _ledger_events(session, "summary_consent")[0]["answer"] == "not_asked"
    await session.aclose()


async def test_a_tiny_window_is_not_asked_about_nothing(settings: Settings,
                                                        project_dir: Path) -> None:
    """A 4,000-token window: the system prompt and tools alone pass its trigger (2,000).
    Until there are older turns to summarise, nobody is asked and no request says it is
    compacting; every turn still answers within the window."""
    asked: list[SummaryConsentRequest] = []

    async def person(request: SummaryConsentRequest) -> SummaryConsent:
        asked.append(request)
        return SummaryConsent.NOT_YET

    client = ScriptedClient([Step(text="one"), Step(text="two")], window=4_000)
    session = await AgentSession.start(settings.with_overrides(ask_before_summary=True),
                                       project_dir, client=client, ask_summary=person)
    assert session.estimate() > session.profile.compaction_trigger == 2_000
    first = await drain(session.run_turn("hi"))
    assert asked == [] and not any(isinstance(e, ev.ContextCompacting | ev.SummaryConsentDecided)
                                   for e in first)
    assert first[-1].reason == "done" and first[-1].final_text == "one"
    second = await drain(session.run_turn("and again"))
    assert second[-1].final_text == "two"
    assert all(e.estimated_tokens < 4_000 for e in [*first, *second]
               if isinstance(e, ev.RequestStarted))
    await session.aclose()
