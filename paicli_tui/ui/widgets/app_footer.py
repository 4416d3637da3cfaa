"""The footer of every screen: the key hints plus what runs in the background (an index
build's progress) and the memory inbox's count of new memories on the right, so both stay in
sight whichever screen is on top.

Every key stays in sight at any width: below ``COMPACT_BELOW`` columns the hints lose their
padding, and keys that still do not fit go on a second line (Textual's footer cut them off:
at 60 columns the memory browser showed no Delete, Accept or Reject)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product
from typing import Any

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.message import Message
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey

from ...core.plural import counted

COMPACT_BELOW = 80
"""Columns under which the hints drop their padding (one cell less per key)."""


def key_rows(widths: Sequence[int], room: int) -> list[list[int]]:
    """The keys (by index, in order) on each footer line: as many as fit in ``room`` cells,
    the rest on the next line; a key wider than the room has a line of its own."""
    rows: list[list[int]] = []
    row: list[int] = []
    used = 0
    for index, width in enumerate(widths):
        if row and used + width > room:
            rows.append(row)
            row, used = [], 0
        row.append(index)
        used += width
    if row:
        rows.append(row)
    return rows


def hint_width(key: FooterKey, compact: bool) -> int:
    """Cells a footer hint takes: the key, its words, their padding (compact: a space
    between them and a margin after), as Textual's footer styles draw them."""
    words = cell_len(key.key_display) + cell_len(key.description)
    return words + 2 if compact else words + 3


def activity_texts(*sources: Sequence[str]) -> list[str]:
    """Every way to say what runs in the background, longest first: one form of each source
    that has something to say (each source's forms come longest first), joined by " · "."""
    said = [forms for forms in sources if forms]
    texts = {" · ".join(parts) for parts in product(*said)} if said else set()
    return sorted(texts, key=lambda text: (-cell_len(text), text))


def fitting_text(texts: Sequence[str], room: int, share: int,
                 key_lines: Callable[[int], int] | None = None) -> str:
    """The longest of ``texts`` (longest first) whose label (a cell of padding each side)
    leaves the keys their one line, ``room`` cells; else the longest shown whole in the
    label's ``share`` of the footer that leaves the keys as few lines as any does
    (``key_lines``: the keys' lines beside a label so many cells wide; at 80 columns the
    memory browser's keys took a third line for the whole step); else the shortest, cut
    with …"""
    found = next((text for text in texts if cell_len(text) + 2 <= room), None)
    if found is not None:
        return found
    whole = [text for text in texts if cell_len(text) + 2 <= share]
    if whole and key_lines is not None:
        fewest = min(key_lines(cell_len(text) + 2) for text in whole)
        whole = [text for text in whole if key_lines(cell_len(text) + 2) == fewest]
    return whole[0] if whole else texts[-1] if texts else ""


class ActivityLabel(Static):
    """Background work in words (shorter where the keys leave little room: at 80 columns an
    index build's step pushed ^q Quit onto a second line); hidden when there is none."""

    def on_mount(self) -> None:
        for source in ("index_job", "memory_inbox"):
            owner = getattr(self.app, source, None)
            if owner is not None:
                owner.changed.subscribe(self, self.refresh_text)
        self.refresh_text()

    def refresh_text(self, _: Any = None) -> None:
        from ..index_job import footer_texts
        from ..memory_inbox import inbox_texts

        job = getattr(self.app, "index_job", None)
        inbox = getattr(self.app, "memory_inbox", None)
        texts = activity_texts(footer_texts(job.state) if job is not None else (),
                               inbox_texts(inbox.new) if inbox is not None else ())
        footer = _footer_of(self)
        shortest = cell_len(texts[-1]) + 2 if texts else 0
        if footer is not None:
            footer.label_least(self.id or "", shortest)
            text = fitting_text(texts, footer.activity_room(),
                                int(footer.shown_width() * LABEL_MAX_SHARE["activity"]),
                                footer.key_lines_beside_activity)
        else:
            text = texts[0] if texts else ""
        self.update(text)
        # the whole words on hover when the footer shows fewer
        self.tooltip = texts[0] if texts and text != texts[0] else None
        self.display = bool(text)
        _room_changed(self)


class LoggedErrorsLabel(Static):
    """Shown once something was logged as an error this run: how many, and the file to read.
    Hidden otherwise (and when logging was never started, as in most tests)."""

    CHECK_EVERY_S = 1.0
    """Records come from any thread; a cheap look once a second finds them."""

    def on_mount(self) -> None:
        self.refresh_text()
        self.set_interval(self.CHECK_EVERY_S, self.refresh_text)

    def refresh_text(self) -> None:
        from ...logs import error_tally

        tally = error_tally()
        count = tally.count if tally is not None else 0
        text = ""
        if tally is not None and count:
            text = f"⚠ {counted(count, 'error')} logged: {tally.path}"
        if text != str(self.render()):
            self.update(text)
        self.display = bool(text)
        _room_changed(self)


def _footer_of(label: Static) -> AppFooter | None:
    footer = label.parent.parent if label.parent is not None else None  # in #footer-labels
    return footer if isinstance(footer, AppFooter) else None


def _room_changed(label: Static) -> None:
    footer = _footer_of(label)
    if footer is not None and label.id:
        cells = cell_len(str(label.render())) + 2 if label.display else 0
        # as wide as the keys' room leaves it, set here: the labels' group, docked right,
        # took the whole text's width (a long log path), and its max-width shrank the label
        # only after the group was placed, so the label lay over the keys from the left
        share = LABEL_MAX_SHARE.get(label.id, 1.0)
        label.styles.width = min(cells, int(footer.shown_width() * share)) if cells \
            else "auto"
        footer.label_changed(label.id, cells)


LABEL_MAX_SHARE = {"activity": 0.5, "logged-errors": 0.6}
"""The share of the footer each label may take (its max-width in panels.tcss)."""


class AppFooter(Footer):
    """Textual's footer with its keys wrapped onto as many lines as they need."""

    def __init__(self) -> None:
        super().__init__()
        self._hint_widths: list[int] = []
        self._rows: list[list[int]] = []
        self._composed_width = 0
        self._label_cells: dict[str, int] = {}
        """Cells each label on the right needs while it shows (0: hidden)."""
        self._label_least: dict[str, int] = {}
        """Cells a label that can say less (the activity) needs at the least."""
        self._palette_shown = True
        self._palette_cells = 0
        """Cells the palette key takes, docked right, with its gap (set as it is composed)."""

    def compose(self) -> ComposeResult:
        covered = self._covered()
        self.styles.padding = (0, covered, 0, 0)  # the palette key and labels stay in sight
        width = self.shown_width()
        self.compact = 0 < width < COMPACT_BELOW
        items = list(super().compose())  # no binding groups here: every item is one key
        keys = [w for w in items
                if isinstance(w, FooterKey) and not w.has_class("-command-palette")]
        others = [w for w in items if w not in keys]
        self._hint_widths = [hint_width(k, self.compact) for k in keys]
        self._composed_width = self.outer_size.width
        # the palette key, docked right, with its gap
        self._palette_cells = sum(hint_width(w, self.compact) + (1 if self.compact else 2)
                                  for w in others if isinstance(w, FooterKey))
        self._rows = key_rows(self._hint_widths, self._key_room())
        for row in self._rows:
            with HorizontalGroup(classes="footer-row"):
                yield from (keys[index] for index in row)
        self._palette_shown = self._palette_fits()
        for widget in others:  # the palette key: beside the labels, or left out for them
            widget.display = self._palette_shown
        # side by side in one group: docked right each on its own, they lay over each other
        # (the inbox count hid the palette key, a logged error hid the index's progress)
        with HorizontalGroup(id="footer-labels"):
            yield LoggedErrorsLabel(id="logged-errors", markup=False)
            yield ActivityLabel(id="activity", markup=False)
            yield from others

    def _covered(self) -> int:
        """Columns on the right that a panel docked beside the chat covers (the dock runs
        to the bottom of the screen, over the footer)."""
        from .panel import PanelDock

        width = self.outer_size.width or self.app.size.width
        return sum(dock.outer_size.width or width // 2
                   for dock in self.screen.query(PanelDock) if dock.display)

    def shown_width(self) -> int:
        """The columns the footer shows (a label's width is a share of them)."""
        return (self.outer_size.width or self.app.size.width) - self._covered()

    def _labelled(self) -> bool:
        """Background work or logged errors show."""
        return any(self._label_cells.values())

    def _labels_width(self, cells: dict[str, int]) -> int:
        """Cells the labels take, each at most its share of the footer."""
        width = self.shown_width()
        return sum(min(cells.get(label_id, 0), int(width * share))
                   for label_id, share in LABEL_MAX_SHARE.items())

    def _palette_fits(self) -> bool:
        """The palette key stays while the keys, it and the labels (at their shortest) fit
        on one line; else the labels take its place (Ctrl+P is in the welcome line and the
        help), so the keys keep their line at 80 columns."""
        if not self._labelled():
            return True
        least = {k: self._label_least.get(k, v) or v for k, v in self._label_cells.items()}
        return sum(self._hint_widths) + self._palette_cells + self._labels_width(least) \
            <= self.shown_width()

    def activity_room(self) -> int:
        """Cells the activity label may take and leave the keys one line (beside the palette
        key when it stays, and a logged error)."""
        others = {k: v for k, v in self._label_cells.items() if k != "activity"}
        palette = self._palette_cells if self._palette_fits() else 0
        return self.shown_width() - sum(self._hint_widths) - palette - \
            self._labels_width(others)

    def _key_room(self, labels: dict[str, int] | None = None) -> int:
        """Cells each line has for keys: the footer less what is docked on its right (the
        palette key while it stays, background work and logged errors while they show, as
        wide as ``labels`` says, else as they are)."""
        palette = self._palette_cells if self._palette_fits() else 0
        cells = self._label_cells if labels is None else labels
        return max(1, self.shown_width() - palette - self._labels_width(cells))

    def key_lines_beside_activity(self, cells: int) -> int:
        """The keys' lines with the activity label ``cells`` wide."""
        labels = {**self._label_cells, "activity": cells}
        return len(key_rows(self._hint_widths, self._key_room(labels)))

    def label_least(self, label_id: str, cells: int) -> None:
        """The fewest cells label ``label_id`` can say its words in (0: it has none)."""
        self._label_least[label_id] = cells

    def label_changed(self, label_id: str, cells: int) -> None:
        """A label showed, hid or changed its text: re-wrap when the keys' lines change or
        the palette key comes or goes."""
        self._label_cells[label_id] = cells
        if self._hint_widths and (self._palette_shown != self._palette_fits() or
                                  key_rows(self._hint_widths, self._key_room()) != self._rows):
            self.post_message(self.Rewrap())

    def on_resize(self, event: events.Resize) -> None:
        if self.outer_size.width != self._composed_width:
            self.post_message(self.Rewrap())

    class Rewrap(Message):
        """Lay the keys out again. A message to the footer itself: composing from a label's
        call (a callback it scheduled runs as the label) could not bind the keys' style."""

        bubble = False

    async def on_app_footer_rewrap(self, message: Rewrap) -> None:
        await self.recompose()
