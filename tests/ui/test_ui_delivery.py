"""Each result reaches the screen one way: memory notices are taken after a turn or a plan
(never also inside the turn), and /compact shows the events the session recorded, built by
nobody else."""

from __future__ import annotations

from pilot_helpers import wait_for_screen, wait_until
from ui_fakes import FakeBackend, FakeClient, FakeMemory, FakeSession, seeded_memories

from paicli_tui.app import PaicliApp
from paicli_tui.core.contracts import events as ev
from paicli_tui.ui.screens.chat import ChatScreen
from paicli_tui.ui.screens.context_inspector import ContextInspector
from paicli_tui.ui.widgets.compaction_notice import CompactionNotice

SIZE = (100, 30)


def _app(settings, project_dir, session: FakeSession) -> PaicliApp:
    backend = FakeBackend(settings, project_dir, memory_=FakeMemory(seeded_memories()),
                          client=FakeClient(), session=session)
    return PaicliApp(settings, project_dir, backend=backend)


async def test_a_memory_notice_is_shown_once(settings, project_dir):
    """What a person sees: after the turn that saved a memory, one toast "memory saved —
    remembered: …"; the next turn (nothing saved) adds no second toast; a plan whose
    extraction saved a memory shows its toast once when the plan is over."""
    async def extracted(session):
        session.notices.append(ev.MemoryNotice("saved", "remembered: CI runs pytest.", ("m9",)))

    session = FakeSession(script=[extracted])
    app = _app(settings, project_dir, session)

    def toasts(text: str) -> int:
        return sum(1 for n in app._notifications if n.message == text)

    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        app.screen.prompt.load_text("we use pytest")
        await pilot.press("enter")
        await wait_until(pilot, lambda: toasts("remembered: CI runs pytest.") == 1)
        session.script = []
        app.screen.prompt.load_text("thanks")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.screen.turn_running)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert toasts("remembered: CI runs pytest.") == 1
        session.notices.append(ev.MemoryNotice("extracted", "remembered 1 fact from the "
                                               "plan", ("m10",)))
        app.screen.action_slash("/plan tidy the tests")
        await wait_until(pilot, lambda: toasts("remembered 1 fact from the plan") == 1)
        # the plan is a turn: its end and the notice each recount the inbox, the second
        # cancelling the first (exclusive), so wait for the turn, not for every worker
        await wait_until(pilot, lambda: not app.screen.turn_running)
        await pilot.pause(0.2)
        assert toasts("remembered 1 fact from the plan") == 1
        assert toasts("remembered: CI runs pytest.") == 1


async def test_compact_from_the_inspector_shows_the_sessions_event_once(settings,
                                                                      project_dir):
    """What a person sees: /context, c ("Compacted." toast), Esc: back in the chat one
    compaction notice "summary …" with the summary the session made; /compact then adds
    exactly one more."""
    session = FakeSession()
    app = _app(settings, project_dir, session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        app.screen.action_slash("/context")
        await wait_for_screen(pilot, ContextInspector)
        await pilot.press("c")
        await wait_until(pilot, lambda: any(n.message == "Compacted."
                                            for n in app._notifications))
        await pilot.press("escape")
        await wait_for_screen(pilot, ChatScreen)
        await wait_until(pilot, lambda: len(app.screen.query(CompactionNotice)) == 1)
        notice = app.screen.query_one(CompactionNotice)
        assert notice.summary == "## Goal\nFind the loader."
        app.screen.action_slash("/compact")
        await wait_until(pilot, lambda: len(app.screen.query(CompactionNotice)) == 2)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(app.screen.query(CompactionNotice)) == 2
        assert len(session.compactions) == 2
