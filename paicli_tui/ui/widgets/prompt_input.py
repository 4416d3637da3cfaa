"""The multi-line chat input: Enter sends, Ctrl+J/Alt+Enter adds a line, ↑/↓ walk the input
history at the first/last row shown, PgUp/PgDn scroll the conversation, Tab chooses a slash
command from the menu, a long paste is folded into one ``[Pasted text #1 +N lines]`` token
(the full text is what gets sent), and messages typed while a turn runs wait here in a
queue."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Location

from ..slash import SlashCommand, completions
from .graphemes import character_start, next_boundary, previous_boundary
from .line_keys import WHOLE_LINE_KEYS
from .mention_words import MentionWord, ProjectFiles, mention_at, menu_entries
from .typed_input import edit_now

NEWLINE_KEYS = ("ctrl+j", "shift+enter", "alt+enter")

READLINE_ALT_KEYS = {"alt+b": "cursor_word_left", "alt+f": "cursor_word_right",
                     "alt+d": "delete_word_right"}
"""Alt+B / Alt+F / Alt+D as in a shell (and Claude Code): a word left, right, delete one."""

PASTE_FOLD_LINES = 4
"""A paste of more lines than this is shown as one token in the input."""
PASTE_FOLD_CHARS = 800
"""... and so is a paste longer than this, whatever its line count."""

PLACEHOLDER = "Ask about this project · / for commands · Ctrl+J new line"
PLACEHOLDERS = (PLACEHOLDER, "Ask about this project · / for commands", "Ask about this project")
"""Longest first: the input shows the longest that fits (at 60 columns the full one was
cut to "… · Ctrl+J new")."""


def placeholder_for(width: int) -> str:
    """The longest placeholder that fits ``width`` cells (one is the cursor's)."""
    return next((text for text in PLACEHOLDERS if len(text) < width), PLACEHOLDERS[-1])


class PromptInput(TextArea):
    class Submitted(Message):
        """``text`` is what is sent (pastes expanded); ``shown`` what the chat displays."""

        def __init__(self, text: str, shown: str | None = None) -> None:
            super().__init__()
            self.text = text
            self.shown = text if shown is None else shown

    class MenuChanged(Message):
        """The slash menu's matches or highlight changed (empty: hide it)."""

        def __init__(self, matches: list[SlashCommand], highlighted: int) -> None:
            super().__init__()
            self.matches = matches
            self.highlighted = highlighted

    class ScrollChat(Message):
        """PgUp / PgDn in the input: scroll the conversation a page (``pages`` is -1 or +1);
        the focus stays here."""

        def __init__(self, pages: int) -> None:
            super().__init__()
            self.pages = pages

    class SwitchMode(Message):
        """Shift+Tab outside a menu: switch the accept-edits mode."""

    class QueueChanged(Message):
        """Messages waiting for the running turn to end were added, recalled or taken."""

        def __init__(self, queued: list[str]) -> None:
            super().__init__()
            self.queued = queued

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="prompt-input", soft_wrap=True,
                         show_line_numbers=False, tab_behavior="focus",
                         placeholder=PLACEHOLDER)
        self.inputs: list[str] = []
        self._history_index: int | None = None
        self._draft = ""
        self.menu: list[SlashCommand] = []
        self.menu_index = 0
        self.skill_commands: list[SlashCommand] = []
        """The session's skills as commands (``/release``), listed after the program's."""
        self._filled: str | None = None  # text the menu put in (not typed)
        self._dismissed: str | None = None  # Esc closed the menu for this text
        self._menu_text = ""  # the text the menu was worked out for
        self.pastes: dict[str, str] = {}
        self._paste_count = 0
        self.queued: list[str] = []
        self.project_files: ProjectFiles | None = None
        """The files ``@`` offers (set by the screen; None: no ``@`` menu)."""
        self._mention: MentionWord | None = None  # the @ word the menu lists files for

    def on_resize(self, event: events.Resize) -> None:
        self.placeholder = placeholder_for(self.content_size.width)

    # -- keys ------------------------------------------------------------------------------
    async def _on_key(self, event: events.Key) -> None:
        # keys typed quickly arrive before the Changed message of the key before them: the
        # menu must follow the text as it is now, or Tab takes a stale match
        self.follow_text()
        key = event.key
        handled = True
        if key == "enter":
            self.accept_or_submit()
        elif key in NEWLINE_KEYS:
            self.insert("\n")
        elif key == "tab" and self.text.startswith("/") and " " not in self.text:
            # while a command name is typed Tab never leaves the input
            self.choose(+1 if self._filled == self.text else 0)
        elif key == "tab" and self._mention is not None and self.menu:
            self.choose(+1 if self._filled == self.text else 0)
        elif key == "shift+tab" and self.menu:
            self.choose(-1)
        elif key == "shift+tab":  # as in Claude Code: the approval mode, not the focus
            self.post_message(self.SwitchMode())
        elif key == "escape" and self.menu:
            self.close_menu()
        elif key in ("pageup", "pagedown"):
            self.post_message(self.ScrollChat(-1 if key == "pageup" else +1))
        elif key in READLINE_ALT_KEYS:
            await self.run_action(READLINE_ALT_KEYS[key])
        elif key in WHOLE_LINE_KEYS and not self.read_only:
            WHOLE_LINE_KEYS[key](self)
        elif key.startswith("alt+") and event.is_printable:
            self.escape()
            event.stop()
            event.prevent_default()
            await super()._on_key(events.Key(key.removeprefix("alt+"), event.character))
            return
        elif await edit_now(self, event):
            return  # an editing key, run at once (typed_input.py says why)
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.menu:
            self.choose(-1)
            return
        if not select and not self.text and self.queued:
            self.recall_queued()
            return
        # the first row as shown: in a long line that wraps, ↑ on its second row goes up to
        # the first (it took the history instead, and the draft seemed gone)
        if not select and self.navigator.is_first_wrapped_line(self.cursor_location) \
                and self.history_previous():
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if not select and self.menu:
            self.choose(+1)
            return
        if not select and self.navigator.is_last_wrapped_line(self.cursor_location) \
                and self.history_next():
            return
        super().action_cursor_down(select)

    async def _on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        if not self.read_only:
            self.paste_text(event.text)

    def paste_text(self, text: str) -> None:
        """Insert pasted text at the cursor; a long paste goes in as one token."""
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = len(text.splitlines()) or 1  # 2,000 copied lines end with a newline: 2,000
        if lines > PASTE_FOLD_LINES or len(text) > PASTE_FOLD_CHARS:
            self._paste_count += 1
            token = f"[Pasted text #{self._paste_count} +{lines} lines]"
            self.pastes[token] = text
            text = token
        start, end = self.selection
        result = self.replace(text, start, end)
        self.move_cursor(result.end_location)
        self.focus()

    def escape(self) -> None:
        """The Esc of an Esc typed just before another key. The two reach the app as one
        Alt+key: the terminal sends ESC + key (tmux joins them for its escape-time, 500 ms
        by default), so Esc to stop a turn and typing at once lost the Esc. Nothing here
        is bound to Alt+letter, so it is taken as what the person did: Esc, then the key
        (inserted by the caller at once, in its place among the keys typed)."""
        if self.menu:
            self.close_menu()
        else:  # the screen's Esc (stop the running turn)
            self.app.post_message(events.Key("escape", "\x1b"))

    # ← / → and Backspace / Delete step over a whole character as a person sees it
    def get_cursor_left_location(self) -> Location:
        row, column = self.cursor_location
        if column == 0:
            return super().get_cursor_left_location()
        return row, previous_boundary(self.document.get_line(row), column)

    def get_cursor_right_location(self) -> Location:
        row, column = self.cursor_location
        line = self.document.get_line(row)
        if column >= len(line):
            return super().get_cursor_right_location()
        return row, next_boundary(line, column)

    # ↑ / ↓ and a click go by screen cells and could land inside 👨‍👩‍👧 (its joiners take none):
    # what was typed there next split it into 👨‍ and 👩‍👧
    def get_cursor_up_location(self) -> Location:
        return self._on_character(super().get_cursor_up_location())

    def get_cursor_down_location(self) -> Location:
        return self._on_character(super().get_cursor_down_location())

    def get_target_document_location(self, event: events.MouseEvent) -> Location:
        return self._on_character(super().get_target_document_location(event))

    def _on_character(self, location: Location) -> Location:
        row, column = location
        return row, character_start(self.document.get_line(row), column)

    # every deleting action (Backspace, Delete, Ctrl+D, Ctrl+W, Alt+Backspace, Alt+D,
    # Alt+Delete) takes a paste token beside the cursor whole
    def action_delete_left(self) -> None:
        if not self.delete_paste(before=True):
            super().action_delete_left()

    def action_delete_right(self) -> None:
        if not self.delete_paste(before=False):
            super().action_delete_right()

    def action_delete_word_left(self) -> None:
        if not self.delete_paste(before=True):
            super().action_delete_word_left()

    def action_delete_word_right(self) -> None:
        if not self.delete_paste(before=False):
            super().action_delete_word_right()

    def delete_paste(self, before: bool) -> bool:
        """Backspace just after a paste token (Delete just before one) removes the whole
        token, as in Claude Code: one character off left a plain "[Pasted text #1 +9
        lines" that was sent as it stood, the paste lost. False when the cursor is not
        beside a token (or text is selected)."""
        start, end = self.selection
        if start != end:
            return False
        row, column = end
        line = self.document.get_line(row)
        for token in self.pastes:
            if before and line[:column].endswith(token):
                self.delete((row, column - len(token)), end)
                return True
            if not before and line[column:].startswith(token):
                self.delete(end, (row, column + len(token)))
                return True
        return False

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.follow_text()

    def follow_text(self) -> None:
        """Typing (not the menu's own filling) recomputes the slash menu, once per text."""
        text = self.text
        if text == self._menu_text:
            return
        self._menu_text = text
        if text == self._filled:
            return
        self._filled = None
        if self._dismissed is not None and text != self._dismissed:
            self._dismissed = None
        matches = [] if text == self._dismissed else completions(text, self.skill_commands)
        self._mention = None
        if not matches and text != self._dismissed and self.project_files is not None:
            matches = self._file_matches()
        self._set_menu(matches, 0)

    def _file_matches(self) -> list[SlashCommand]:
        """The files the ``@`` word at the cursor may mean ([] when there is none)."""
        from ...core.agent.mentions import file_candidates

        row, column = self.cursor_location
        word = mention_at(self.document.get_line(row), row, column)
        if word is None or self.project_files is None:
            return []
        matches = menu_entries(file_candidates(self.project_files.current(), word.typed))
        self._mention = word if matches else None
        return matches

    def on_project_files_loaded(self, message: ProjectFiles.Loaded) -> None:
        """The file list arrived (or changed) while an ``@`` word was typed."""
        if self._filled is None:
            self._menu_text = ""  # worked out again for the same text
            self.follow_text()

    # -- slash menu ------------------------------------------------------------------------
    def _set_menu(self, matches: list[SlashCommand], index: int) -> None:
        if matches == self.menu and index == self.menu_index:
            return
        self.menu, self.menu_index = matches, index
        self.post_message(self.MenuChanged(list(matches), index))

    def choose(self, step: int) -> None:
        """Move the highlight by ``step`` (0: take the highlighted one) and put its name in
        the input. The only match is completed with a space, which closes the menu."""
        if not self.menu:
            return
        if self._mention is not None:
            self._choose_file(step)
            return
        if len(self.menu) == 1:
            self._fill(self.menu[0].name + " ")
            return
        index = (self.menu_index + step) % len(self.menu)
        self._set_menu(self.menu, index)
        self._filled = self.menu[index].name
        self._fill(self._filled)

    def _choose_file(self, step: int, close: bool = False) -> None:
        """Put the highlighted file (moved by ``step``) in the ``@`` word's place. The only
        match, or ``close`` (Enter), completes it with a space, which closes the menu."""
        word = self._mention
        assert word is not None
        index = 0 if len(self.menu) == 1 else (self.menu_index + step) % len(self.menu)
        chosen = self.menu[index].name
        finish = close or len(self.menu) == 1
        result = self.replace(chosen + (" " if finish else ""), (word.row, word.start),
                              (word.row, word.end), maintain_selection_offset=False)
        self.move_cursor(result.end_location)
        if finish:
            self._mention = None
            self._set_menu([], 0)
            return
        self._mention = MentionWord(word.row, word.start, word.start + len(chosen), word.typed)
        self._filled = self.text
        self._set_menu(self.menu, index)

    def close_menu(self) -> None:
        self._dismissed = self.text
        self._filled = None
        self._mention = None
        self._set_menu([], 0)

    def _fill(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def accept_or_submit(self) -> None:
        """Enter: with the menu open, run the highlighted command (or, when it takes
        arguments, put it in the input to finish); otherwise send the text."""
        if self.menu and self._mention is not None:
            self._choose_file(0, close=True)
            return
        if self.menu:
            command = self.menu[self.menu_index]
            if command.needs_args:
                self._filled = None
                self._fill(command.name + " ")
                return
            self._fill(command.name)
            self._set_menu([], 0)
        self.submit()

    # -- behaviour -------------------------------------------------------------------------
    def submit(self) -> None:
        """Send the text (if not blank), remember it, clear the input."""
        shown = self.text
        if not shown.strip():
            return
        text = self.expand_pastes(shown)
        if not self.inputs or self.inputs[-1] != text:
            self.inputs.append(text)
        self._history_index = None
        self._draft = ""
        self.pastes.clear()
        self.clear()
        self.post_message(self.Submitted(text, shown))

    def expand_pastes(self, text: str) -> str:
        """The text with every paste token replaced by what was pasted."""
        for token, full in self.pastes.items():
            text = text.replace(token, full)
        return text

    def complete(self) -> bool:
        """Tab: choose from the slash menu; False when there is nothing to complete."""
        if not self.menu:
            return False
        self.choose(+1 if self._filled == self.text else 0)
        return True

    # -- queue -----------------------------------------------------------------------------
    def enqueue(self, text: str) -> None:
        self.queued.append(text)
        self.post_message(self.QueueChanged(list(self.queued)))

    def take_queued(self) -> list[str]:
        taken, self.queued = self.queued, []
        if taken:
            self.post_message(self.QueueChanged([]))
        return taken

    def recall_queued(self) -> None:
        """↑ on an empty input: the last queued message comes back to be edited (Enter
        queues it again; clearing it cancels it)."""
        self._show(self.queued.pop())
        self.post_message(self.QueueChanged(list(self.queued)))

    # -- history ---------------------------------------------------------------------------
    def history_previous(self) -> bool:
        if not self.inputs:
            return False
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.inputs) - 1
        elif self._history_index > 0:
            self._history_index -= 1
        else:
            return True
        self._show(self.inputs[self._history_index])
        return True

    def history_next(self) -> bool:
        if self._history_index is None:
            return False
        if self._history_index < len(self.inputs) - 1:
            self._history_index += 1
            self._show(self.inputs[self._history_index])
        else:
            self._history_index = None
            self._show(self._draft)
        return True

    def insert_reference(self, text: str) -> None:
        """Insert text at the cursor with a space around it where needed."""
        before = self.document.get_text_range((0, 0), self.cursor_location)
        prefix = "" if not before or before.endswith((" ", "\n")) else " "
        self.insert(prefix + text + " ")

    def type_character(self, character: str) -> None:
        """A key typed elsewhere on the chat screen lands here, at the cursor."""
        self.focus()
        self.insert(character)

    def put_back(self, text: str) -> None:
        """Text that was not sent (a mistyped command) back in the input, cursor at its end."""
        self._show(text)

    def _show(self, text: str) -> None:
        self._dismissed = text  # a recalled "/help" is not a command being typed
        self.load_text(text)
        self.move_cursor(self.document.end)
