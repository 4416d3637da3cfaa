"""Seeded scenes of the context engine's states in the chat at 80×24 and 60×20: a summary
coming, compacting, a failed summary, the model-free digest, the "summarise now?" dialog
and "not yet". A 32k window (clearing 12k, compaction 20k, hard limit 22k). The events are
the ones the real loop yields, in its order."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.pilot import Pilot
from ui_chat_scenes import frozen
from ui_fakes import FakeClient, FakeSession
from ui_scenarios import Scene, _app, _backend, settle, type_and_send

from paicli_tui.config import Settings
from paicli_tui.core.context.profile import ContextProfile
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.contracts.asks import SummaryConsentRequest

PROFILE = ContextProfile.for_window(32_000)
QUESTION = "fix the flaky parser test"
AHEAD = ("The conversation is at 18,400 of 20,000 tokens: one of the next requests will "
         "summarise the older turns (the last 3 stay word for word).")
FAILED = ("the model's summary still lacks the four sections after one repair (it answered "
          "in prose)")


def _request(tokens: int) -> ev.RequestStarted:
    return ev.RequestStarted(1, tokens, PROFILE.window, PROFILE.clearing_trigger,
                             PROFILE.compaction_trigger)


def _answer(text: str) -> list[ev.AgentEvent]:
    return [ev.TextDelta(text), ev.AssistantMessage(text),
            ev.TurnFinished("s1", "done", text)]


def _scene_app(settings: Settings, project: Path, script: list) -> object:
    session = FakeSession(script=[ev.TurnStarted("s1", QUESTION), *script], profile=PROFILE)
    return _app(_backend(settings, project, client=FakeClient(), session=session))


async def _ask(session: FakeSession) -> ev.AgentEvent:
    answer = await session.ask_summary(SummaryConsentRequest(20_450, 20_000, 22_000, 32_000, 3))
    return ev.SummaryConsentDecided(str(answer), 20_450, 20_000, 22_000, "answered")


def context_scenes(settings: Settings, project: Path) -> list[Scene]:
    out: list[Scene] = []

    def add(name: str, script: list, about: str, *, done: bool = True,
            screen: str = "ChatScreen") -> None:
        app = _scene_app(settings, project, script)

        async def before(pilot: Pilot) -> None:
            await settle(pilot)
            # a moment late in a session: the once-a-session clearing toast was seen
            pilot.app.screen.gauge.warned = True
            await type_and_send(pilot, QUESTION)
            if done:
                await pilot.app.workers.wait_for_complete()
            else:
                await settle(pilot)
            await frozen(pilot)
        out.append(Scene(name, app, before, about, screen))  # type: ignore[arg-type]

    add("ctx_summary_ahead",
        [ev.SummaryAhead(18_400, 20_000, 22_000, AHEAD), _request(18_400),
         *_answer("The parser test now passes.")],
        "A summary is coming: a yellow-edged notice 'Summary ahead: The conversation is at "
        "18,400 of 20,000 tokens: one of the next requests will summarise the older turns "
        "(the last 3 stay word for word). /compact [focus] summarises now, with your "
        "instructions.', the answer below it, and the gauge reading '18k/32k 57.5% summary "
        "next' with the bar past the clearing marker, before the compaction marker.")
    add("ctx_compacting",
        [_request(19_000), ev.AssistantMessage("", None, ("c1",)),
         ev.ToolCallStarted("c1", "read_file", '{"path": "tests/test_parser.py"}'),
         ev.ToolCallFinished("c1", "read_file", "done", "def test_parse(): ...", 4_800),
         ev.ContextCompacting(21_300, 20_000), asyncio.Event()],
        "Compacting before the next request: the read_file block done, the status line "
        "'⠹ Compacting the context · 3 s · Esc to interrupt', the gauge at '21k/32k 66.6% "
        "compacting…' in the compaction colour, the bar past both markers.", done=False)
    add("ctx_summary_failed",
        [ev.ContextCompacting(21_300, 20_000),
         ev.CompactionFailed("summary", 21_300, 21_300, FAILED, model_calls=5),
         asyncio.Event()],
        "The moment a summary failed (the digest is being made): a notice '▼ ⚠ Summary "
        "failed at 21k tokens', open, with its reason wrapped below it in full ('the "
        "model's summary still lacks the four sections after one repair (it answered in "
        "prose)'), the status line 'Compacting the context', and the gauge reading "
        "'21k/32k 66.6% summary failed'.", done=False)
    add("ctx_digest",
        [ev.ContextCompacting(21_300, 20_000),
         ev.CompactionFailed("summary", 21_300, 21_300, FAILED, model_calls=5),
         ev.ContextCompacted("digest", 21_300, 6_200, "older turns digested without a model; "
                             "transcript .paicli/tool-outputs/s1/004-transcript.txt",
                             outcome="compacted",
                             path=".paicli/tool-outputs/s1/004-transcript.txt"),
         _request(6_200), *_answer("The parser test now passes.")],
        "After a failed summary the digest: the open '⚠ Summary failed at 21k tokens' notice "
        "with its reason, then the folded '⇣ Older turns digested, no summary: 21k → 6.2k "
        "tokens' (whole, at 60 columns too), the answer, and the gauge '6.2k/32k 19.4% digest (no summary)' in the "
        "ok colour.")
    add("ctx_ask_dialog",
        [ev.ContextCompacting(20_450, 20_000), _ask],
        "The ask-before-summary dialog centred over the chat: title 'Summarise the older "
        "turns now?', 'At 20k tokens; summaries start at 20k (window 32k).', what 'Summarise "
        "now' does (all before your last 3 messages becomes a summary; the session file "
        "keeps everything), what 'Not yet' does (carry on up to 22k tokens, then summarised "
        "without asking; /compact works any time), and both buttons on screen, right-aligned: "
        "'Summarise now (s)' focused, 'Not yet (n)' (one-row buttons below 26 rows).", done=False, screen="SummaryConsentModal")
    add("ctx_postponed",
        [ev.ContextCompacting(20_450, 20_000),
         ev.SummaryConsentDecided("not_yet", 20_450, 20_000, 22_000,
                                  "Not yet: no summary until 22,000 tokens; there the older "
                                  "turns are summarised without asking. /compact summarises "
                                  "whenever you want."),
         _request(20_450), *_answer("The parser test now passes.")],
        "After 'Not yet': a yellow-edged notice 'Not yet: no summary until 22,000 tokens; "
        "there the older turns are summarised without asking. /compact …', the answer, and the gauge '20k/32k 63.9% summary postponed' in "
        "the compaction colour (above the trigger, below the hard limit).")
    return out
