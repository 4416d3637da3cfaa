"""One tool call in the chat: a collapsible block with status, arguments and result preview.
While the tool runs its title counts the seconds; once done it keeps how long it took. Time
spent waiting for the person's approval is not the tool's: the title says it waits, and those
seconds are left out."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from ...core.messages import Message
from ...core.text.arguments import readable_arguments
from ..format import fmt_tokens, preview_lines, short_args
from .chat_collapsible import ChatCollapsible

STATUS_ICONS = {"running": "…", "done": "✓", "denied": "⊘", "conflict": "⊘", "failed": "✗",
                "cancelled": "⊘"}

CANCELLED_PREVIEW = "stopped before it finished: it may have run in part, check its effects"
"""The body of a call its turn stopped (Esc, Ctrl+C): the person stopped it, nothing failed."""

SHOW_SECONDS_FROM = 1.0
"""Shorter calls show no time (most reads take milliseconds)."""

PERMISSION_NOTES = {
    "always": "auto-approved (Always)",
    "auto": "auto-approved (--yes)",
    "accept-edits": "auto-approved (accept edits)",
    "read-only": "read-only, no approval",
    "typed": "typed by you · the model reads its output with your next message",
}
"""The mark on a call that needed approval and went ahead without asking
(``ToolCallFinished.permission``)."""


def recorded_status(result: Message | None) -> str:
    """The status a restored call ended with, from its result message: as recorded; a call
    its turn stopped (its stand-in result: Esc, Ctrl+C, the app closing) cancelled, as it
    read when it happened and as the exported conversation says; one never answered
    failed."""
    if result is None:
        return "failed"
    return str(result.meta.get("status") or ("cancelled" if result.meta.get("synthetic")
                                             else "done"))


def call_title(name: str, arguments: str, status: str) -> str:
    """``✓ read_file path=src/a.py``: the start of every call's title."""
    args = short_args(arguments)  # none ({}): no blank before the status's "·"
    return f"{STATUS_ICONS.get(status, '?')} {name}" + (f" {args}" if args else "")


class ToolBlock(ChatCollapsible):
    """Title: ``icon name args · status [· seconds] [· note]``; body: full arguments,
    preview, offload path."""

    status: reactive[str] = reactive("running")
    clock: Callable[[], float] = staticmethod(time.monotonic)

    def __init__(self, call_id: str, name: str, arguments: str, note: str = "") -> None:
        self.call_id = call_id
        self.tool_name = name
        self.arguments = arguments
        self.note = note
        """How it was allowed when nobody was asked ("auto-approved: Always", "read-only")."""
        self.started_at = self.clock()
        self.seconds: float | None = None
        self.waited = 0.0
        """Seconds its approval dialog was open (not counted as the tool's time)."""
        self._waiting_since: float | None = None
        self.extra = ""
        self._timer: Timer | None = None
        self._preview = Static("", markup=False, classes="tool-preview")
        self._offload = Static("", markup=False, classes="tool-offload")
        super().__init__(Static(readable_arguments(arguments), markup=False, classes="tool-args"),
                         self._preview,
                         self._offload, title=self.title_text("running"), collapsed=True,
                         classes="tool-block status-running")

    def on_mount(self) -> None:
        if self.status == "running":
            self._timer = self.set_interval(0.5, self._refresh_title)

    def title_text(self, status: str | None = None) -> str:
        status = status or self.status
        title = call_title(self.tool_name, self.arguments, status)
        seconds = self.seconds if self.seconds is not None else self.elapsed()
        if status == "running" and self._waiting_since is not None:
            return title + " · waiting for your approval" + self.extra
        title += f" · {status}"
        if seconds >= SHOW_SECONDS_FROM:
            title += f" {seconds:.0f} s" if status == "running" else f" · {seconds:.1f} s"
        if self.note:
            title += f" · {self.note}"
        return title + self.extra

    def _refresh_title(self) -> None:
        self.title = self.title_text()

    def elapsed(self) -> float:
        """Seconds since it started, without the time its approval dialog was open."""
        now = self.clock()
        held = self.waited + (now - self._waiting_since if self._waiting_since is not None
                              else 0.0)
        return now - self.started_at - held

    def wait_for_approval(self, waiting: bool) -> None:
        """The person's approval dialog for this call opened (True) or closed (False)."""
        now = self.clock()
        if waiting and self._waiting_since is None:
            self._waiting_since = now
        elif not waiting and self._waiting_since is not None:
            self.waited += now - self._waiting_since
            self._waiting_since = None
        self.title = self.title_text()

    def watch_status(self, old: str, new: str) -> None:
        self.remove_class(f"status-{old}")
        self.add_class(f"status-{new}")
        self.title = self.title_text()

    def mark(self, note: str) -> None:
        self.note = note
        self.title = self.title_text()

    def finish(self, status: str, preview: str, chars: int = 0,
               offload_path: str | None = None) -> None:
        """Show the outcome; the block stays folded unless the tool failed, was denied or left a
        memory conflict for the person."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.wait_for_approval(False)
        self.seconds = self.elapsed()
        self._preview.update(preview_lines(preview))
        self.extra = f" · {fmt_tokens(chars)} chars" if chars else ""
        if offload_path:
            self._offload.update(
                f"full output saved to {offload_path} (read it back with read_file)")
            self.extra += " · offloaded"
        self.status = status
        self.title = self.title_text()
        if status in ("failed", "denied", "conflict", "cancelled"):
            self.set_collapsed(False)

    def cancel(self) -> None:
        """Its turn was stopped while it ran: it reads "cancelled" (grey ⊘, as a sub-agent or
        a plan task the person stopped), not "failed"."""
        if self.status == "running":
            self.finish("cancelled", CANCELLED_PREVIEW)
