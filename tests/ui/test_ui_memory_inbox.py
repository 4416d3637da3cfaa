"""The memory inbox: automatic memories written since the person last looked are counted in
every footer and marked `new` in the browser (which opens on the inbox then); `y` accepts
(verifies) and `n` rejects (deletes, no question) with one key; a save during a turn updates
the count; `/memory delete` checks the id before asking anything."""

from __future__ import annotations

from datetime import UTC, datetime

from pilot_helpers import open_panel, session_started, wait_until
from textual.widgets import Select
from ui_fakes import FakeBackend, FakeClient, FakeMemory, FakeSession, seeded_memories

from paicli_tui.app import PaicliApp
from paicli_tui.core.contracts import events as ev
from paicli_tui.ui.backend import MemoryRow
from paicli_tui.ui.memory_inbox import inbox_text, new_since
from paicli_tui.ui.modals.confirm import ConfirmModal
from paicli_tui.ui.screens.chat import ChatScreen
from paicli_tui.ui.screens.memory import MemoryScreen
from paicli_tui.ui.screens.memory_rows import done_message, resolve_id
from paicli_tui.ui.widgets.app_footer import ActivityLabel

SIZE = (100, 30)


def footer(app) -> str | None:
    """The footer's activity words; None while the footer is being recomposed (Textual's
    Footer rebuilds its children when the bindings change, e.g. on a focus change)."""
    labels = app.screen.query(ActivityLabel)
    if not labels:
        return None
    label = labels.first()
    return str(label.render()) if label.display else ""


def auto_row(memory_id: str, text: str) -> MemoryRow:
    now = datetime.now(UTC).isoformat()
    return MemoryRow(memory_id, "project", text, now[:10], now[:10], False, "auto", True, now)


def marks(panel) -> dict[str, str]:
    from textual.widgets import DataTable

    table = panel.query_one(DataTable)
    keys = [str(c.key.value) for c in table.columns.values()]
    return {str(table.coordinate_to_cell_key((i, 0)).row_key.value):
            str(table.get_row_at(i)[keys.index("mark")]) for i in range(table.row_count)}


async def test_inbox_counts_marks_accepts_and_rejects(settings, project_dir):
    memory = FakeMemory(seeded_memories())

    async def extracted(session):  # the turn's background extraction saves one memory
        memory.rows_.append(auto_row("m9", "Tests run with pytest -q in CI."))
        session.notices.append(
            ev.MemoryNotice("saved", "remembered: Tests run with pytest -q in CI.", ("m9",)))

    backend = FakeBackend(settings, project_dir, memory_=memory, client=FakeClient(),
                          session=FakeSession(script=[extracted]))
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        # never looked: the one automatic memory is new
        await wait_until(pilot, lambda: footer(app) == "✉ 1 new memory (F2)")
        await open_panel(pilot, "f2", MemoryScreen)
        panel = app.screen.panel
        await wait_until(pilot, lambda: marks(panel) == {"m3": "new"})
        assert panel.query_one("#memory-scope", Select).value == "inbox"
        await wait_until(pilot, lambda: footer(app) == "")  # looking empties the count
        await pilot.press("y")
        await wait_until(pilot, lambda: not next(r for r in panel.rows if r.id == "m3").pending)
        assert any(n.message.startswith("Accepted “项目统一使用") for n in app._notifications)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
        # a turn saves a memory automatically: the footer counts it
        app.screen.prompt.load_text("we use pytest")
        await pilot.press("enter")
        await wait_until(pilot, lambda: footer(app) == "✉ 1 new memory (F2)")
        await open_panel(pilot, "f2", MemoryScreen)
        panel = app.screen.panel
        await wait_until(pilot, lambda: marks(panel) == {"m9": "new"})
        await pilot.press("n")  # rejected at once: no confirmation for an automatic memory
        await wait_until(pilot, lambda: all(r.id != "m9" for r in memory.rows_))
        assert not isinstance(app.screen, ConfirmModal)
        assert any(n.message == "Rejected and deleted “Tests run with pytest -q in CI.”."
                   for n in app._notifications)


def column(panel, key: str) -> dict[str, str]:
    """Each row's cell of one column, by memory id."""
    from textual.widgets import DataTable

    table = panel.query_one(DataTable)
    keys = [str(c.key.value) for c in table.columns.values()]
    return {str(table.coordinate_to_cell_key((i, 0)).row_key.value):
            str(table.get_row_at(i)[keys.index(key)]) for i in range(table.row_count)}


async def test_an_automatic_memory_awaiting_review_is_not_verified_yet(settings, project_dir):
    """The inbox listed an automatic memory the person had never looked at with its save
    date under "verified", beside "new" and "auto"; accepting it is what verifies it."""
    memory = FakeMemory(seeded_memories())
    backend = FakeBackend(settings, project_dir, memory_=memory, client=FakeClient(),
                          session=FakeSession())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await open_panel(pilot, "f2", MemoryScreen)
        panel = app.screen.panel
        await wait_until(pilot, lambda: column(panel, "verified") == {"m3": "not yet"})
        panel.query_one("#memory-scope", Select).value = "all"
        await wait_until(pilot, lambda: len(column(panel, "verified")) == 3)
        verified = column(panel, "verified")
        assert verified["m3"] == "not yet" and verified["m1"] == "2026-09-01"


async def test_memory_delete_checks_the_id_before_asking(settings, project_dir):
    backend = FakeBackend(settings, project_dir, memory_=FakeMemory(seeded_memories()),
                          client=FakeClient(), session=FakeSession())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await session_started(pilot)
        app.screen.action_slash("/memory delete nosuchid")
        await wait_until(pilot, lambda: any("No memory with id nosuchid" in n.message
                                            for n in app._notifications))
        assert not isinstance(app.screen, ConfirmModal)
        assert len(backend.memory_.rows_) == 3


def test_new_since_and_words() -> None:
    rows = [auto_row("a", "x"), MemoryRow("b", "project", "y", "", "", False, "explicit"),
            MemoryRow("c", "project", "z", "", "", False, "auto", True,
                      "2026-01-01T00:00:00+00:00")]
    seen = datetime(2026, 6, 1, tzinfo=UTC)
    assert [r.id for r in new_since(rows, None)] == ["a", "c"]
    assert [r.id for r in new_since(rows, seen)] == ["a"]
    assert (inbox_text(0), inbox_text(1), inbox_text(3)) == (
        "", "✉ 1 new memory (F2)", "✉ 3 new memories (F2)")
    assert resolve_id(rows, "a")[0].id == "a"
    assert resolve_id(rows, "q") == (None, "No memory with id q here (F2 lists them).")
    assert done_message("verify", "Uses Java 17") == (
        "Verified “Uses Java 17”: checked today, no longer possibly stale.")
    assert done_message("replace", "Uses Java 17", "Uses Java 21") == (
        "Replaced “Uses Java 17” with “Uses Java 21”.")


async def test_y_on_your_own_memory_and_an_unchanged_replace_change_nothing(settings,
                                                                            project_dir):
    """Found in tmux (keys typed into the browser by mistake): `y` on a memory the person
    saved said "Accepted …: it is yours now" and marked it verified today, and `e` then
    Enter on the unchanged text said "Replaced “X” with “X”" and wrote it again. Now `y`
    on such a memory says it is yours already (y is for the inbox), the unchanged replace
    says "Nothing changed", and neither touches the memory."""
    memory = FakeMemory(seeded_memories()[:2])
    backend = FakeBackend(settings, project_dir, memory_=memory, client=FakeClient(),
                          session=FakeSession())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await open_panel(pilot, "f2", MemoryScreen)
        panel = app.screen.panel
        await wait_until(pilot, lambda: len(panel.rows) == 2 and panel.selected() is not None)
        before = list(memory.rows_)
        row = panel.selected()
        await pilot.press("y")
        await wait_until(pilot, lambda: any("is yours already" in n.message
                                            for n in app._notifications))
        await pilot.press("e")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "TextEntryModal")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any(n.message == "Nothing changed: the text is the "
                                            "same." for n in app._notifications))
        await pilot.pause(0.2)
        assert memory.rows_ == before
        assert not any(n.message.startswith(("Accepted", "Replaced"))
                       for n in app._notifications), row


async def test_a_cut_memory_ends_with_an_ellipsis(settings, project_dir):
    """Found in tmux at 60x20: the memory column cut its text mid-word with nothing to show
    it ("用 uv 管理依赖，不要" read as the whole memory). A cut memory now ends with "…"
    (both seeded ones are wider than the column at 60 columns)."""
    from textual.widgets import DataTable

    memory = FakeMemory(seeded_memories()[:2])
    backend = FakeBackend(settings, project_dir, memory_=memory, client=FakeClient(),
                          session=FakeSession())
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(pilot, lambda: app.screen.session is not None)
        await open_panel(pilot, "f2", MemoryScreen)
        table = app.screen.panel.query_one(DataTable)
        await wait_until(pilot, lambda: table.row_count == 2)
        await pilot.pause()
        lines = [table.render_line(y).text for y in range(1, 3)]  # under the header
        assert all("…" in line for line in lines), lines


async def test_save_in_the_chat_quotes_what_it_saved(settings, project_dir):
    """Found in tmux: `/save 测试用 pytest -q 跑，不要用 unittest` answered "Saved
    738733f283 (project).", an id, where every other memory toast says what it did in words.
    A person now reads "Saved “测试用 pytest -q 跑，不要用 unittest” (project).", as the
    memory browser's add says; and reads it in the chat, with the file it went to, where
    before a toast went by and the file was named nowhere."""
    from ui_fakes import FakeBackend, FakeClient, FakeSession

    from paicli_tui.app import PaicliApp
    from paicli_tui.ui.widgets.notice import ChatNotice

    backend = FakeBackend(settings, project_dir, session=FakeSession(), client=FakeClient())
    app = PaicliApp(settings, project_dir, backend=backend)
    toasts: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await session_started(pilot)
        app.notify = lambda message, **kw: toasts.append(str(message))  # type: ignore
        app.screen.notify = app.notify  # type: ignore
        from paicli_tui.ui.widgets.prompt_input import PromptInput

        app.screen.query_one(PromptInput).load_text("/save 测试用 pytest -q 跑，不要用 unittest")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any(str(n.source).startswith("Saved")
                                            for n in app.screen.query(ChatNotice)))
        said = [str(n.source) for n in app.screen.query(ChatNotice)
                if str(n.source).startswith("Saved")]
    memory_file = settings.home.memory_file
    assert said == ["Saved “测试用 pytest -q 跑，不要用 unittest” (project). Stored in "
                    f"`{memory_file}` (/memory lists it)."], said
    assert toasts == []
