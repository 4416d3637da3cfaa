"""Slash commands that take something out of the session for the person: ``/copy`` (the last
answer to the clipboard), as a mixin of the chat screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..last_answer import NOTHING_TO_COPY, copied_line, last_answer

if TYPE_CHECKING:
    from .chat import ChatScreen


class ConversationOutputsMixin:
    async def slash_copy(self: ChatScreen, rest: str) -> None:
        answer = last_answer(self.session.history) if self.session is not None else None
        if answer is None:
            await self.chat.add_notice(NOTHING_TO_COPY, "warning")
            return
        self.app.copy_to_clipboard(answer)
        await self.chat.add_notice(copied_line(answer))
