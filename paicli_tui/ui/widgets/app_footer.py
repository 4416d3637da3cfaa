"""The footer of every screen: the key hints plus what runs in the background (an index
build's progress) on the right, so it stays in sight whichever screen is on top."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Footer, Static


class ActivityLabel(Static):
    """Background work in words; hidden when there is none."""

    def on_mount(self) -> None:
        job = getattr(self.app, "index_job", None)
        if job is not None:
            job.changed.subscribe(self, self.refresh_text)
        self.refresh_text()

    def refresh_text(self, _: Any = None) -> None:
        from ..index_job import footer_text

        job = getattr(self.app, "index_job", None)
        text = footer_text(job.state) if job is not None else ""
        self.update(text)
        self.display = bool(text)


class AppFooter(Footer):
    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield ActivityLabel(id="activity", markup=False)
