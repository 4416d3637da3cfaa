"""/context: what fills the window, both thresholds, this session's compaction history,
compact now, and restore the view before the last compaction."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Header, Label, Static

from ...core.contracts.events import CompactionFailed, ContextCompacted
from ...core.contracts.services import ProjectRules
from ...core.plural import counted
from ..backend import Backend
from ..breakdown import (
    STACKED_BELOW,
    event_row,
    history_columns,
    reconciled,
    shares,
    stacked_row,
    token_breakdown,
)
from ..format import fmt_tokens
from ..widgets.app_footer import AppFooter
from ..widgets.context_gauge import ContextGauge

if TYPE_CHECKING:
    from ...core.agent.port import SessionPort
    from ...core.agent.subagent_record import SubAgentRecord
    from ...core.messages import Message as CoreMessage


NO_COMPACTION = "no compaction in this session yet"


@dataclass
class InspectorResult:
    compactions: list[ContextCompacted] = field(default_factory=list)
    """What "compact now" compacted (the session's own events), for the chat to show."""
    restored: bool = False


class ContextInspector(Screen[InspectorResult]):
    BINDINGS = [
        Binding("escape", "close", "Back"),
        Binding("c", "compact", "Compact now"),
        Binding("r", "restore", "Undo compaction"),
    ]

    def __init__(self, backend: Backend, session: SessionPort,
                 usage: tuple[int | None, int, list[float]] = (None, 0, [])) -> None:
        super().__init__(classes="context-screen")
        self.backend = backend
        self.session = session
        self.usage = usage
        """(last prompt tokens, cached tokens, prompt tokens per request) from the chat."""
        self.result = InspectorResult()
        self.events: list[dict] = []
        self.subagent_order: list[SubAgentRecord] = []
        """The sub-agent rows' records, in the table's order (newest first)."""
        self._layout: tuple[bool, bool, int] | None = None
        """(compact history, no share column, the stacked history's screen width or 0): the
        widths the tables were built for."""

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with Horizontal(classes="inspector-body"):
            # scrolls (wheel, or Tab to it and arrows/PgDn) when the terminal is too short
            # for the categories, thresholds and memories together (60x20)
            with VerticalScroll(classes="inspector-left"):
                yield Label("Tokens by category", classes="section-title")
                yield DataTable(id="categories", cursor_type="none", zebra_stripes=True)
                yield Static("", id="thresholds", markup=False)
                yield Label("Memories for the last turn", id="memories-title",
                            classes="section-title")
                yield Static("", id="memories", markup=False)
            with Vertical(classes="inspector-right"):
                yield Label("Compactions (ledger)", classes="section-title")
                yield DataTable(id="history", cursor_type="row", zebra_stripes=True)
                # from 100 to 119 columns a long detail is cut: the highlighted row's whole
                # detail, wrapped, under the table (below 100 the rows hold it whole)
                yield Static("", id="history-detail", markup=False)
                yield Label("Sub-agents · Enter opens (Tab)",  # fits 34 cells at 80x24
                            id="subagents-title", classes="section-title")
                yield DataTable(id="subagents", cursor_type="row", zebra_stripes=True)
        yield ContextGauge(id="inspector-gauge")
        yield AppFooter()

    def on_mount(self) -> None:
        self.sub_title = "context"
        self._columns(self.app.size.width)
        self.refresh_view()
        self.load_history()
        self.show_subagents()

    def show_subagents(self) -> None:
        from ..subagent_rows import COLUMNS, NARROW_COLUMNS, subagent_rows

        table = self.query_one("#subagents", DataTable)
        self.subagent_order = list(reversed(self.session.subagent_records))
        narrow = bool(self._layout and self._layout[1])
        rows = subagent_rows(self.session.subagent_records, narrow)
        for widget in (table, self.query_one("#subagents-title")):
            widget.display = bool(rows)  # no sub-agent yet: no section
        table.clear(columns=True)
        for name, width in NARROW_COLUMNS if narrow else COLUMNS:
            table.add_column(name, width=width)
        for row in rows:
            table.add_row(*map(Text, row))  # a label the model chose is not markup

    def on_resize(self, event: events.Resize) -> None:
        if self._columns(event.size.width):
            self.refresh_view()
            self._show_history(self.events)
            self.show_subagents()
        else:  # the same columns, but the detail may now fit (or no longer)
            table = self.query_one("#history", DataTable)
            self.call_after_refresh(lambda: self._show_detail(table.cursor_row))

    def _columns(self, width: int) -> bool:
        """Build both tables' columns for ``width``; True when they changed. Narrow screens
        get short history cells, and below 70 columns the categories lose their share column
        (the left side narrows), so the history's tier, tokens and time stay readable."""
        layout = (width < 120, width < 70, width if width < STACKED_BELOW else 0)
        if layout == self._layout:
            return False
        self._layout = layout
        self.set_class(layout[1], "-narrow")
        categories = self.query_one("#categories", DataTable)
        categories.clear(columns=True)
        if layout[1]:
            categories.add_column("category", width=20)
            categories.add_column("tokens", width=7)
        else:
            categories.add_column("category", width=22)
            categories.add_column("tokens", width=9)
            categories.add_column("share", width=6)
        history = self.query_one("#history", DataTable)
        history.clear(columns=True)
        for name, cells in history_columns(width):
            history.add_column(name, width=cells)
        return True

    def refresh_view(self) -> None:
        session = self.session
        schemas = session.tool_schemas()
        rules = _rules(session)
        estimate = session.estimate()
        # one total: the categories plus a calibration row add up to the session's estimate
        parts = reconciled(token_breakdown(session.history, schemas,
                                           rules.text if rules else ""), estimate)
        table = self.query_one("#categories", DataTable)
        table.clear()
        share = len(table.columns) == 3
        of_counted = shares(parts)
        for name, tokens in parts.items():
            table.add_row(name, f"{tokens:,}", *([of_counted[name]] if share else []))
        table.add_row("total (estimate)", f"{estimate:,}", *([""] if share else []))
        profile = session.profile
        cells = LEFT_CELLS[bool(self._layout and self._layout[1])]
        self.query_one("#thresholds", Static).update("\n".join([
            *threshold_lines(f"window {profile.window:,}",
                             f"{estimate / (profile.window or 1):.0%} used", cells),
            *threshold_lines(f"clearing trigger {profile.clearing_trigger:,}",
                             _left(profile.clearing_trigger, estimate), cells),
            *threshold_lines(f"compaction trigger {profile.compaction_trigger:,}",
                             _left(profile.compaction_trigger, estimate), cells),
            f"messages {len(session.history)} · memory budget {profile.memory_budget:,}",
            rules_line(rules, self.backend.project_root)]))
        lines = _memory_lines(session)
        self.query_one("#memories", Static).update(lines)
        for widget in (self.query_one("#memories", Static), self.query_one("#memories-title")):
            widget.display = bool(lines)  # no memory service or no turn yet: no section
        gauge = self.query_one(ContextGauge)
        gauge.warned = True  # the chat already warned; the inspector only shows
        gauge.last_prompt, gauge.cached, gauge.per_request = self.usage
        gauge.show(
            tokens=estimate, window=profile.window, clearing_trigger=profile.clearing_trigger,
            compaction_trigger=profile.compaction_trigger)

    class HistoryRead(Message):
        """The compaction records :meth:`load_history` read from the ledger in its thread."""

        bubble = False

        def __init__(self, events: list[dict]) -> None:
            super().__init__()
            self.events = events

    @work(group="ledger", exit_on_error=False, thread=True)
    def load_history(self) -> None:
        try:
            events = self.backend.compaction_history(self.session.session_id)
        except Exception as exc:
            events = [{"tier": "—", "detail": f"ledger unavailable: {exc}"}]
        self.post_message(self.HistoryRead(events))

    @on(HistoryRead)
    def history_read(self, message: HistoryRead) -> None:
        self._show_history(message.events)

    def _show_history(self, events: list[dict]) -> None:
        self.events = events
        table = self.query_one("#history", DataTable)
        table.clear()
        if self.stacked:  # each compaction whole, on as many lines as it takes
            for event in events:
                table.add_row(Text(stacked_row(event)), height=None)
            if not events:
                table.add_row(Text(NO_COMPACTION), height=None)
            self.query_one("#history-detail", Static).display = False
            return
        compact = bool(self._layout and self._layout[0])
        for event in events:
            # the detail quotes file names and messages: text, not markup
            table.add_row(*map(Text, event_row(event, compact=compact)))
        if not events:
            table.add_row("—", "", "", NO_COMPACTION)
        self.call_after_refresh(lambda: self._show_detail(table.cursor_row))  # once laid out

    @on(DataTable.RowHighlighted, "#history")
    def history_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    @property
    def stacked(self) -> bool:
        """The history is one column, each compaction on its own lines (a narrow screen)."""
        return bool(self._layout and self._layout[2])

    def _show_detail(self, row: int) -> None:
        """The highlighted compaction's tier, tokens and whole detail, when the table is cut
        at the right (it scrolls sideways: its detail column did not fit)."""
        line = self.query_one("#history-detail", Static)
        if self.stacked:  # the rows show it whole
            line.display = False
            return
        cut = self.query_one("#history", DataTable).max_scroll_x > 0
        if not self.events:  # the one placeholder row ("no c" at 80 columns)
            line.display = cut
            line.update(NO_COMPACTION)
            return
        detail = str(self.events[row].get("detail", "")) if 0 <= row < len(self.events) else ""
        line.display = cut and bool(detail)
        if line.display:
            tier, change, *_ = event_row(self.events[row], compact=True)
            line.update(f"{tier} {change}: {detail}")

    # -- a sub-agent's own history ------------------------------------------------------------
    class SubAgentRead(Message):
        """:meth:`read_subagent` read one sub-agent's messages (or why it could not)."""

        bubble = False

        def __init__(self, record: SubAgentRecord, messages: list[CoreMessage],
                     error: str = "") -> None:
            super().__init__()
            self.record = record
            self.messages = messages
            self.error = error

    @on(DataTable.RowSelected, "#subagents")
    def subagent_chosen(self, event: DataTable.RowSelected) -> None:
        if 0 <= event.cursor_row < len(self.subagent_order):
            self.read_subagent(self.subagent_order[event.cursor_row])

    @work(group="subagent", exclusive=True, exit_on_error=False, thread=True)
    def read_subagent(self, record: SubAgentRecord) -> None:
        try:
            messages = self.session.subagent_history(record.subagent)
        except Exception as exc:  # its stream gone or unreadable: say so
            self.post_message(self.SubAgentRead(record, [], str(exc)))
            return
        self.post_message(self.SubAgentRead(record, messages))

    @on(SubAgentRead)
    def subagent_read(self, message: SubAgentRead) -> None:
        from ..modals.subagent_history import SubAgentHistoryModal

        if message.error:
            self.notify(f"Cannot open {message.record.label}'s history: {message.error}",
                        severity="error")
            return
        self.app.push_screen(SubAgentHistoryModal(message.record, message.messages))

    # -- actions -------------------------------------------------------------------------
    @work(exclusive=True, group="compact", exit_on_error=False)
    async def action_compact(self) -> None:
        self.notify("Compacting…")
        try:
            outcome = await self.session.compact_now()
        except Exception as exc:
            self.notify(f"Compaction failed: {exc}", severity="error")
            return
        self.result.compactions.extend(e for e in outcome.events
                                       if not isinstance(e, CompactionFailed))
        why = outcome.why_not
        self.notify("Compacted." if outcome.compacted
                    else f"Nothing compacted{': ' + why if why else '.'}")
        self.refresh_view()
        self.load_history()

    @work(exclusive=True, group="restore", exit_on_error=False)
    async def action_restore(self) -> None:
        from ...core.context.undo import said_since, undone_view
        from ..modals.confirm import ConfirmModal

        before = self.backend.view_before_last_compaction(self.session.session_id)
        if not before:
            self.notify("No compaction to undo in this session.", severity="warning")
            return
        since = len(said_since(before, self.session.history))
        later = f" and the {counted(since, 'message')} since" if since else ""
        if not await self.app.push_screen_wait(ConfirmModal(
                "Restore the view before the last compaction?",
                f"The model will see the {counted(len(before), 'message')} from before it{later}; the "
                "ledger keeps both views.", yes="Restore")):
            return
        self.session.replace_view(undone_view(before, self.session.history),
                                  "restore_before_compaction")
        self.result.restored = True
        self.refresh_view()
        self.notify("View restored.")

    def action_close(self) -> None:
        self.dismiss(self.result)


LEFT_CELLS = {False: 43, True: 31}
"""The left column's text width, wide and narrow (below 70 columns): .inspector-left's 45 or
33 cells (styles/panels.tcss) less its padding and scroll bar."""


def threshold_lines(fact: str, note: str, cells: int) -> list[str]:
    """"clearing trigger 57,000 (53k left)" on one line where it fits, else the note on its
    own indented line: wrapped by the column, it read "clearing trigger 57,000 (53k" with
    "left)" below the fold at 60x20."""
    line = f"{fact} ({note})"
    return [line] if len(line) <= cells else [fact, f"  ({note})"]


def _left(trigger: int, estimate: int) -> str:
    return f"{fmt_tokens(trigger - estimate)} left" if trigger > estimate else "reached"


def _rules(session: SessionPort) -> ProjectRules | None:
    memory = session.memory
    if memory is None:
        return None
    try:
        return memory.project_rules()
    except Exception:  # unreadable rules: the inspector still shows the rest
        return None


def rules_line(rules: ProjectRules | None, root: Path) -> str:
    """Which rule files (PAI.md, AGENTS.md, CLAUDE.md, includes) are in the prompt."""
    if rules is None or not rules.files:
        return "project rules: none (PAI.md, AGENTS.md or CLAUDE.md; /init drafts one)"
    names = []
    for name in rules.files:
        path = Path(name)
        try:
            names.append(path.relative_to(root).as_posix())
        except ValueError:
            names.append(str(path))
    cut = " (cut at 24,000 characters)" if rules.truncated else ""
    return "project rules: " + ", ".join(names) + cut


def _memory_lines(session: SessionPort) -> str:
    """Each memory considered for the last turn: shown or not, and its keyword, vector and
    time parts."""
    last = getattr(getattr(session, "memory", None), "last_retrieval", None)
    if not last:
        return ""
    from ...core.memory.retrieval import describe

    _, items = last
    if not items:
        return "none relevant: no memory was shown"
    return "\n".join(f"{'✓' if i.shown else '·'} {' '.join(i.entry.content.split())[:70]}\n"
                     f"  {describe(i)}" for i in items[:6])

