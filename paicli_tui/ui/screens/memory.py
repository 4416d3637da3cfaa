"""The memory browser: visible memories in a table, filter, verify / replace / delete / add."""

from __future__ import annotations

import asyncio

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Input, Label, Select

from ...core.contracts.asks import ConflictDecision
from ..backend import Backend, MemoryRow
from ..memory_decision import save_asking
from ..widgets.panel import Panel
from .panel_screen import PanelScreen

SCOPES = [("all scopes", "all"), ("project", "project"), ("global", "global")]


def filter_rows(rows: list[MemoryRow], scope: str, text: str) -> list[MemoryRow]:
    """Rows of the chosen scope whose text or id contains every word typed (any case)."""
    words = text.lower().split()
    return [r for r in rows
            if (scope == "all" or r.scope == scope)
            and all(w in f"{r.content} {r.id}".lower() for w in words)]


FIXED_COLUMNS = (("scope", "scope", 7), ("written", "written", 10),
                 ("verified", "verified", 10), ("stale", "!", 1), ("source", "source", 8))
WIDE_FROM = 100
"""Below this many columns the "written" date is left out (the text needs the room)."""


def memory_columns(width: int) -> list[tuple[str, str, int]]:
    """(key, label, width) of the table's columns for a panel ``width`` cells wide: the
    memory text gets the rest (each column pads one cell both sides; 2 for the scrollbar)."""
    fixed = [c for c in FIXED_COLUMNS if width >= WIDE_FROM or c[0] != "written"]
    rest = width - sum(size + 2 for _, _, size in fixed) - 2 - 2
    columns = [*fixed[:1], ("content", "memory", max(16, rest)), *fixed[1:]]
    return columns


class MemoryPanel(Panel):
    title = "memory"
    BINDINGS = [
        Binding("a", "add", "Add"),
        Binding("e", "replace", "Replace"),
        Binding("v", "verify", "Verify"),
        Binding("d", "delete", "Delete"),
        Binding("slash", "focus_filter", "Filter"),
        Binding("ctrl+r", "reload", "Reload", show=False),
        Binding("down", "focus_table", "List", show=False),
    ]

    def __init__(self, backend: Backend, filter_text: str = "",
                 command: tuple[str, str] | None = None) -> None:
        super().__init__(classes="memory-panel")
        self.backend = backend
        self.filter_text = filter_text
        self.command = command
        self.rows: list[MemoryRow] = []
        self._width = 0

    def reopen(self) -> MemoryPanel:
        return MemoryPanel(self.backend, self.query_one("#memory-filter", Input).value)

    def focus_first(self) -> None:
        self.query_one(DataTable).focus()

    def as_screen(self) -> MemoryScreen:
        return MemoryScreen(self.backend, panel=self)

    def compose(self) -> ComposeResult:
        with Horizontal(classes="toolbar"):
            yield Input(self.filter_text, placeholder="filter memories…", id="memory-filter")
            yield Select(SCOPES, value="all", allow_blank=False, id="memory-scope")
        yield DataTable(id="memory-table", cursor_type="row", zebra_stripes=True)
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
    @work(exclusive=True, group="memory-load", exit_on_error=False, thread=True)
    def reload(self) -> None:
        try:
            rows = self.backend.memory().rows()
        except Exception as exc:
            self.app.call_from_thread(self._status, f"Cannot read memories: {exc}")
            return
        self.app.call_from_thread(self._loaded, rows)

    def _loaded(self, rows: list[MemoryRow]) -> None:
        self.rows = rows
        self._fill()
        if self.command is not None:
            action, argument = self.command
            self.command = None
            self._run_command(action, argument)

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        scope = str(self.query_one("#memory-scope", Select).value)
        text = self.query_one("#memory-filter", Input).value
        shown = filter_rows(self.rows, scope, text)
        table.clear()
        keys = [str(c.key.value) for c in table.columns.values()]
        for row in shown:
            cells = {"scope": row.scope, "content": row.content, "written": row.written,
                     "verified": row.verified, "stale": "⚠" if row.stale else "",
                     "source": row.source}
            table.add_row(*(cells[k] for k in keys), key=row.id)
        stale = sum(1 for r in shown if r.stale)
        self._status(f"{len(shown)} of {len(self.rows)} memories"
                     + (f" · {stale} possibly stale (v verifies)" if stale else ""))

    def _status(self, text: str) -> None:
        self.query_one("#memory-status", Label).update(text)

    def selected(self) -> MemoryRow | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((r for r in self.rows if r.id == key), None)

    @on(Input.Changed, "#memory-filter")
    @on(Select.Changed, "#memory-scope")
    def filter_changed(self) -> None:
        if self.is_mounted:
            self._fill()

    @on(Input.Submitted, "#memory-filter")
    def filter_done(self) -> None:
        self.query_one(DataTable).focus()

    def action_focus_table(self) -> None:
        """↓ in the filter box walks into the list."""
        if isinstance(self.screen.focused, Input):
            self.query_one(DataTable).focus()

    def action_focus_filter(self) -> None:
        self.query_one("#memory-filter", Input).focus()

    def action_reload(self) -> None:
        self.reload()

    def _run_command(self, action: str, argument: str) -> None:
        memory_id, _, text = argument.partition(" ")
        if action == "verify" and memory_id:
            self.operate("verify", memory_id)
        elif action == "delete" and memory_id:
            self.confirm_delete(memory_id)
        elif action == "replace" and memory_id and text.strip():
            self.operate("replace", memory_id, text.strip())
        elif action == "clear":
            self.confirm_clear()
        else:
            self.notify(f"/memory {action} needs an id{' and the new text' if action == 'replace' else ''}.",
                        severity="warning")

    # -- actions ---------------------------------------------------------------------------
    def action_verify(self) -> None:
        row = self.selected()
        if row is not None:
            self.operate("verify", row.id)

    def action_delete(self) -> None:
        row = self.selected()
        if row is not None:
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
                f"{sum(r.scope == 'project' for r in self.rows)} project memories; global "
                "ones stay.",
                yes="Clear")):
            await self._apply("clear", "")

    @work(group="memory-op", exit_on_error=False)
    async def ask_replace(self, row: MemoryRow) -> None:
        from ..modals.text_entry import TextEntryModal

        answer = await self.app.push_screen_wait(TextEntryModal("Replace memory", row.content))
        if answer:
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
        decision, outcome = await save_asking(self.app, self.backend.memory(), text, scope,
                                              False)
        if decision is ConflictDecision.CANCEL:
            return
        if outcome.replaced_id:
            self.notify(f"replace: {outcome.replaced_id}")
        elif decision is ConflictDecision.KEEP_BOTH:
            self.notify("Saved (kept both).")
        else:
            self.notify(f"Already saved as {outcome.duplicate_of}." if outcome.duplicate_of
                        else "Saved.")
        self.reload()

    def operate(self, action: str, memory_id: str, text: str = "") -> None:
        self.run_worker(self._apply(action, memory_id, text), group="memory-op",
                        exit_on_error=False)

    async def _apply(self, action: str, memory_id: str, text: str = "") -> None:
        memory = self.backend.memory()
        try:
            if action == "verify":
                await asyncio.to_thread(memory.verify, memory_id)
            elif action == "delete":
                await asyncio.to_thread(memory.delete, memory_id)
            elif action == "replace":
                await asyncio.to_thread(memory.replace, memory_id, text)
            elif action == "clear":
                await asyncio.to_thread(memory.clear)
        except Exception as exc:  # the service explains (unknown id, conflicts left…)
            self.notify(str(exc), title=f"{action} failed", severity="error")
            return
        self.notify(f"{action}: {memory_id or 'all'}")
        self.reload()


class MemoryScreen(PanelScreen):
    """The memory browser full screen (around a given panel, or a new one)."""

    def __init__(self, backend: Backend, filter_text: str = "",
                 command: tuple[str, str] | None = None, *,
                 panel: MemoryPanel | None = None) -> None:
        super().__init__(panel or MemoryPanel(backend, filter_text, command),
                         classes="memory-screen")
