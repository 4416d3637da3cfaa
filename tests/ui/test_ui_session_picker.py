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


def _app_listing(settings, project_dir, rows) -> tuple[FakeBackend, PaicliApp]:
    """The app on a fake backend whose session list is ``rows``."""
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient(),
                          sessions_=rows)
    return backend, PaicliApp(settings, project_dir, backend=backend)


async def test_resume_with_an_unknown_id_keeps_the_conversation(settings, project_dir):
    """Found in tmux: `/resume nonexistent-123` (a mistyped id) cleared the chat and
    started a new session ("Started a new one"), the conversation gone from the screen. An
    id that names no session leaves the conversation as it is and says so; a unique start
    of an id is enough, as for memory ids."""
    from paicli_tui.ui.backend import SessionRow
    from paicli_tui.ui.widgets.notice import ChatNotice

    rows = [SessionRow("20261201-212118-552e6b", "Move config to TOML", "2026-12-01", 12),
            SessionRow("20261130-090000-0719aa", "Explain the tiers", "2026-11-30", 3)]
    backend, app = _app_listing(settings, project_dir, rows)
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


async def test_the_picker_puts_this_projects_sessions_first_and_keeps_others_apart(
        settings, project_dir, tmp_path):
    """/resume listed the sessions of every project, newest first and unmarked, and choosing
    one of another folder reopened it here (its tools then acted on this folder's files).
    This project's sessions now come first; another project's carry its folder on a third
    line, and choosing one says where it belongs and how to resume it there, keeping the
    conversation (the app cannot move its tools, index and memory to another folder)."""
    import os

    from textual.widgets import OptionList

    from paicli_tui.core.context.ledger import SessionLedger
    from paicli_tui.core.messages import Message
    from paicli_tui.ui.core_backend import CoreBackend
    from paicli_tui.ui.modals.session_picker import SessionPicker
    from paicli_tui.ui.widgets.notice import ChatNotice

    elsewhere = (tmp_path / "elsewhere").resolve()
    elsewhere.mkdir()
    for folder, title, stamp in ((project_dir, "Here, older", 1_800_000_000),
                                 (elsewhere, "There, newer", 1_800_000_600)):
        ledger = SessionLedger.create(settings.home, folder, title)
        ledger.append(Message.user(title))
        ledger.close()
        os.utime(ledger.path, (stamp, stamp))
    rows = CoreBackend(settings, project_dir).sessions()
    assert [(r.title, r.other_project) for r in rows] == [("Here, older", False),
                                                          ("There, newer", True)]
    other = rows[1]
    backend, app = _app_listing(settings, project_dir, rows)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        chat = app.screen
        await pilot.press("f5")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPicker))
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        lines = [options.render_line(y).text.strip() for y in range(options.size.height)]
        lines = [line for line in lines if line]
        assert lines[0] == "Here, older" and lines[2] == "There, newer"
        assert lines[4] == "another project:"  # then the folder, whole (wrapped when long)
        assert "".join(lines[5:]) == str(elsewhere)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: any(other.session_id in n.source
                                            for n in chat.query(ChatNotice)))
        notice = next(n for n in chat.query(ChatNotice) if other.session_id in n.source)
        assert notice.source == (
            f"Session {other.session_id} belongs to another project, {elsewhere}; this "
            f"conversation goes on here. To continue it there: paicli-tui --resume "
            f"{other.session_id} --project {elsewhere}")
        assert backend.started == [None]  # nothing reopened here
        await pilot.press("f5")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPicker))
        await pilot.press("enter")
        await wait_until(pilot, lambda: backend.started[-1:] == [rows[0].session_id])


@pytest.mark.parametrize(("title", "count", "line"), [
    ("Move config to TOML", 1, "  2026-12-01 · 1 message · 20261201-212118-552e6b"),  # it
    # read "1 messages"
    ("Move config to TOML", 12, "  2026-12-01 · 12 messages · 20261201-212118-552e6b"),
    # !commands alone: the one message is the system prompt, none is the person's
    ("!git status", 1, "  2026-12-01 · only commands · 20261201-212118-552e6b"),
    ("!git status", 3, "  2026-12-01 · 3 messages · 20261201-212118-552e6b"),
])
def test_a_rows_second_line_counts_its_messages(title, count, line) -> None:
    from paicli_tui.ui.backend import SessionRow
    from paicli_tui.ui.modals.session_picker import _two_lines

    row = SessionRow("20261201-212118-552e6b", title, "2026-12-01", count)
    assert _two_lines(row).renderables[1].plain == line


@pytest.mark.parametrize(("files", "chunks", "line"), [
    (1, 1, "index: 1 file, 1 chunk"),  # it read "1 files, 1 chunks"
    (1_204, 9_876, "index: 1,204 files, 9,876 chunks"),
])
def test_the_code_search_index_line_counts(files, chunks, line) -> None:
    from paicli_tui.ui.backend import IndexStatus
    from paicli_tui.ui.screens.code_search import status_line

    assert status_line(IndexStatus(indexed=True, files=files, chunks=chunks)) == line
