"""The code-index build, owned by the app rather than by the code-search panel.

Leaving the panel (or never opening it: ``/index``) lets the build finish; its progress is
published to whoever listens (the footer of every screen, the panel's bar) and its end is a
toast on whatever screen is on top. One build at a time.

The job is not a widget: its thread posts :class:`IndexJob.Stepped` and :class:`IndexJob.Ended`
to the app, whose handlers call :meth:`IndexJob.stepped` and :meth:`IndexJob.ended` on the event
loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual.message import Message
from textual.signal import Signal

from .backend import CodeBackend, IndexStep

if TYPE_CHECKING:
    from textual.app import App


@dataclass(frozen=True)
class IndexState:
    """What the build is doing, in words and numbers the bar can show."""

    running: bool = False
    done: int = 0
    total: int = 0
    """0 while the amount of work is not known (the bar pulses instead of sitting full)."""
    step: str = ""
    summary: str = ""
    """The last finished build's result (or why it failed)."""
    failed: bool = False


PHASE_WORDS = {"scan": "scanning files", "parse": "parsing changed files",
               "embed": "embedding", "write": "writing", "fulltext": "full-text index",
               "done": "finishing"}


def describe(event: IndexStep, embedder_loaded: bool) -> IndexState:
    """The state one progress event of the indexer means.

    The phase's own count drives the bar, except while nothing is known to be left for it
    (a scan that found everything, parsing before the first batch, the embedder loading):
    then the bar pulses, so it never sits full while the slowest step runs.
    """
    phase = event.phase
    if not phase:
        return IndexState(True, event.done, event.total, event.message)
    words = PHASE_WORDS.get(phase, phase)
    done, total = event.done, event.total
    if phase == "scan":
        return IndexState(True, 0, 0, f"{words}: {done} found")
    if phase == "parse":
        return IndexState(True, 0, 0, f"{words}: {total} to index")
    if phase == "embed":
        step = f"{words} {done}/{total} files"
        if event.detail.startswith("0/") and not embedder_loaded:
            return IndexState(True, 0, 0, f"{step} · loading the embedder…")
        return IndexState(True, done, total, step)
    if phase == "fulltext":
        return IndexState(True, 0, 0, f"{words}")
    return IndexState(True, done, total, f"{words} {done}/{total}".strip())


def footer_text(state: IndexState) -> str:
    """The footer's words for the build, "" when there is nothing to say."""
    if state.running:
        share = f" {state.done * 100 // state.total}%" if state.total else ""
        return f"⟳ index{share}: {state.step}" if state.step else f"⟳ index{share}…"
    return ""


def footer_texts(state: IndexState) -> tuple[str, ...]:
    """The footer's words for the build, longest first: the step in words, then only the
    share done (or that it runs) where the keys leave no more room; () when none runs."""
    whole = footer_text(state)
    if not whole:
        return ()
    short = f"⟳ index {state.done * 100 // state.total}%" if state.total else "⟳ index…"
    return (whole, short) if short != whole else (whole,)


class IndexJob:
    """One app-wide index build with its latest state."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.state = IndexState()
        self.changed: Signal[IndexState] = Signal(app, "index-job")
        self._embedder_loaded = False

    @property
    def running(self) -> bool:
        return self.state.running

    def start(self, code: CodeBackend) -> bool:
        """Start a build in a thread; False (nothing started) when one is running."""
        if self.state.running:
            return False
        self._embedder_loaded = False
        self._set(IndexState(True, 0, 0, "starting…"))
        self.app.run_worker(partial(self._build, code), thread=True, group="index-job",
                            name="index build", exit_on_error=False)
        return True

    class Stepped(Message):
        """The build (in its thread) reached a step; the app hands it to :meth:`stepped`."""

        def __init__(self, step: IndexStep) -> None:
            super().__init__()
            self.step = step

    class Ended(Message):
        """The build is over (``failed``: ``summary`` says why); the app hands it to
        :meth:`ended`."""

        def __init__(self, summary: str, failed: bool) -> None:
            super().__init__()
            self.summary = summary
            self.failed = failed

    def _build(self, code: CodeBackend) -> None:
        def progress(event: IndexStep) -> None:
            self.app.post_message(IndexJob.Stepped(event))

        try:
            summary, failed = code.index(progress), False
        except Exception as exc:  # the embedder or the disk: say so, keep the app
            summary, failed = f"indexing failed: {exc}", True
        self.app.post_message(IndexJob.Ended(summary, failed))

    def stepped(self, message: Stepped) -> None:
        event = message.step
        state = describe(event, self._embedder_loaded)
        if event.phase == "embed" and not event.detail.startswith("0/"):
            self._embedder_loaded = True
        self._set(state)

    def ended(self, message: Ended) -> None:
        summary, failed = message.summary, message.failed
        self._set(IndexState(False, summary=summary, failed=failed))
        self.app.notify(summary, title="index build failed" if failed else "index ready",
                        severity="error" if failed else "information", timeout=8)

    def _set(self, state: IndexState) -> None:
        self.state = state
        self.changed.publish(state)
