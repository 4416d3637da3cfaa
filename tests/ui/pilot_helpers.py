"""Waiting helpers for pilot tests (workers run in threads; a busy machine is slow)."""

from __future__ import annotations


async def wait_until(pilot, check, seconds: float = 30.0, explain=None) -> None:
    """Until ``check()`` is true; ``explain()``, when given, says what was seen instead."""
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await pilot.pause(0.05)
    assert check(), explain() if explain else None


async def wait_until_steady(pilot, check, seconds: float = 30.0, explain=None) -> None:
    """Until ``check()`` is true, and still true a moment later: for a view the program
    may pull away after a refresh (the layout it waits for comes late on a busy machine,
    so a fixed pause before the check is not enough)."""
    await wait_until(pilot, check, seconds, explain)
    await pilot.pause(0.2)
    assert check(), explain() if explain else None


async def session_started(pilot) -> None:
    """Until the chat's session has started (in a worker: late on a busy machine)."""
    await wait_until(pilot, lambda: getattr(pilot.app.screen, "session", None) is not None)


def resumed_app(settings, project_dir, history):
    """The app resuming a session (the UI's fakes) whose view is ``history``."""
    from ui_fakes import FakeBackend, FakeClient, FakeSession

    from paicli_tui.app import PaicliApp

    backend = FakeBackend(settings, project_dir, session=FakeSession(history=history),
                          client=FakeClient())
    return PaicliApp(settings, project_dir, resume="a1b2c3", backend=backend)


async def wait_resumed(pilot, log) -> None:
    """Until the chat ``log`` of a resumed session says "Resumed session"."""
    from paicli_tui.ui.widgets.notice import ChatNotice

    await wait_until(pilot, lambda: any("Resumed session" in str(w.source)
                                        for w in log.query(ChatNotice)))


async def wait_for_screen(pilot, kind: type, seconds: float = 30.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if isinstance(pilot.app.screen, kind):
            return
        await pilot.pause(0.05)
    raise AssertionError(f"{kind.__name__} never opened; on top: {pilot.app.screen!r}")


async def open_panel(pilot, key: str, kind: type) -> None:
    """Press the key that opens a panel and wait until it is on top."""
    await pilot.press(key)
    await wait_for_screen(pilot, kind)


def inbox_seen(app) -> None:
    """The person looked at the memory inbox after the seeded automatic memory arrived (so
    the browser opens on every memory, not on the inbox)."""
    from datetime import UTC, datetime

    app.memory_inbox.seen.mark(datetime(2026, 11, 20, tzinfo=UTC))


async def grep_in_code_search(pilot, words: str, hits: int):
    """Open the code search (F3) on a project without an index (grep mode), search ``words``
    and wait for ``hits`` results; returns the panel."""
    from paicli_tui.ui.screens.code_search import CodeSearchScreen

    await open_panel(pilot, "f3", CodeSearchScreen)
    panel = pilot.app.screen.panel
    await wait_until(pilot, lambda: panel.mode == "grep")
    await pilot.press(*words, "enter")
    await wait_until(pilot, lambda: len(panel.hits) == hits)
    return panel


def parking_state(log) -> str:
    """What a failed wait for parking saw: enough to tell an unmeasured block from a view
    that never came to the end or a timer that gave up."""
    top, bottom = log.parking.window()
    heights = [c.virtual_region.height for c in log.children]
    far = [c for c in log.children
           if c.virtual_region.bottom < top or c.virtual_region.y > bottom]
    return (f"size={log.size} virtual={log.virtual_size} scroll_y={log.scroll_y}/"
            f"{log.max_scroll_y} window=({top}, {bottom}) children={len(heights)} "
            f"zero-high={heights.count(0)} far={len(far)} far-with-children="
            f"{sum(1 for c in far if c.children and c.display)} parked="
            f"{len(log.parking.parked)} width={log.parking.width} unmeasured_tries="
            f"{log.parking.unmeasured_tries} pending={log._park_pending} "
            f"working={len(list(log.working_blocks()))} focused={log.screen.focused!r}")
