"""The session picker (/resume, F5): each session is two lines, whatever its title."""

from __future__ import annotations

import pytest
from pilot_helpers import wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_a_long_chinese_session_title_takes_one_line(settings, project_dir, size):
    """Found in tmux: in the session picker a long Chinese title wrapped onto three lines
    (titles are cut at 60 characters, and a 汉字 takes two cells) while an English one of
    the same length stayed on one. Each session now reads as two lines: its title cut with
    "…" at the list's width, then its date, message count and id (wrapped, never cut, on
    a narrow screen)."""
    from textual.widgets import OptionList

    from paicli_tui.ui.backend import SessionRow
    from paicli_tui.ui.modals.session_picker import SessionPicker

    title = "给我一个表格，看看宽字符是否会被从中间切开，以及光标的位置是否正确，效果如何呢…"
    rows = [SessionRow("20261201-212118-552e6b", title, "2026-12-01", 12),
            SessionRow("20261201-215239-6c8f81", "summarise: " + "x" * 49 + "…",
                       "2026-12-01", 3)]
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        app.push_screen(SessionPicker(rows))
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPicker))
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        lines = [options.render_line(y).text.strip() for y in range(options.size.height)]
        lines = [line for line in lines if line]
        second = next(i for i, line in enumerate(lines) if line.startswith("summarise: x"))
        assert lines[0].startswith("给我一个表格") and lines[0].endswith("…")
        assert "".join(lines[1:second]).replace(" ", "") == \
            "2026-12-01·12messages·20261201-212118-552e6b"  # whole, wrapped when narrow
        assert second == (2 if size[0] >= 80 else 3), lines


async def test_resume_with_an_unknown_id_keeps_the_conversation(settings, project_dir):
    """Found in tmux: `/resume nonexistent-123` (a mistyped id) cleared the chat and
    started a new session ("Started a new one"), the conversation gone from the screen. An
    id that names no session leaves the conversation as it is and says so; a unique start
    of an id is enough, as for memory ids."""
    from paicli_tui.ui.backend import SessionRow
    from paicli_tui.ui.widgets.notice import ChatNotice

    rows = [SessionRow("20261201-212118-552e6b", "Move config to TOML", "2026-12-01", 12),
            SessionRow("20261130-090000-0719aa", "Explain the tiers", "2026-11-30", 3)]
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient(),
                          sessions_=rows)
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        chat = app.screen
        session = chat.session
        await pilot.press(*"/resume nonexistent-123", "enter")
        await wait_until(pilot, lambda: any("nonexistent-123" in n.source
                                            for n in chat.query(ChatNotice)))
        await pilot.pause(0.2)
        assert backend.started == [None] and chat.session is session
        notice = next(n for n in chat.query(ChatNotice) if "nonexistent-123" in n.source)
        assert "F5" in notice.source and "new one" not in notice.source
        await pilot.press(*"/resume 20261130", "enter")
        await wait_until(pilot, lambda: backend.started[-1:] == ["20261130-090000-0719aa"])
