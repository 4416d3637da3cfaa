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


class AppFooter(Footer):
    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield ActivityLabel(id="activity", markup=False)
