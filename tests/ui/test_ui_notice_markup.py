"""Text that is data — a memory, a file's path, a line of code — is shown as typed, never read
as console markup. Before, a memory saying ``arr[/i]`` crashed the whole app with a
MarkupError as soon as the memory browser (F2) drew it, accepting it crashed the notice, and
in the code search a Next.js route ``pages/[id].tsx`` was listed as ``pages/.tsx`` while a
line holding ``[/`` (a path-splitting regular expression) crashed the table.

What a person sees: the memory browser lists “Index with arr[/i] and [link=…]docs[/link].”
with its brackets; after ``y`` the notice reads “Accepted “Index with arr[/i] …”: …”; the
code search in grep mode lists ``pages/[id].tsx:2`` beside ``if (/[/\\]/.test(p)) split(p)``."""

from __future__ import annotations

from datetime import UTC, datetime

from pilot_helpers import (
    grep_in_code_search,
    open_panel,
    session_started,
    wait_for_screen,
    wait_until,
)
from ui_fakes import FakeBackend, FakeClient, FakeMemory, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.ui.backend import MemoryRow
from paicli_tui.ui.core_backend import CoreBackend
from paicli_tui.ui.screens.chat import ChatScreen
from paicli_tui.ui.screens.code_search import CodeSearchScreen
from paicli_tui.ui.screens.context_inspector import ContextInspector
from paicli_tui.ui.screens.memory import MemoryScreen

TEXT = "Index with arr[/i] and [link=https://evil.example]docs[/link]."
SIZE = (100, 30)


async def test_a_memory_with_markup_in_it_is_shown_and_quoted_as_text(settings, project_dir
                                                                       ) -> None:
    now = datetime.now(UTC).isoformat()
    memory = FakeMemory([MemoryRow("m1", "project", TEXT, now[:10], now[:10], False, "auto",
                                   True, now)])
    backend = FakeBackend(settings, project_dir, memory_=memory, client=FakeClient(),
                          session=FakeSession())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await open_panel(pilot, "f2", MemoryScreen)
        table = app.screen.panel.query_one("DataTable")
        await wait_until(pilot, lambda: table.row_count == 1)
        keys = [str(c.key.value) for c in table.columns.values()]
        assert str(table.get_row_at(0)[keys.index("content")]) == TEXT
        await pilot.press("y")
        await wait_until(pilot, lambda: any(n.message.startswith("Accepted “Index with arr[/i]")
                                            for n in app._notifications))
        await pilot.pause(0.3)  # the notice is drawn
        assert isinstance(app.screen, MemoryScreen) and app.is_running
        assert not any(n.markup for n in app._notifications)


async def test_code_search_lists_paths_and_lines_with_brackets_as_they_are(
        settings, project_dir) -> None:
    pages = project_dir / "pages"
    pages.mkdir()
    (pages / "[id].tsx").write_text("// route\nif (/[/\\\\]/.test(p)) split(p)\n",
                                    encoding="utf-8")
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=SIZE) as pilot:
        await session_started(pilot)
        panel = await grep_in_code_search(pilot, "split", 1)
        await pilot.pause(0.3)  # the table is drawn
        table = panel.query_one("DataTable")
        assert [str(cell) for cell in table.get_row_at(0)][:2] == [
            "pages/[id].tsx:2", "if (/[/\\\\]/.test(p)) s…"]
        assert isinstance(app.screen, CodeSearchScreen) and app.is_running


async def test_a_conflict_with_markup_in_the_stored_memory_is_shown_as_text(
        settings, project_dir) -> None:
    """The conflict dialog lists the stored memory “The project uses Java 17 [/i] …” with its
    brackets; Keep both saves the new one."""
    from paicli_tui.core.memory.book import MemoryBook
    from paicli_tui.ui.modals.conflict import ConflictModal
    from paicli_tui.ui.widgets.prompt_input import PromptInput

    MemoryBook(settings, project_dir).save("The project uses Java 17 [/i] everywhere",
                                           scope="project")
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=SIZE) as pilot:
        await session_started(pilot)
        app.screen.query_one(PromptInput).load_text("/save The project uses Java 21 everywhere")
        await pilot.press("enter")
        await wait_for_screen(pilot, ConflictModal)
        await pilot.pause(0.3)  # the dialog is drawn
        options = app.screen.query_one("OptionList")
        assert str(options.get_option_at_index(0).prompt).startswith(
            "The project uses Java 17 [/i] everywhere")
        await pilot.press("k")
        await wait_until(pilot, lambda: len(MemoryBook(settings, project_dir).list_visible())
                         == 2)


async def test_a_sub_agent_labelled_with_markup_is_listed_as_text(settings, project_dir
                                                                  ) -> None:
    """The context inspector (F4) lists the sub-agent labelled “fix a[/i]” as '✓ fix a[/i]'
    under 'Sub-agents' (before, the inspector crashed the app drawing it)."""
    from paicli_tui.core.agent.subagent_record import SubAgentRecord

    session = FakeSession()
    session.subagent_records = [SubAgentRecord("s1.sub-1", "fix a[/i]", status="done",
                                               messages=3, history_tokens=900)]
    app = PaicliApp(settings, project_dir, backend=FakeBackend(
        settings, project_dir, client=FakeClient(), session=session))
    async with app.run_test(size=SIZE) as pilot:
        # F4 opens the inspector once the session has started (before, it says "still
        # starting"); a busy machine is slow to start it
        await wait_for_screen(pilot, ChatScreen)
        await wait_until(pilot, lambda: app.screen.session is not None)
        await open_panel(pilot, "f4", ContextInspector)
        table = app.screen.query_one("#subagents")
        await wait_until(pilot, lambda: table.row_count == 1)
        await pilot.pause(0.3)  # drawn
        assert [str(c) for c in table.get_row_at(0)][:2] == ["✓", "fix a[/i]"]
        assert app.is_running
