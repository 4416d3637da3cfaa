"""Pilot flows through the panels on the real memory store and the real grep search."""

from __future__ import annotations

from pilot_helpers import grep_in_code_search, wait_for_screen, wait_until

from paicli_tui.app import PaicliApp
from paicli_tui.core.memory.book import MemoryBook
from paicli_tui.ui.core_backend import CoreBackend
from paicli_tui.ui.modals.conflict import ConflictModal
from paicli_tui.ui.modals.text_entry import TextEntryModal
from paicli_tui.ui.screens.chat import ChatScreen
from paicli_tui.ui.screens.code_search import CodeSearchScreen
from paicli_tui.ui.screens.memory import MemoryScreen
from paicli_tui.ui.screens.memory_rows import filter_rows
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.prompt_input import PromptInput

SIZE = (100, 30)


def table_texts(screen: MemoryScreen) -> list[str]:
    table = screen.query_one("DataTable")
    return [str(table.get_row_at(i)[1]) for i in range(table.row_count)]


async def settle(pilot) -> None:
    """Let workers run; never waits on workers that are awaiting a dialog."""
    for _ in range(6):
        await pilot.pause(0.05)


async def test_add_conflict_replace_shows_the_new_text(settings, project_dir):
    MemoryBook(settings, project_dir).save("The project uses Java 17", scope="project")
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await wait_for_screen(pilot, MemoryScreen)
        await settle(pilot)
        screen = app.screen
        await wait_until(pilot, lambda: table_texts(screen) == ["The project uses Java 17"])
        await pilot.press("a")
        await wait_for_screen(pilot, TextEntryModal)
        await pilot.press(*"The project uses Java 21", "enter")
        await wait_for_screen(pilot, ConflictModal)
        await pilot.press("r")
        await wait_until(pilot, lambda: table_texts(screen) == ["The project uses Java 21"])
        assert app.screen is screen


async def test_save_from_the_input_keep_both(settings, project_dir):
    MemoryBook(settings, project_dir).save("The project uses Java 17", scope="project")
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one(PromptInput).load_text("/save The project uses Java 21")
        await pilot.press("enter")
        await wait_for_screen(pilot, ConflictModal)
        await pilot.press("k")

        def contents() -> list[str]:
            return sorted(e.content for e in MemoryBook(settings, project_dir).list_visible())

        await wait_until(pilot, lambda: contents() == ["The project uses Java 17",
                                                       "The project uses Java 21"])


async def test_search_preview_insert_reference(settings, project_dir):
    (project_dir / "loader.py").write_text(
        "import os\n\n\ndef load_settings(env):\n    return dict(env)\n", encoding="utf-8")
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await wait_for_screen(pilot, CodeSearchScreen)
        await settle(pilot)
        screen = app.screen
        panel = screen.panel
        await wait_until(pilot, lambda: panel.mode == "grep")  # no index: exact search first
        await pilot.press(*"load_settings", "enter")
        await wait_until(pilot, lambda: [h.reference for h in panel.hits] == ["loader.py:4"])
        assert panel.previewed is not None
        assert "def load_settings" in panel.previewed.preview
        await pilot.press("down", "enter")
        await wait_for_screen(pilot, ChatScreen)
        assert app.screen.query_one(PromptInput).text == "loader.py:4 "


def test_filter_rows_by_scope_and_words() -> None:
    from paicli_tui.ui.backend import MemoryRow

    rows = [MemoryRow("a", "project", "Uses Java 17", "", ""),
            MemoryRow("b", "global", "Prefers Chinese answers", "", ""),
            MemoryRow("c", "project", "项目统一使用 UTF-8", "", "")]
    cases = [("all", "", ["a", "b", "c"]), ("project", "", ["a", "c"]),
             ("global", "", ["b"]), ("all", "java", ["a"]), ("all", "utf-8 项目", ["c"]),
             ("global", "java", []), ("all", "b", ["b"])]
    for scope, text, expected in cases:
        assert [r.id for r in filter_rows(rows, scope, text)] == expected, (scope, text)


async def test_refused_save_says_why_and_writes_nothing(settings, project_dir):
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one(PromptInput).load_text("/save " + "x" * 2_500)
        await pilot.press("enter")
        await wait_until(pilot, lambda: any(  # in the chat, where a toast went by
            str(n.source).startswith("Memory not saved: ") for n in app.screen.query(ChatNotice)))
        assert MemoryBook(settings, project_dir).list_visible() == []


async def test_grep_results_show_the_matched_line_and_the_count(settings, project_dir):
    """In grep mode a person sees, for each place, the line that matched (the definition
    `class Progress(JupyterMixin):` first), the column titled "matched line", scores falling
    down the list, and under the results how many lines matched in how many files."""
    (project_dir / "progress.py").write_text(
        "from typing import TypeVar\n\nProgressType = TypeVar('ProgressType')\n\n\n"
        "def track(items) -> list[ProgressType]:\n    with Progress() as progress:\n"
        "        return list(items)\n" + "\n" * 40 + "class Progress(JupyterMixin):\n"
        "    pass\n", encoding="utf-8")
    (project_dir / "bar.py").write_text("from .progress import Progress\n", encoding="utf-8")
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = await grep_in_code_search(pilot, "Progress", 3)
        table = panel.query_one("DataTable")
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert [row[:2] for row in rows] == [  # 23 cells for the line at 100 columns
            ["progress.py:49", "class Progress(Jupyter…"],
            ["progress.py:7", "with Progress() as pro…"],
            ["bar.py:1", "from .progress import …"]]
        scores = [float(row[2]) for row in rows]
        assert scores == sorted(scores, reverse=True)
        assert [str(c.label) for c in table.columns.values()] == [
            "location", "matched line", "score"]
        summary = str(panel.query_one("#code-summary").render())
        assert summary == "5 matching lines in 2 files · "
        # the preview shows the lines around the match, numbered from the file
        assert panel.previewed is not None and panel.previewed.preview_start == 46
        assert "class Progress(JupyterMixin):" in panel.previewed.preview
        # back in hybrid mode (no index here) the summary goes away
        await pilot.press("ctrl+g", "ctrl+g", "ctrl+g")
        await wait_until(pilot, lambda: panel.mode == "hybrid")
        await wait_until(pilot, lambda: not panel.query_one("#code-summary").display)


async def test_a_filter_matching_no_memory_says_it_reads_words_and_enter_ranks(
        settings, project_dir):
    MemoryBook(settings, project_dir).save("Tests use the standard testing package",
                                           scope="project")
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.query_one(PromptInput).load_text("/memory list")
        await pilot.press("enter")
        await wait_for_screen(pilot, MemoryScreen)
        await settle(pilot)
        status = app.screen.query_one("#memory-status")
        app.screen.query_one("#memory-filter").value = "testing framework"
        await wait_until(pilot, lambda: str(status.render()).startswith("0 of 1 memory"))
        assert str(status.render()) == "0 of 1 memory · no word match · Enter: by meaning"
        app.screen.query_one("#memory-filter").value = "testing"  # a word it holds: no line
        await wait_until(pilot, lambda: str(status.render()) == "1 of 1 memory")


async def test_a_memory_its_column_cuts_is_shown_whole_under_the_table(settings, project_dir):
    long = ("Release builds run make dist, then upload the archives to the staging bucket "
            "and wait for the smoke tests before tagging")
    MemoryBook(settings, project_dir).save(long, scope="project")
    MemoryBook(settings, project_dir).save("Uses Go 1.22", scope="project")
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await wait_for_screen(pilot, MemoryScreen)
        screen = app.screen
        await wait_until(pilot, lambda: len(table_texts(screen)) == 2)
        detail = screen.query_one("#memory-detail")
        for _ in range(2):  # each row highlighted in turn: the cut one shows whole
            await settle(pilot)
            shown = screen.panel.selected().content
            assert detail.display == (shown == long), shown
            assert str(detail.render()) == (long if shown == long else "")
            await pilot.press("down")
