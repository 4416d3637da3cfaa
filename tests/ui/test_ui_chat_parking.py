"""A long conversation stays light: blocks far from the view are parked (their inner widgets
hidden, their height kept), and whatever the view comes to is whole again. Textual lays out
every displayed widget on every change, so an hour of chat made a streamed reply crawl (a
200-word reply: 3 s in an empty chat, over a minute under 60 earlier turns, on a loaded
machine) and the app lagged behind the keys."""

from __future__ import annotations

from pilot_helpers import parking_state, wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession, long_session_history

from paicli_tui.app import PaicliApp
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.user_message import UserMessage


def laid_out(log: ChatLog) -> int:
    """Widgets of the conversation Textual lays out: displayed, inside displayed parents."""
    return sum(1 for w in log.walk_children()
               if all(a.display for a in w.ancestors_with_self if a is not log.screen))


def whole_in_view(log: ChatLog) -> list[str]:
    """Problems with the blocks the view shows: each must be unparked, its inside drawn."""
    view_top, view_bottom = round(log.scroll_y), round(log.scroll_y) + log.size.height
    problems = []
    for child in log.children:
        region = child.virtual_region
        if region.bottom < view_top or region.y > view_bottom or not child.display:
            continue
        if child in log.parking.parked:
            problems.append(f"{child!r} parked at {region}")
    return problems


def at_the_end(log: ChatLog) -> bool:
    """The view rests at the end with the last block whole on the screen (the blocks'
    layout and the scroll to the end come after refreshes: slow on a busy machine)."""
    last = log.children[-1]
    return log.scroll_y == log.max_scroll_y and whole_in_view(log) == [] \
        and last.region.bottom <= log.region.bottom


async def resumed(settings, project_dir, turns: int, size=(80, 24)):
    backend = FakeBackend(settings, project_dir,
                          session=FakeSession(history=long_session_history(turns)), client=FakeClient())
    return PaicliApp(settings, project_dir, resume="abc123", backend=backend)


async def test_a_long_session_lays_out_only_what_is_near_the_view(settings, project_dir):
    """Reopened, a 40-turn session (three tool calls and a reply with a list and code per
    turn) keeps its last 80 blocks live (the oldest are folded) and those are over 700
    widgets; a person at its end sees the last reply as before, and only the blocks near
    the view are laid out (under 250)."""
    app = await resumed(settings, project_dir, 40)
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.children) > 40 and log.parking.parked, 60,
                         lambda: parking_state(log))
        await wait_until(pilot, lambda: laid_out(log) < 250 and at_the_end(log), 30,
                         lambda: f"laid out {laid_out(log)}; {parking_state(log)}")
        total = sum(1 for _ in log.walk_children())
        assert total > 700 and laid_out(log) < 250, (total, laid_out(log))
        assert log.scroll_y == log.max_scroll_y and whole_in_view(log) == []
        last = log.children[-1]
        assert last.region.bottom <= log.region.bottom and last not in log.parking.parked


async def test_paging_back_through_the_session_shows_every_block(settings, project_dir):
    """PgUp from the end to the first message and PgDn back: at every page the blocks on
    the screen are whole (none parked), the first message "question 0" is reached, the
    scroll position never jumps (each PgUp moves up), and the end is the same afterwards."""
    app = await resumed(settings, project_dir, 12)
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.children) > 40 and log.parking.parked, 60,
                         lambda: parking_state(log))
        await wait_until(pilot, lambda: at_the_end(log), 30, lambda: parking_state(log))
        end = log.max_scroll_y
        previous = log.scroll_y
        while log.scroll_y > 0:
            await pilot.press("pageup")
            await wait_until(pilot, lambda p=previous: log.scroll_y < p)  # a loaded machine
            await pilot.pause(0.1)
            assert whole_in_view(log) == [], log.scroll_y
            previous = log.scroll_y
        first = log.query(UserMessage).first()
        assert first.region.y >= log.region.y and "question 0" in str(first.render())
        while log.scroll_y < log.max_scroll_y:
            below = log.scroll_y
            await pilot.press("pagedown")
            await wait_until(pilot, lambda b=below: log.scroll_y > b)
            await pilot.pause(0.1)
            assert whole_in_view(log) == []
        assert log.max_scroll_y == end


async def test_a_resize_keeps_the_end_in_view_and_parks_again(settings, project_dir):
    """From 80x24 to 60x20 and back with a long session open: the text re-wraps (every
    parked block is unparked and measured again), the last reply stays at the bottom, and
    far blocks are parked again at the new width."""
    app = await resumed(settings, project_dir, 12)
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.children) > 40 and log.parking.parked, 60,
                         lambda: parking_state(log))
        for size in ((60, 20), (80, 24)):
            await pilot.resize_terminal(*size)
            await wait_until(pilot, lambda: log.parking.width == log.size.width
                             and bool(log.parking.parked), 30, lambda: parking_state(log))
            await wait_until(pilot, lambda: at_the_end(log), 30, lambda: parking_state(log))
            assert log.scroll_y == log.max_scroll_y and whole_in_view(log) == []
            last = log.children[-1]
            assert last.region.bottom <= log.region.bottom
