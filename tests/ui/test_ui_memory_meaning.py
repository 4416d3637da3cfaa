"""The memory browser ranks by meaning where words fail, as `memory search` does: the filter
matches words as they are typed (instant, any language), Enter on a filter that no memory
holds every word of ranks the memories by meaning, and `/memory search TEXT` opens ranked.
Before, the browser read words only: "测试框架" found nothing where the command line found
"Tests use the standard testing package"."""

from __future__ import annotations

from dataclasses import replace

from pilot_helpers import wait_for_screen, wait_until
from textual.geometry import Region
from textual.widgets import DataTable
from ui_fakes import FakeBackend, FakeMemory, seeded_memories

from paicli_tui.app import PaicliApp
from paicli_tui.core.memory.book import MemoryBook
from paicli_tui.ui.core_backend import CoreBackend
from paicli_tui.ui.screens.memory import MemoryScreen
from paicli_tui.ui.screens.memory_rows import ranked_rows
from paicli_tui.ui.widgets.prompt_input import PromptInput


def reviewed() -> list:
    """The seeded memories with none awaiting review (the browser would open on its inbox)."""
    return [replace(row, pending=False) for row in seeded_memories()]


def ids(screen) -> list[str]:
    table = screen.query_one(DataTable)
    return [str(table.coordinate_to_cell_key((i, 0)).row_key.value)
            for i in range(table.row_count)]


def status(screen) -> str:
    return str(screen.query_one("#memory-status").render())


def test_a_ranking_keeps_its_order_and_the_scope() -> None:
    rows = seeded_memories()
    assert [r.id for r in ranked_rows(rows, "all", ["m3", "m1", "gone"])] == ["m3", "m1"]
    assert [r.id for r in ranked_rows(rows, "global", ["m3", "m2", "m1"])] == ["m2"]
    assert [r.id for r in ranked_rows(rows, "inbox", ["m1", "m3"])] == ["m3"]  # awaits review


def browser_app(settings, project_dir, memory: FakeMemory) -> PaicliApp:
    return PaicliApp(settings, project_dir, backend=FakeBackend(settings, project_dir,
                                                               memory_=memory))


async def open_browser(pilot, app, command: str):
    app.screen.query_one(PromptInput).load_text(command)
    await pilot.press("enter")
    await wait_for_screen(pilot, MemoryScreen)
    return app.screen


async def test_enter_on_a_filter_no_memory_holds_ranks_them_by_meaning(settings, project_dir):
    memory = FakeMemory(reviewed(), ranking={"build tool": ["m1", "m3"]})
    app = browser_app(settings, project_dir, memory)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_browser(pilot, app, "/memory")
        await wait_until(pilot, lambda: len(ids(screen)) == 3)
        await pilot.press("slash", *"java")  # words as typed: no ranking asked
        await wait_until(pilot, lambda: ids(screen) == ["m1"])
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert memory.searched == [] and status(screen).startswith("1 of 3 memories · 1 possibly")
        await pilot.press("slash", "ctrl+u", *"build tool")
        await wait_until(pilot, lambda: ids(screen) == [])
        assert status(screen) == "0 of 3 memories · no word match · Enter: by meaning"
        await pilot.press("enter")
        await wait_until(pilot, lambda: ids(screen) == ["m1", "m3"])
        assert memory.searched == ["build tool"]
        assert status(screen).startswith("2 of 3 memories by meaning · type for words")
        assert screen.focused is screen.query_one(DataTable)
        # the scope still applies to a ranking
        screen.query_one("#memory-scope").value = "global"
        await wait_until(pilot, lambda: ids(screen) == [])
        assert status(screen) == "0 of 3 memories by meaning: none is relevant enough · type "\
            "for words"
        screen.query_one("#memory-scope").value = "all"
        # any edit of the filter goes back to words
        await pilot.press("slash", "end", "backspace")
        await wait_until(pilot, lambda: status(screen).startswith("0 of 3 memories · no word"), 30,
                         lambda: status(screen))


async def test_a_ranking_that_fails_says_why_and_a_late_one_is_dropped(settings, project_dir):
    memory = FakeMemory(reviewed(),
                        ranking={"deploy": OSError("embedder files missing"),
                                 "old words": ["m2"]})
    app = browser_app(settings, project_dir, memory)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_browser(pilot, app, "/memory search deploy")
        await wait_until(pilot, lambda: "failed" in status(screen), 30,
                         lambda: status(screen))
        assert status(screen) == "0 of 3 memories · by meaning failed: embedder files missing"
        await pilot.press("slash", "enter")  # Enter in the filter tries again
        await wait_until(pilot, lambda: memory.searched == ["deploy", "deploy"])
        # an answer for a filter the person has since changed is not shown
        panel = screen.query_one("MemoryPanel")
        screen.query_one("#memory-filter").value = "java"
        panel.post_message(panel.Ranked("old words", ["m2"]))
        await pilot.pause(0.2)
        assert ids(screen) == ["m1"] and status(screen).startswith("1 of 3 memories · 1 possibly")


async def test_memory_search_in_the_chat_ranks_by_meaning_across_languages(
        settings, project_dir):
    """The real retrieval: a Chinese query finds the English memory that shares no word
    with it, and not the unrelated ones."""
    book = MemoryBook(settings, project_dir)
    for text in ("Tests use the standard testing package",
                 "Production MySQL is only reachable through the bastion host",
                 "前端使用 pnpm 管理依赖，不要用 npm"):
        book.save(text, scope="project")
    app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_browser(pilot, app, "/memory search 测试框架")
        await wait_until(pilot, lambda: "type for words" in status(screen), 120)
        table = screen.query_one(DataTable)
        texts = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        assert texts == ["Tests use the standard testing package"]
        assert status(screen).startswith("1 of 3 memories by meaning · type for words")


def shown(widget) -> str:
    """The widget's text as the terminal shows it (what its height and width leave)."""
    return " ".join(strip.text.strip() for strip in
                    widget.render_lines(Region(0, 0, widget.size.width, widget.size.height)))


async def test_a_ranking_status_wraps_whole_on_a_small_terminal(settings, project_dir):
    """At 60 columns '1 of 3 memories by meaning · type for words · 1 possibly stale (v
    verifies)' lost its end (as the awaiting-review and stale counts did in any status)."""
    memory = FakeMemory(reviewed(), ranking={"how do we version releases": ["m1"]})
    app = browser_app(settings, project_dir, memory)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_browser(pilot, app, "/memory search how do we version releases")
        await wait_until(pilot, lambda: "by meaning" in status(screen), 30,
                         lambda: status(screen))
        await pilot.pause()
        line = screen.query_one("#memory-status")
        assert " ".join(shown(line).split()) == " ".join(status(screen).split())
        assert shown(line).endswith("1 possibly stale (v verifies)")


async def test_a_ranking_without_meaning_says_keywords_ranked_it(settings, project_dir):
    """The embedder cannot be reached (Ollama not started): the real service ranks by the
    rare words the memories share, fails nothing and only logs it; the browser said "by
    meaning" all the same. It says that keywords ranked them, and why."""
    from doubles.closed_port import refusing_port

    with refusing_port() as port:
        settings = settings.with_overrides(embedder="ollama:nomic-embed-text",
                                           ollama_host=f"127.0.0.1:{port}")
        MemoryBook(settings, project_dir).save("Tests use the standard testing package",
                                               scope="project")
        app = PaicliApp(settings, project_dir, backend=CoreBackend(settings, project_dir))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_browser(pilot, app, "/memory search testing framework")
            await wait_until(pilot, lambda: "type for words" in status(screen), 60,
                             lambda: status(screen))
            assert ids(screen) != []  # "testing" found it
            assert status(screen).startswith("1 of 1 memory by keywords, no meaning "
                                             "(embedder failed: "), status(screen)
            assert "ollama serve" in status(screen)
