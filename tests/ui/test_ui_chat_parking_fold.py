"""Parking (cf9b3b5) and folding (2742d69) together: a parked block that is folded into the
compact view is forgotten by the parking too.

The oldest blocks are the ones folded, and they are far from the view, so nearly every one
is parked when it is folded. The parking kept each removed block (and its whole widget tree)
in its table for the rest of the session, and looked at every one of them on every scroll:
an hour of chat grew what both changes exist to keep small."""

from __future__ import annotations

from pilot_helpers import parking_state, wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession, long_session_history

from paicli_tui.app import PaicliApp
from paicli_tui.ui.widgets.chat_log import ChatLog


async def test_a_folded_block_is_no_longer_parked(settings, project_dir):
    """A person sees nothing of this: the folded blocks read as before in the compact view."""
    backend = FakeBackend(settings, project_dir,
                          session=FakeSession(history=long_session_history(12)),
                          client=FakeClient())
    app = PaicliApp(settings, project_dir, resume="abc123", backend=backend)
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.children) > 40 and log.parking.parked, 60,
                         lambda: parking_state(log))
        await pilot.pause(0.5)
        parked_before = set(log.parking.parked)
        log.live_blocks = 20  # as after an hour more of chat
        folded = await log.fold_old()
        assert folded > 0 and parked_before - set(log.children), "nothing parked was folded"
        stale = [block for block in log.parking.parked if block not in log.children]
        assert stale == [], f"{len(stale)} folded blocks still held by the parking"
