"""Slash commands that take something out of the session for the person: ``/copy`` (the last
answer to the clipboard), ``/export`` (the conversation as a Markdown file) and ``/diff``
(what changed in the project, or in the agent's last turn), as a mixin of the chat screen."""

from __future__ import annotations

import asyncio
import os
import shlex
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work

from ..last_answer import NOTHING_TO_COPY, copied_line, last_answer

if TYPE_CHECKING:
    from ...core.agent.conversation_export import ExportedText
    from ...core.agent.diff_view import DiffView
    from .chat import ChatScreen

TURN_VIEW = "`/diff turn` shows what the agent changed in its last turn."


class ConversationOutputsMixin:
    async def slash_copy(self: ChatScreen, rest: str) -> None:
        answer = last_answer(self.session.history) if self.session is not None else None
        if answer is None:
            await self.chat.add_notice(NOTHING_TO_COPY, "warning")
            return
        self.app.copy_to_clipboard(answer)
        await self.chat.add_notice(copied_line(answer))

    async def slash_export(self: ChatScreen, rest: str) -> None:
        if self.session is None:
            await self.chat.add_notice("No conversation to export yet: the session is still "
                                       "starting.", "warning")
            return
        try:  # a quoted path may hold spaces; an unquoted one is taken as typed
            words = shlex.split(rest)
        except ValueError:
            words = [rest]
        self.export_conversation(" ".join(words).strip())

    @work(group="export", exit_on_error=False)
    async def export_conversation(self: ChatScreen, wanted: str) -> None:
        from ...core.agent.conversation_export import (
            NOTHING_TO_EXPORT,
            conversation_markdown,
            default_export_path,
            path_span,
            prepare_export_folder,
        )
        from ...core.llm.redact import redact_known

        session, root = self.session, self.backend.project_root
        now = datetime.now()
        secrets = self.backend.settings.secrets()
        exported = await asyncio.to_thread(
            conversation_markdown, list(session.history),
            f"paicli-tui conversation {session.session_id} · {root.name} · "
            f"{now:%Y-%m-%d %H:%M}", lambda text: redact_known(text, secrets))
        if not exported.sections:  # a file of one heading line read as a failed export
            self.say(NOTHING_TO_EXPORT, "warning")
            return
        if not wanted:
            try:
                await asyncio.to_thread(prepare_export_folder, root)
            except OSError as exc:  # a .paicli link leading out of the project
                self.say(f"Not exported: {exc}. `/export PATH` writes where you say.", "error")
                return
            await self._write_export(exported, default_export_path(root, session.session_id,
                                                                   now), replace=False)
            return
        path = Path(os.path.expanduser(wanted))
        path = path if path.is_absolute() else root / path
        if path.is_dir():
            self.say(f"{path_span(wanted)} is a folder: name a file in it. "
                     "Nothing was written.", "warning")
            return
        replace = os.path.lexists(path)
        if replace and not await self._replace_asked(path):
            self.say(f"Not exported: {path_span(path)} exists and was left as it is.", "warning")
            return
        await self._write_export(exported, path, replace=replace)

    async def _replace_asked(self: ChatScreen, path: Path) -> bool:
        from ...core.agent.conversation_export import replace_question
        from ..modals.confirm import ConfirmModal

        return bool(await self.app.push_screen_wait(ConfirmModal(
            f"Replace {path.name}?", await asyncio.to_thread(replace_question, path),
            yes="Replace")))

    async def _write_export(self: ChatScreen, exported: ExportedText, path: Path, *,
                            replace: bool) -> None:
        from ...core.agent.conversation_export import exported_line, path_span, write_new_file
        from ...core.agent.tools.edit import write_bytes_atomically

        try:
            if replace:
                await asyncio.to_thread(write_bytes_atomically, path,
                                        exported.markdown.encode("utf-8"))
            else:
                await asyncio.to_thread(write_new_file, path, exported.markdown)
        except FileExistsError:  # made between the look and the write: never written over
            self.say(f"Not exported: {path_span(path)} appeared meanwhile and was left as it is.",
                     "warning")
            return
        except OSError as exc:
            self.say(f"Cannot write {path_span(path)}: {exc.strerror or exc}. Nothing was exported.",
                     "error")
            return
        self.say(exported_line(exported, path))

    async def slash_diff(self: ChatScreen, rest: str) -> None:
        which = rest.strip().lower()
        if which not in ("", "turn"):
            await self.chat.add_notice("Usage: `/diff` (the work tree against HEAD) or "
                                       "`/diff turn` (the agent's last turn)", "warning")
            return
        self.show_diff(which == "turn")

    @work(group="diff", exit_on_error=False)
    async def show_diff(self: ChatScreen, turn: bool) -> None:
        from ..modals.diff_view import DiffModal

        view = await (self._turn_diff() if turn else self._work_tree_diff())
        if view is None:
            return
        if not view.files:
            self.say("No changes: the work tree matches HEAD and holds no untracked file "
                     "(ignored files left out).")
            return
        self.app.push_screen(DiffModal(view))

    async def _turn_diff(self: ChatScreen) -> DiffView | None:
        view = await self.session.last_turn_diff() if self.session is not None else None
        if view is None:
            self.say("The agent changed no file in this session (or `/undo` put back every "
                     "change), so there is no turn to show.")
        return view

    async def _work_tree_diff(self: ChatScreen) -> DiffView | None:
        from ...core.agent.git_changes import GitUnavailable, working_tree_diff
        from ...core.agent.tools.command_env import command_environment
        from ...core.llm.redact import redact_known

        settings = self.backend.settings
        secrets = settings.secrets()
        try:
            return await asyncio.to_thread(working_tree_diff, self.backend.project_root,
                                           command_environment(settings),
                                           lambda text: redact_known(text, secrets))
        except GitUnavailable as exc:
            self.say(f"{exc} {TURN_VIEW}", "warning")
            return None
