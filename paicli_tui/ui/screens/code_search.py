"""Code search: query, mode, results (path:line, name or the matched line, score),
highlighted preview, insert the reference into the chat; in grep mode how many lines matched;
index status and "index now" with progress."""

from __future__ import annotations

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Input, Label, ProgressBar, Select, Static

from ...core.plural import counted
from ..backend import CHANGED_MARK, CHANGED_PREVIEW, Backend, CodeHit, CodeResults, IndexStatus
from ..format import left_truncate
from ..index_job import IndexJob, IndexState
from ..last_search import LastSearch
from ..messages import InsertIntoInput
from ..widgets.panel import Panel
from ..widgets.typed_input import TypedInput
from .panel_screen import PanelScreen

MODES = [("hybrid", "hybrid"), ("grep", "grep"), ("semantic", "semantic"), ("text", "text")]

RESULTS_SHARE = 0.55
"""Share of the panel's width the results column takes (the preview gets the rest)."""
STACKED_BELOW = 72
"""A panel narrower than this shows the preview under the results, both full width: side by
side at 60 columns a location kept 12 cells ("…der.java:12") and the preview 20."""


def stacked(panel_width: int) -> bool:
    return panel_width < STACKED_BELOW


def result_columns(panel_width: int, *, lines: bool = False) -> tuple[int, int]:
    """(location, name) widths of the results table in a panel ``panel_width`` wide: the
    score keeps 6, each column pads a cell both sides, the location gets 60% of the rest
    (45% when the second column holds grep's matched lines: the line says more)."""
    share = 1.0 if stacked(panel_width) else RESULTS_SHARE
    rest = int(panel_width * share) - 6 - 3 * 2 - 2
    location = max(12, rest * (45 if lines else 60) // 100)
    return location, max(8, rest - location)

LANGUAGES = {"py": "python", "java": "java", "js": "javascript", "ts": "typescript",
             "go": "go", "md": "markdown", "toml": "toml", "json": "json", "rs": "rust"}


def status_line(status: IndexStatus) -> str:
    """The index line under the results."""
    if not status.indexed:
        return "no index yet: Ctrl+B builds it (grep works without one)"
    if not status.files and not status.chunks:
        return "index: empty (a build was cut short?): Ctrl+B builds it"
    return (f"index: {counted(status.files, 'file')}, {counted(status.chunks, 'chunk')} "
            f"{status.detail}").rstrip()


def lexer_for(hit: CodeHit) -> str:
    if hit.language:
        return hit.language
    return LANGUAGES.get(hit.path.rsplit(".", 1)[-1].lower(), "text")


class CodeSearchPanel(Panel):
    # Only Ctrl keys and arrows are shortcuts: every printable key belongs to the query
    # (typed on the results it goes to the query box too), so a new query typed after Enter
    # can never fire a command or insert a reference by accident.
    title = "code search"
    BINDINGS = [
        Binding("ctrl+o", "insert", "Insert ref"),
        Binding("ctrl+g", "cycle_mode", "Mode"),
        Binding("ctrl+b", "index_now", "Index now"),
        Binding("down", "focus_results", "Results", show=False),
    ]

    def __init__(self, backend: Backend, query: str = "", index_now: bool = False,
                 top_k: int | None = None, *, last: LastSearch | None = None) -> None:
        super().__init__(classes="code-panel")
        self.backend = backend
        self.last = last or LastSearch()
        """Updated by every search; without a query of its own the panel opens on it."""
        self.initial_query = query or self.last.query
        self.initial_mode = self.last.mode
        self.index_on_open = index_now
        self.top_k = top_k or backend.settings.search_top_k
        self.hits: list[CodeHit] = []
        self.previewed: CodeHit | None = None
        self._width = 0
        self._location, self._name = result_columns(100)

    def reopen(self) -> CodeSearchPanel:
        query = self.query_one("#code-query", Input).value.strip()
        return CodeSearchPanel(self.backend, query=query, top_k=self.top_k, last=self.last)

    def focus_first(self) -> None:
        self.query_one("#code-query", Input).focus()

    def as_screen(self) -> CodeSearchScreen:
        return CodeSearchScreen(self.backend, panel=self)

    def compose(self) -> ComposeResult:
        with Horizontal(classes="toolbar"):
            yield TypedInput(self.initial_query, placeholder="search code (Enter)…", id="code-query")
            yield Select(MODES, value=self.initial_mode or "hybrid", allow_blank=False,
                         id="code-mode")
        with Horizontal(classes="code-body"):
            yield DataTable(id="code-results", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="code-preview-box"):
                yield Static("", id="code-preview")
        with Horizontal(classes="index-row"):
            yield Label("", id="code-summary", markup=False)
            yield Label("", id="index-status", markup=False)
            yield ProgressBar(id="index-progress", show_eta=False)

    def on_mount(self) -> None:
        self._columns(self.size.width)
        self.query_one("#code-query", Input).focus()
        self.index_job.changed.subscribe(self, self._job_changed)
        self._job_changed(self.index_job.state)
        if self.index_on_open:
            self.action_index_now()
        elif self.initial_query:
            self.search(self.initial_query, self.mode)

    @property
    def mode(self) -> str:
        return str(self.query_one("#code-mode", Select).value)

    # -- status and index --------------------------------------------------------------------
    # The build belongs to the app (app.index_job): leaving this panel lets it finish; the
    # panel only shows it.
    @property
    def index_job(self) -> IndexJob:
        return self.app.index_job  # type: ignore[attr-defined]

    class StatusRead(Message):
        """The index status :meth:`load_status` read in its thread, as the line to show."""

        bubble = False

        def __init__(self, text: str, indexed: bool) -> None:
            super().__init__()
            self.text = text
            self.indexed = indexed

    class HitsFound(Message):
        """What :meth:`search` found in its thread (``error``: why it could not search)."""

        bubble = False

        def __init__(self, results: CodeResults, error: str | None) -> None:
            super().__init__()
            self.results = results
            self.error = error

    @work(group="code-status", exit_on_error=False, thread=True)
    def load_status(self) -> None:
        try:
            status = self.backend.code().status()
            text, indexed = status_line(status), status.indexed
        except Exception as exc:
            text, indexed = f"index status unavailable: {exc}", False
        self.post_message(self.StatusRead(text, indexed))

    @on(StatusRead)
    def status_read(self, message: StatusRead) -> None:
        text, indexed = message.text, message.indexed
        if self.index_job.running:
            return  # the build's own line is more current than the half-written tables
        self.query_one("#index-status", Label).update(text)
        if not indexed and not self.hits:
            # without an index only exact search can answer: start there
            self.query_one("#code-mode", Select).value = "grep"

    def action_index_now(self) -> None:
        if not self.index_job.start(self.backend.code()):
            self.notify("An index build is already running; its progress is below.",
                        title="index")

    def _job_changed(self, state: IndexState) -> None:
        bar = self.query_one(ProgressBar)
        bar.display = state.running
        if state.running:
            bar.update(total=state.total or None, progress=state.done)
            self.query_one("#index-status", Label).update(f"indexing: {state.step}")
        else:
            self.load_status()

    # -- search ------------------------------------------------------------------------------
    @on(Input.Submitted, "#code-query")
    def submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.search(event.value.strip(), self.mode)

    @on(Select.Changed, "#code-mode")
    def mode_changed(self) -> None:
        self.last.mode = self.mode
        query = self.query_one("#code-query", Input).value.strip()
        if query and self.is_mounted:
            self.search(query, self.mode)

    def action_cycle_mode(self) -> None:
        values = [v for _, v in MODES]
        select = self.query_one("#code-mode", Select)
        select.value = values[(values.index(str(select.value)) + 1) % len(values)]

    def action_focus_query(self) -> None:
        self.query_one("#code-query", Input).focus()

    def action_focus_results(self) -> None:
        """↓ in the query box walks into the results (the box keeps the focus otherwise)."""
        table = self.query_one(DataTable)
        if table.row_count and isinstance(self.screen.focused, Input):
            table.focus()

    def on_key(self, event: events.Key) -> None:
        """A printable key typed on the results goes into the query box, at its end."""
        if isinstance(self.screen.focused, DataTable) and event.is_printable and event.character:
            query = self.query_one("#code-query", Input)
            query.focus()
            query.cursor_position = len(query.value)
            query.insert_text_at_cursor(event.character)
            event.stop()
            event.prevent_default()

    @work(exclusive=True, group="code-search", exit_on_error=False, thread=True)
    def search(self, query: str, mode: str) -> None:
        self.last.query = query
        try:
            results = self.backend.code().search(query, mode, self.top_k)
            error = None
        except Exception as exc:
            results, error = CodeResults([]), str(exc)
        self.post_message(self.HitsFound(results, error))

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self._columns(event.size.width)
            self._rows()

    def _columns(self, width: int) -> None:
        self._width = width
        self.set_class(stacked(width), "stacked")
        # grep results show the line that matched where other modes show the chunk's name
        lines = any(h.match_text for h in self.hits)
        self._location, self._name = result_columns(width, lines=lines)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_column("location", key="loc", width=self._location)
        table.add_column("matched line" if lines else "name", key="name", width=self._name)
        table.add_column("score", key="score", width=6)

    def _rows(self) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        for index, hit in enumerate(self.hits):
            # Text: paths and code are not console markup (pages/[id].tsx lost its [id];
            # a line holding "[/" crashed the table)
            mark = CHANGED_MARK if hit.changed else ""
            table.add_row(Text(mark + left_truncate(hit.reference, self._location - len(mark))),
                          Text(left_truncate(hit.match_text or hit.name, self._name,
                                             keep_start=True)),
                          f"{hit.score:.3f}", key=str(index))
        if self.hits:
            table.move_cursor(row=min(max(0, row), len(self.hits) - 1))

    @on(HitsFound)
    def hits_found(self, message: HitsFound) -> None:
        results, error = message.results, message.error
        hits = results.hits
        self.hits = hits
        self._columns(self._width)  # the second column's title follows the mode
        self._rows()
        summary = self.query_one("#code-summary", Label)
        summary.update(f"{results.summary} · " if results.summary else "")
        summary.display = bool(results.summary)
        if error:
            self.query_one("#code-preview", Static).update(f"Search failed: {error}")
        elif not hits:
            self.query_one("#code-preview", Static).update("No results.")
        else:
            # the focus stays where it is (the query box): ↓ or a click reaches the results
            self.query_one(DataTable).move_cursor(row=0)
            self._preview(0)

    @on(DataTable.RowHighlighted, "#code-results")
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._preview(event.cursor_row)

    @on(DataTable.RowSelected, "#code-results")
    def selected(self, event: DataTable.RowSelected) -> None:
        self.action_insert()

    def _preview(self, index: int) -> None:
        if not 0 <= index < len(self.hits):
            return
        hit = self.hits[index]
        self.previewed = hit
        code = Syntax(
            hit.preview, lexer_for(hit), line_numbers=True,
            start_line=max(1, hit.preview_start or hit.line), word_wrap=False,
            highlight_lines={hit.line} if hit.match_text else None,
            theme="ansi_dark" if self.app.current_theme.dark else "ansi_light")
        note = CHANGED_PREVIEW.get(hit.changed)
        self.query_one("#code-preview", Static).update(
            Group(Text(note, style="italic"), code) if note else code)

    def action_insert(self) -> None:
        table = self.query_one(DataTable)
        index = table.cursor_row
        if not 0 <= index < len(self.hits):
            return
        self.to_chat_input(InsertIntoInput(self.hits[index].reference))


class CodeSearchScreen(PanelScreen):
    """The code search full screen (around a given panel, or a new one)."""

    def __init__(self, backend: Backend, query: str = "", index_now: bool = False,
                 top_k: int | None = None, *, panel: CodeSearchPanel | None = None) -> None:
        super().__init__(panel or CodeSearchPanel(backend, query, index_now, top_k),
                         classes="code-screen")
