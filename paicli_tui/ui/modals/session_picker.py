"""/resume: pick a previous session from a searchable list."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from ...core.agent.shell_notes import titled_by_command
from ...core.plural import counted
from ..backend import SessionRow
from ..widgets.typed_input import TypedInput
from .dialog_keys import CTRL_C, move_highlight
from .short_terminal import SMALL_HEIGHT


def _two_lines(session: SessionRow) -> Group:
    """The title on one line, cut with … at the list's width (a Chinese title is twice as
    wide as its characters: it wrapped onto two or three lines), then when and the id
    (whole: wrapped on a narrow screen); another project's session gets a third line with
    its folder (whole too)."""
    lines = [Text(session.title, no_wrap=True, overflow="ellipsis"),
             Text(f"  {session.updated} · {_what_it_holds(session)} · {session.session_id}")]
    if session.other_project:
        lines.append(Text(f"  another project: {session.project}", style="italic",
                          overflow="fold"))  # whole: its last folder names it
    return Group(*lines)


def _what_it_holds(session: SessionRow) -> str:
    """How many messages it holds; "only commands" for a session of ``!commands`` alone (its
    one message is the system prompt: "1 message" read as if the person had written one)."""
    if titled_by_command(session.title) and session.message_count <= 1:
        return "only commands"
    return counted(session.message_count, "message")


class SessionPicker(ModalScreen[str | None]):
    """Type to filter by title, id or project; Enter reopens the highlighted session. The
    rows come this project's sessions first (:meth:`CoreBackend.sessions`)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), CTRL_C,
                Binding("down", "move(1)", show=False), Binding("up", "move(-1)", show=False)]

    def __init__(self, sessions: list[SessionRow]) -> None:
        super().__init__(classes="dialog-screen")
        self.sessions = sessions

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker-dialog"):
            yield Label("Resume a session", classes="dialog-title")
            yield TypedInput(placeholder="filter sessions…", id="picker-filter")
            yield OptionList(id="picker-options")
            yield Label("", id="picker-empty", classes="dim")
            yield Label("↑↓ choose · Enter reopens · Esc cancels", classes="dim dialog-keys")

    def on_resize(self, event: events.Resize) -> None:
        # a short terminal: less padding and a shorter list, so the keys line stays on screen
        self.set_class(event.size.height < SMALL_HEIGHT, "-small")

    def on_mount(self) -> None:
        self.set_class(self.size.height < SMALL_HEIGHT, "-small")
        self._fill("")
        self.query_one(Input).focus()

    def _fill(self, text: str) -> None:
        needle = text.lower().strip()
        options = self.query_one(OptionList)
        options.clear_options()
        shown = [s for s in self.sessions
                 if not needle or needle in f"{s.title} {s.session_id} {s.project}".lower()]
        options.add_options([Option(_two_lines(s), id=s.session_id) for s in shown])
        if shown:
            options.highlighted = 0
        self.query_one("#picker-empty", Label).update(
            "" if shown else ("No sessions yet." if not self.sessions else "No match."))

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self.dismiss(options.get_option_at_index(options.highlighted).id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_move(self, step: int) -> None:
        move_highlight(self.query_one(OptionList), step)

    def action_cancel(self) -> None:
        self.dismiss(None)
