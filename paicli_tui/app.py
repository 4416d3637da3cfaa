"""The Textual application: one chat screen, panels pushed on top, every slash command in
the command palette. ``run_app`` is what ``paicli-tui`` calls."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen

from .config import Settings
from .paths import normalise_project_root
from .resources import style_paths
from .ui.backend import Backend
from .ui.core_backend import CoreBackend
from .ui.index_job import IndexJob
from .ui.memory_inbox import MemoryInbox
from .ui.messages import AgentEventPosted, TurnEnded
from .ui.resume_hint import resume_hint
from .ui.screens.chat import ChatScreen
from .ui.slash import SLASH_COMMANDS
from .ui.terminal_keys import register_alt_enter
from .ui.terminal_text import show_control_characters


class PaicliApp(App[int]):
    """Give it settings and a project; tests also give it a backend built from fakes."""

    TITLE = "paicli-tui"
    CSS_PATH = [str(p) for p in style_paths()]
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(self, settings: Settings, project_root: Path, *, resume: str | None = None,
                 backend: Backend | None = None) -> None:
        register_alt_enter()
        show_control_characters()  # data on the screen never drives the terminal
        super().__init__()
        self.settings = settings
        self.project_root = project_root
        self.backend: Backend = backend or CoreBackend(settings, project_root)
        self.resume = resume
        self.resume_hint = ""
        """Printed after the screen is gone: how to come back to this conversation."""
        self._quit_hint_at: float | None = None
        """When Ctrl+C last gave the quit hint (:meth:`action_help_quit`)."""
        self.theme = "textual-light" if settings.theme == "light" else "textual-dark"
        self.sub_title = project_root.name
        self.index_job = IndexJob(self)
        """The code-index build: the app owns it, so leaving the code search lets it finish."""
        self.memory_inbox = MemoryInbox(self, self.backend)
        """How many automatic memories are new since the person last looked (footer)."""

    def on_mount(self) -> None:
        self.memory_inbox.refresh()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every notice quotes data (a memory, a file name, an error): shown as typed, never
        read as console markup ("arr[/i]" in a memory crashed the screen)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    QUIT_AGAIN_S = 3.0
    """A second Ctrl+C on an empty input within this many seconds of the hint quits."""
    clock = staticmethod(time.monotonic)

    def action_help_quit(self) -> None:
        """Ctrl+C on an empty input: how to quit, in words (Textual's own hint is console
        markup, which :meth:`notify` shows as typed: "Press [b]ctrl+q[/b] …"); pressed again
        at once, it quits, as Ctrl+C twice does in Claude Code and Codex (people pressed it
        again and again and only got the hint again). The app's own keys: a dialog's active
        keys leave them out."""
        now = self.clock()
        if self._quit_hint_at is not None and now - self._quit_hint_at <= self.QUIT_AGAIN_S:
            self._quit_hint_at = None
            self.run_worker(self.action_quit(), exclusive=True, group="quit")
            return
        self._quit_hint_at = now
        for key, bindings in self._bindings.key_to_bindings.items():
            if any(b.action in ("quit", "app.quit") for b in bindings):
                shown = "+".join(part.capitalize() if len(part) > 1 else part.upper()
                                 for part in key.split("+"))
                self.notify(f"Press Ctrl+C again or {shown} to quit.",
                            title="Do you want to quit?", timeout=self.QUIT_AGAIN_S)
                return

    def action_dialog_ctrl_c(self) -> None:
        """Ctrl+C in a dialog (:mod:`.ui.modals.dialog_keys`) as in the chat: copy the
        selection; else, in a dialog the running turn opened (an approval), cancel the turn;
        else how to quit."""
        selected = self.screen.get_selected_text()
        if selected:
            self.copy_to_clipboard(selected)
            return
        chat = self._chat_screen()
        if chat is None or not chat.interrupt_from_dialog(self.screen):
            self.action_help_quit()

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        """Only web links open. A link in the model's words is clicked as easily as any, and
        the system opens whatever a URL names: ``file:///…/x.app`` starts a program the
        repository shipped (macOS), ``vscode://…`` or another app's scheme hands it an
        action. Anything but http(s) is named in a notice instead."""
        from urllib.parse import urlsplit

        if urlsplit(url.strip()).scheme.lower() in ("http", "https"):
            super().open_url(url, new_tab=new_tab)
            return
        self.notify(f"Not opened: only http(s) links open from paicli-tui ({url[:200]})",
                    severity="warning")

    def on_agent_event_posted(self, message: AgentEventPosted) -> None:
        # bubbled up from the chat: an automatic save changes the inbox's count
        self.memory_inbox.after_event(message.event)

    def on_turn_ended(self, message: TurnEnded) -> None:
        self.memory_inbox.refresh()

    # app-wide jobs are not widgets: their threads post here, the jobs keep the state
    def on_index_job_stepped(self, message: IndexJob.Stepped) -> None:
        self.index_job.stepped(message)

    def on_index_job_ended(self, message: IndexJob.Ended) -> None:
        self.index_job.ended(message)

    def on_memory_inbox_counted(self, message: MemoryInbox.Counted) -> None:
        self.memory_inbox.counted(message)

    def get_default_screen(self) -> Screen:
        # the chat is the base screen: no empty default screen is built first
        return ChatScreen(self.backend, self.resume)

    QUIT_GRACE_S = 5.0
    """How long quitting waits for background work (fact extraction) before closing."""

    async def action_quit(self) -> None:
        """Let background memory work finish briefly, close the session, then exit."""
        chat = self._chat_screen()
        session = chat.session if chat is not None else None
        self.resume_hint = resume_hint(session)
        if session is not None:
            if chat is not None and chat.turn_worker is not None:
                chat.turn_worker.cancel()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(session.wait_background(), self.QUIT_GRACE_S)
            with contextlib.suppress(Exception):
                await session.aclose()
        self.exit()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        chat = self._chat_screen()
        if chat is None:
            return
        for command in SLASH_COMMANDS:
            if command.needs_args:
                def run(c: str = command.name) -> None:
                    chat.prompt.load_text(c + " ")
                    chat.prompt.move_cursor(chat.prompt.document.end)
                    chat.prompt.focus()
            else:
                def run(c: str = command.name) -> None:
                    chat.action_slash(c)
            yield SystemCommand(f"{command.name} {command.usage}".strip(), command.help, run)

    def _chat_screen(self) -> ChatScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, ChatScreen):
                return screen
        return None


def run_app(settings: Settings, project_dir: str, resume: str | None) -> int:
    """Run the full-screen interface on ``project_dir``; returns the exit code."""
    root = normalise_project_root(project_dir)
    if not root.is_dir():
        print(f"paicli-tui: project folder {project_dir!r} does not exist", file=sys.stderr)
        return 2
    app = PaicliApp(settings, root, resume=resume)
    result = app.run()
    if app.resume_hint:
        print(app.resume_hint)
    return int(result or 0)
