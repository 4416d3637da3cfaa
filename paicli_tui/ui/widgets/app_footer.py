"""The footer of every screen: the key hints plus what runs in the background (an index
build's progress) and the memory inbox's count of new memories on the right, so both stay in
sight whichever screen is on top."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Footer, Static


class ActivityLabel(Static):
    """Background work in words; hidden when there is none."""

    def on_mount(self) -> None:
        for source in ("index_job", "memory_inbox"):
            owner = getattr(self.app, source, None)
            if owner is not None:
                owner.changed.subscribe(self, self.refresh_text)
        self.refresh_text()

    def refresh_text(self, _: Any = None) -> None:
        from ..index_job import footer_text
        from ..memory_inbox import inbox_text

        job = getattr(self.app, "index_job", None)
        inbox = getattr(self.app, "memory_inbox", None)
        parts = [footer_text(job.state) if job is not None else "",
                 inbox_text(inbox.new) if inbox is not None else ""]
        text = " · ".join(p for p in parts if p)
        self.update(text)
        self.display = bool(text)


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
            text = f"⚠ {count} error{'s' if count > 1 else ''} logged: {tally.path}"
        if text != str(self.render()):
            self.update(text)
        self.display = bool(text)


class AppFooter(Footer):
    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield ActivityLabel(id="activity", markup=False)
        yield LoggedErrorsLabel(id="logged-errors", markup=False)
