"""Index builds belong to the app: leaving the code search lets a build finish, the footer
shows its progress on every screen, the end is a toast, and the bar never sits full while
the embedder loads."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from pilot_helpers import open_panel, session_started, wait_until
from textual.widgets import Label, ProgressBar
from ui_fakes import FakeBackend, FakeClient, FakeCode, FakeSession, seeded_hits

from paicli_tui.app import PaicliApp
from paicli_tui.ui.backend import IndexStep
from paicli_tui.ui.index_job import IndexState, describe, footer_text
from paicli_tui.ui.screens.chat import ChatScreen
from paicli_tui.ui.screens.code_search import CodeSearchScreen
from paicli_tui.ui.widgets.app_footer import ActivityLabel
from paicli_tui.ui.widgets.setup_notice import WelcomeLine

SIZE = (100, 30)


class HeldCode(FakeCode):
    """A build that reports the real indexer's phases and waits at the embedder load."""

    def __init__(self) -> None:
        super().__init__(seeded_hits(), indexed=False)
        self.release = threading.Event()
        self.finished = False

    def index(self, progress: Callable[[IndexStep], None]) -> str:
        progress(IndexStep(23, 23, "", "scan", ""))
        progress(IndexStep(0, 23, "", "parse", "parsing changed files"))
        progress(IndexStep(0, 23, "", "embed", "0/120 chunks of this batch"))
        assert self.release.wait(20), "the test never released the build"
        for done in (64, 120):
            progress(IndexStep(done * 23 // 120, 23, "", "embed",
                                   f"{done}/120 chunks of this batch"))
        progress(IndexStep(23, 23, "", "done", ""))
        self.indexed = self.finished = True
        return "indexed 23 files (23 parsed, 0 unchanged, 0 removed, 0 skipped): 120 chunks in 1.0s"


def footer(app) -> str:
    """The footer's activity words, whole (its tooltip holds them where the footer says
    less); "" while the footer recomposes (its label is briefly gone: reading it then raised
    NoMatches now and then)."""
    labels = app.screen.query(ActivityLabel)
    if not labels or not labels.first().display:
        return ""
    return str(labels.first().tooltip or labels.first().render())


async def test_leaving_code_search_lets_the_build_finish(settings, project_dir):
    code = HeldCode()
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient(),
                          code_=code)
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await session_started(pilot)
        await open_panel(pilot, "f3", CodeSearchScreen)
        await pilot.press("ctrl+b")
        screen = app.screen
        await wait_until(pilot, lambda: "loading the embedder" in footer(app))
        # the embedder loads: the bar pulses (no total) instead of sitting full at scan 23/23
        bar = screen.query_one(ProgressBar)
        assert bar.display and bar.total is None
        assert "loading the embedder" in str(screen.query_one("#index-status", Label).render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
        # still running, shown on the chat's footer
        await wait_until(pilot, lambda: "index" in footer(app))
        code.release.set()
        await wait_until(pilot, lambda: code.finished and not app.index_job.running)
        await wait_until(pilot, lambda: any(n.title == "index ready"
                                            for n in app._notifications))
        await wait_until(pilot, lambda: footer(app) == "")
        # back in the panel: the finished index's figures, not a half-written 0 / 0
        await open_panel(pilot, "f3", CodeSearchScreen)
        status = app.screen.query_one("#index-status", Label)
        await wait_until(pilot, lambda: "42 files, 310 chunks" in str(status.render()))


def released_build_app(settings, project_dir) -> tuple[HeldCode, PaicliApp]:
    """An app whose index build runs through without waiting."""
    code = HeldCode()
    code.release.set()
    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient(),
                          code_=code)
    return code, PaicliApp(settings, project_dir, backend=backend)


async def test_index_command_builds_without_leaving_the_chat(settings, project_dir):
    code, app = released_build_app(settings, project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await session_started(pilot)
        app.screen.action_slash("/index")
        await wait_until(pilot, lambda: code.finished and not app.index_job.running)
        assert isinstance(app.screen, ChatScreen)
        await wait_until(pilot, lambda: any(n.title == "index ready"
                                            for n in app._notifications))
        # and the chat keeps a line of it (the toast goes; the welcome said "no index yet")
        await wait_until(pilot, lambda: any(
            str(n.source).startswith("Code index: ") for n in app.screen.query("ChatNotice")))


async def test_the_welcome_line_says_the_index_is_ready_once_index_built_it(settings,
                                                                            project_dir):
    """The welcome line said "no code index yet (/index builds it)" and kept saying it after
    /index had built the index; once the build ends it says "code index ready"."""
    code, app = released_build_app(settings, project_dir)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(app.screen.query(WelcomeLine)))
        welcome = app.screen.query_one(WelcomeLine)
        assert "no code index yet (/index builds it)" in str(welcome.render())
        app.screen.action_slash("/index")
        await wait_until(pilot, lambda: code.finished and not app.index_job.running)
        await wait_until(pilot, lambda: "code index ready" in str(welcome.render()))
        assert "no code index yet" not in str(welcome.render())


class FailingCode(HeldCode):
    """A build that fails once released (the embedder cannot load)."""

    def index(self, progress: Callable[[IndexStep], None]) -> str:
        progress(IndexStep(23, 23, "", "scan", ""))
        assert self.release.wait(20), "the test never released the build"
        raise RuntimeError("the embedder could not load")


@pytest.mark.parametrize(("code_kind", "after"), [
    (HeldCode, "code index ready"),
    (FailingCode, "no code index yet (/index builds it)"),  # nothing built: say so again
])
async def test_the_welcome_line_says_the_index_is_building_while_it_builds(settings,
                                                                          project_dir,
                                                                          code_kind, after):
    """Found in tmux: for the minutes a first build took, the welcome line above said "no
    code index yet (/index builds it)" while /index was running. It says the index is
    building until the build ends."""
    code = code_kind()
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, session=FakeSession(), client=FakeClient(), code_=code))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(app.screen.query(WelcomeLine)))
        welcome = app.screen.query_one(WelcomeLine)
        app.screen.action_slash("/index")
        await wait_until(pilot, lambda: "code index building (the footer shows how far)"
                         in str(welcome.render()), 30, lambda: str(welcome.render()))
        assert "no code index yet" not in str(welcome.render())
        code.release.set()
        await wait_until(pilot, lambda: after in str(welcome.render()), 30,
                         lambda: str(welcome.render()))


@pytest.mark.parametrize(("event", "loaded", "expected"), [
    (IndexStep(23, 23, "", "scan"), False, IndexState(True, 0, 0, "scanning files: 23 found")),
    (IndexStep(0, 23, "", "parse"), False,
     IndexState(True, 0, 0, "parsing changed files: 23 to index")),
    (IndexStep(0, 23, "", "embed", "0/120 chunks of this batch"), False,
     IndexState(True, 0, 0, "embedding 0/23 files · loading the embedder…")),
    (IndexStep(0, 23, "", "embed", "0/120 chunks of this batch"), True,
     IndexState(True, 0, 23, "embedding 0/23 files")),
    (IndexStep(12, 23, "", "embed", "64/120 chunks"), True,
     IndexState(True, 12, 23, "embedding 12/23 files")),
    (IndexStep(0, 1, "", "fulltext"), True, IndexState(True, 0, 0, "full-text index")),
    (IndexStep(5, 10, "indexing 5/10 files"), False,
     IndexState(True, 5, 10, "indexing 5/10 files")),
])
def test_progress_words_and_bar(event, loaded, expected) -> None:
    assert describe(event, loaded) == expected


@pytest.mark.parametrize(("state", "text"), [
    (IndexState(), ""),
    (IndexState(False, summary="indexed 3 files"), ""),
    (IndexState(True, 0, 0, "scanning files: 3 found"), "⟳ index: scanning files: 3 found"),
    (IndexState(True, 12, 23, "embedding 12/23 files"), "⟳ index 52%: embedding 12/23 files"),
])
def test_footer_text(state, text) -> None:
    assert footer_text(state) == text

