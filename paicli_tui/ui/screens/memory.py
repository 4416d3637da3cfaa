"""The memory browser: visible memories in a table, filter, verify / replace / delete / add."""

from __future__ import annotations

import asyncio
from datetime import datetime

from rich.cells import cell_len
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Input, Label, Select, Static

from ...core.plural import counted
from ..backend import Backend, MemoryRow, SensitiveText
from ..memory_decision import confirm_sensitive, quoted, save_asking, saved_message
from ..memory_inbox import MemoryInbox, new_since
from ..widgets.panel import Panel
from ..widgets.typed_input import TypedInput
from .memory_rows import (
    LISTED_AT_MOST,
    NO_WORD_MATCH,
    NOT_VERIFIED,
    RANKED_ASKED,
    READING,
    SCOPES,
    done_message,
    filter_rows,
    memory_columns,
    project_memories,
    ranked_rows,
    resolve_id,
    status_counts,
)
from .panel_screen import PanelScreen


class MemoryPanel(Panel):
    title = "memory"
    BINDINGS = [
        Binding("a", "add", "Add"),
        Binding("e", "replace", "Replace"),
        Binding("v", "verify", "Verify"),
        Binding("d", "delete", "Delete"),
        Binding("y", "accept", "Accept"),
        Binding("n", "reject", "Reject"),
        Binding("slash", "focus_filter", "Filter"),
        Binding("ctrl+r", "reload", "Reload", show=False),
        Binding("down", "focus_table", "List", show=False),
    ]

    def __init__(self, backend: Backend, filter_text: str = "",
                 command: tuple[str, str] | None = None, *, rank: bool = False) -> None:
        super().__init__(classes="memory-panel")
        self.backend = backend
        self.filter_text = filter_text
        self.command = command
        self.rank_on_open = rank and bool(filter_text.strip())
        """`/memory search TEXT`: rank by meaning once the memories are read."""
        self.ranking: tuple[str, list[str], str, str] | None = None
        """The filter text last ranked by meaning, the ids found (best first), why it could
        not be ranked ("" when it was) and why no embedder read its meaning ("" when one
        did); shown while the filter holds that text (any edit goes back to words)."""
        self.ranking_asked: str | None = None
        """The filter text a ranking is under way for (Enter again does not start another:
        each one runs to its end in its thread, and the first may load the embedder)."""
        self.rows: list[MemoryRow] = []
        self.read_once = False
        """The store was read (until then an empty list is not an empty store)."""
        self.read_problem = ""
        """Why the store could not be read, while it could not."""
        self._width = 0
        self.new_ids: set[str] = set()
        """Automatic memories written since the person last looked (marked `new`)."""
        self._seen_before: datetime | None = None
        self._looked = False
        self._looked_once_at_inbox = False

    def reopen(self) -> MemoryPanel:
        """The same panel for the dock or the full screen: the filter, and its ranking by
        meaning (moved, a ranked view went back to words and its answer was dropped)."""
        text = self.query_one("#memory-filter", Input).value
        fresh = MemoryPanel(self.backend, text, rank=self.ranking_asked == text)
        fresh.ranking = self.ranking
        return fresh

    def focus_first(self) -> None:
        self.query_one(DataTable).focus()

    def as_screen(self) -> MemoryScreen:
        return MemoryScreen(self.backend, panel=self)

    def compose(self) -> ComposeResult:
        with Horizontal(classes="toolbar"):
            yield TypedInput(self.filter_text, placeholder="filter memories…", id="memory-filter")
            yield Select(SCOPES, value="all", allow_blank=False, id="memory-scope")
        yield DataTable(id="memory-table", cursor_type="row", zebra_stripes=True)
        # the highlighted memory whole, when its column cut it (at 80 columns past ~40 cells)
        yield Static("", id="memory-detail", markup=False)
        yield Label("", id="memory-status", classes="status-line", markup=False)

    def on_mount(self) -> None:
        self._columns(self.size.width)
        self.query_one(DataTable).focus()
        self.reload()

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self._columns(event.size.width)
            self._fill()

    def _columns(self, width: int) -> None:
        """The memory text takes what the other columns leave (a dock, 80 columns)."""
        self._width = width
        table = self.query_one(DataTable)
        table.clear(columns=True)
        for key, label, size in memory_columns(width):
            table.add_column(label, key=key, width=size)

    # -- data ------------------------------------------------------------------------------
    class Loaded(Message):
        """The memories :meth:`reload` read in its thread, or why it could not."""

        bubble = False

        def __init__(self, rows: list[MemoryRow], problem: str = "") -> None:
            super().__init__()
            self.rows = rows
            self.problem = problem

    @work(exclusive=True, group="memory-load", exit_on_error=False, thread=True)
    def reload(self) -> None:
        try:
            rows = self.backend.memory().rows()
        except Exception as exc:
            self.post_message(self.Loaded([], f"Cannot read memories: {exc}"))
            return
        self.post_message(self.Loaded(rows))

    @on(Loaded)
    def loaded(self, message: Loaded) -> None:
        self.read_problem = message.problem
        if message.problem:
            self._status(message.problem)
            return
        rows = message.rows
        self.rows = rows
        self.read_once = True
        inbox = self._inbox()
        if inbox is not None:
            inbox.stored.publish(len(rows))  # the chat's welcome line keeps the count
            if not self._looked:  # opening the browser is looking at the inbox
                self._looked = True
                self._seen_before = inbox.looked()
                inbox.changed.subscribe(self, self._inbox_changed)
            self.new_ids = {r.id for r in new_since(rows, self._seen_before)}
            if self.new_ids and not self._looked_once_at_inbox:
                self._looked_once_at_inbox = True
                self.query_one("#memory-scope", Select).value = "inbox"
        self._fill()
        if self.rank_on_open:
            self.rank_on_open = False
            self._start_ranking(self.filter_text)
        if self.command is not None:
            action, argument = self.command
            self.command = None
            self._run_command(action, argument)

    def _fill(self) -> None:
        if not self.read_once:
            # the table laid out before the store was read: "0 of 0 memories" there read
            # as a lost memory for the seconds a loaded machine takes to read it
            self._status(self.read_problem or READING)
            return
        table = self.query_one(DataTable)
        scope = str(self.query_one("#memory-scope", Select).value)
        text = self.query_one("#memory-filter", Input).value
        ranking = self.ranking if self.ranking and self.ranking[0] == text else None
        problem = ranking[2] if ranking else ""
        ranked = ranking is not None and not problem
        shown = ranked_rows(self.rows, scope, ranking[1]) if ranking and ranked \
            else filter_rows(self.rows, scope, text)
        table.clear()
        keys = [str(c.key.value) for c in table.columns.values()]
        for row in shown[:LISTED_AT_MOST]:
            # Text: a memory is data, not console markup ("arr[/i]" in one crashed the table)
            cells = {"scope": row.scope, "written": row.written,
                     "content": Text(row.content, no_wrap=True, overflow="ellipsis"),
                     # an automatic memory waiting in the inbox was never verified: its
                     # save date there read as if the person had checked it
                     "verified": NOT_VERIFIED if row.pending else row.verified,
                     "mark": self._mark(row), "source": row.source}
            table.add_row(*(cells[k] for k in keys), key=row.id)
        self._show_detail()
        stale = sum(1 for r in shown if r.stale)
        pending = sum(1 for r in self.rows if r.pending)
        # one line, read at 60 columns: the filter box above shows what was ranked
        # an embedder that cannot load fails no ranking: keywords alone ranked it then
        by = f" by keywords, no meaning ({ranking[3]})" if ranking and ranking[3] else \
            " by meaning"
        how = (by + ("" if shown else ": none is relevant enough")
               + " · type for words") if ranked else \
            f" · by meaning failed: {problem}" if problem else \
            (NO_WORD_MATCH if text.split() and self.rows and not shown else "")
        self._status(status_counts(len(shown), len(self.rows), how, pending, stale))

    def _mark(self, row: MemoryRow) -> str:
        """`new` (automatic, since you last looked), `?` (automatic, not accepted yet),
        `⚠` (possibly stale)."""
        if row.id in self.new_ids and row.pending:
            return "new"
        if row.pending:
            return "?"
        return "⚠" if row.stale else ""

    def _inbox(self) -> MemoryInbox | None:
        return getattr(self.app, "memory_inbox", None)

    def _inbox_changed(self, count: int) -> None:
        """An automatic memory arrived while the browser is open: show it (as new)."""
        if count:
            self.reload()
            inbox = self._inbox()
            if inbox is not None:
                inbox.looked()

    def _status(self, text: str) -> None:
        self.query_one("#memory-status", Label).update(text)

    def selected(self) -> MemoryRow | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((r for r in self.rows if r.id == key), None)

    @on(DataTable.RowHighlighted, "#memory-table")
    def _show_detail(self) -> None:
        """The highlighted memory's whole text under the table when its cell cut it: the
        browser was the only place to read a memory, and it showed 40 cells of it."""
        detail = self.query_one("#memory-detail", Static)
        row = self.selected()
        width = next((size for key, _, size in memory_columns(self._width) if key == "content"),
                     0)
        detail.display = row is not None and cell_len(row.content) > width
        detail.update(row.content if detail.display and row is not None else "")

    @on(Input.Changed, "#memory-filter")
    @on(Select.Changed, "#memory-scope")
    def filter_changed(self) -> None:
        if self.is_mounted:
            self._fill()

    @on(Input.Submitted, "#memory-filter")
    def filter_done(self) -> None:
        """Enter goes to the list; when no memory holds every word typed, it first ranks the
        memories by meaning, as `memory search` does."""
        text = self.query_one("#memory-filter", Input).value
        scope = str(self.query_one("#memory-scope", Select).value)
        if text.strip() and not filter_rows(self.rows, scope, text) and \
                self.ranking_asked != text and \
                (self.ranking is None or self.ranking[0] != text or self.ranking[2]):
            self._start_ranking(text)
        self.query_one(DataTable).focus()

    class Ranked(Message):
        """What :meth:`rank` found in its thread for ``text``, or why it could not."""

        bubble = False

        def __init__(self, text: str, ids: list[str], problem: str = "",
                     without_meaning: str = "") -> None:
            super().__init__()
            self.text = text
            self.ids = ids
            self.problem = problem
            self.without_meaning = without_meaning

    def _start_ranking(self, text: str) -> None:
        self.ranking_asked = text
        self._status("ranking the memories by meaning…")
        self.rank(text)

    @work(exclusive=True, group="memory-rank", exit_on_error=False, thread=True)
    def rank(self, text: str) -> None:
        # in a thread: the first ranking may load the embedder (seconds)
        try:
            ids, without_meaning = self.backend.memory().search(text, RANKED_ASKED)
        except Exception as exc:
            self.post_message(self.Ranked(text, [], str(exc) or type(exc).__name__))
            return
        self.post_message(self.Ranked(text, ids, without_meaning=without_meaning))

    @on(Ranked)
    def ranked(self, message: Ranked) -> None:
        if self.ranking_asked == message.text:
            self.ranking_asked = None
        if self.query_one("#memory-filter", Input).value != message.text:
            return  # the person typed on: the words they typed now are what counts
        self.ranking = (message.text, message.ids, message.problem, message.without_meaning)
        self._fill()

    def action_focus_table(self) -> None:
        """↓ in the filter box walks into the list."""
        if isinstance(self.screen.focused, Input):
            self.query_one(DataTable).focus()

    def action_focus_filter(self) -> None:
        self.query_one("#memory-filter", Input).focus()

    def action_reload(self) -> None:
        self.reload()

    def _run_command(self, action: str, argument: str) -> None:
        """`/memory verify|delete|replace ID …`: the id is checked before anything is asked
        (a unique prefix is enough, as on the command line)."""
        memory_id, _, text = argument.partition(" ")
        if action == "clear":
            self.confirm_clear()
            return
        if not memory_id or (action == "replace" and not text.strip()):
            self.notify(f"/memory {action} needs an id"
                        f"{' and the new text' if action == 'replace' else ''}.",
                        severity="warning")
            return
        row, problem = resolve_id(self.rows, memory_id)
        if row is None:
            self.notify(problem, title=f"/memory {action}", severity="error")
            return
        if action == "delete":
            self.confirm_delete(row.id)
        else:
            self.operate(action, row.id, text.strip())

    # -- actions ---------------------------------------------------------------------------
    def action_verify(self) -> None:
        row = self.selected()
        if row is not None:
            self.operate("verify", row.id)

    def action_delete(self) -> None:
        row = self.selected()
        if row is not None:
            self.confirm_delete(row.id)

    def action_accept(self) -> None:
        """Inbox: keep the automatic memory (it is verified, and used from now on)."""
        row = self.selected()
        if row is None:
            return
        if not row.pending:  # "Accepted …: it is yours now" for a memory that always was
            self.notify(f"{_quote(row.content)} is yours already: y accepts an automatic "
                        "memory waiting in the inbox.", title="memory")
            return
        self.operate("accept", row.id)

    def action_reject(self) -> None:
        """Inbox: drop an automatic memory at once (one key, no question: it was never
        yours); any other memory is deleted only after a confirmation."""
        row = self.selected()
        if row is None:
            return
        if row.pending:
            self.operate("reject", row.id)
        else:
            self.confirm_delete(row.id)

    def action_replace(self) -> None:
        row = self.selected()
        if row is not None:
            self.ask_replace(row)

    def action_add(self) -> None:
        self.ask_add()

    @work(group="memory-op", exit_on_error=False)
    async def confirm_delete(self, memory_id: str) -> None:
        from ..modals.confirm import ConfirmModal

        row = next((r for r in self.rows if r.id == memory_id), None)
        body = row.content if row else memory_id
        if await self.app.push_screen_wait(ConfirmModal("Delete this memory?", body)):
            await self._apply("delete", memory_id)

    @work(group="memory-op", exit_on_error=False)
    async def confirm_clear(self) -> None:
        from ..modals.confirm import ConfirmModal

        if await self.app.push_screen_wait(ConfirmModal(
                "Delete every memory of this project?",
                f"{project_memories(self.rows)}; global ones stay.",
                yes="Clear")):
            await self._apply("clear", "")

    @work(group="memory-op", exit_on_error=False)
    async def ask_replace(self, row: MemoryRow) -> None:
        from ..modals.text_entry import TextEntryModal

        answer = await self.app.push_screen_wait(TextEntryModal("Replace memory", row.content))
        if answer and answer[0].strip() == row.content.strip():
            self.notify("Nothing changed: the text is the same.", title="memory")
        elif answer:
            await self._apply("replace", row.id, answer[0])

    @work(group="memory-op", exit_on_error=False)
    async def ask_add(self) -> None:
        from ..modals.text_entry import TextEntryModal

        answer = await self.app.push_screen_wait(
            TextEntryModal("New memory", choose_scope=True))
        if not answer:
            return
        try:
            await self._add(*answer)
        except Exception as exc:  # refused (secret, too long, conflict left): say why
            self.notify(str(exc), title="memory not saved", severity="error")

    async def _add(self, text: str, scope: str) -> None:
        memory = self.backend.memory()
        try:
            decision, outcome = await save_asking(self.app, memory, text, scope, False)
        except SensitiveText as refused:
            if not await confirm_sensitive(self.app, text, refused.reason, "Save the memory"):
                self.notify("Nothing saved.", title="memory")
                return
            decision, outcome = await save_asking(self.app, memory, text, scope, False,
                                                  allow_sensitive=True)
        self.notify(saved_message(decision, outcome, text, scope), title="memory")
        self.reload()

    def operate(self, action: str, memory_id: str, text: str = "") -> None:
        self.run_worker(self._apply(action, memory_id, text), group="memory-op",
                        exit_on_error=False)

    async def _replace(self, memory_id: str, text: str) -> None:
        """Replace; text that looks secret is written only once the person confirms it."""
        memory = self.backend.memory()
        try:
            await asyncio.to_thread(memory.replace, memory_id, text)
        except SensitiveText as refused:
            if not await confirm_sensitive(self.app, text, refused.reason,
                                           "Replace the memory"):
                raise _NotConfirmed() from refused
            await asyncio.to_thread(memory.replace, memory_id, text, True)

    async def _apply(self, action: str, memory_id: str, text: str = "") -> None:
        memory = self.backend.memory()
        before = next((r for r in self.rows if r.id == memory_id), None)
        calls = {"verify": memory.verify, "accept": memory.verify, "delete": memory.delete,
                 "reject": memory.delete}
        try:
            if action == "replace":
                await self._replace(memory_id, text)
            elif action == "clear":
                removed = await asyncio.to_thread(memory.clear)
            else:
                await asyncio.to_thread(calls[action], memory_id)
        except _NotConfirmed:
            self.notify("Nothing replaced.", title="memory")
            return
        except Exception as exc:  # the service explains (unknown id, conflicts left…)
            self.notify(str(exc), title=f"{action} failed", severity="error")
            return
        if action == "clear":
            self.notify(f"Forgot {counted(removed, 'memory', 'memories')} of this project; "
                        "global ones stay.", title="memory")
        else:
            self.notify(done_message(action, before.content if before else memory_id, text),
                        title="memory")
        self.reload()


class _NotConfirmed(Exception):
    """The person answered no to keeping text that looks like a secret."""


_quote = quoted


class MemoryScreen(PanelScreen):
    """The memory browser full screen (around a given panel, or a new one)."""

    def __init__(self, backend: Backend, filter_text: str = "",
                 command: tuple[str, str] | None = None, *,
                 panel: MemoryPanel | None = None) -> None:
        super().__init__(panel or MemoryPanel(backend, filter_text, command),
                         classes="memory-screen")
