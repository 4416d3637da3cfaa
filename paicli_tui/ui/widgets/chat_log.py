"""The scrolling conversation. Anchored to the bottom while streaming, until the person
scrolls up; scrolling back to the bottom re-anchors it (Textual's anchor())."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.containers import VerticalScroll
from textual.widget import Widget

from .chat_parking import ChatParking
from .setup_notice import SetupNotice, WelcomeLine
from .user_message import UserMessage

if TYPE_CHECKING:
    from ...core.contracts.events import SubAgentStarted
    from ...core.messages import Message
    from .assistant_block import AssistantBlock
    from .compaction_notice import CompactionNotice
    from .subagent_block import SubAgentBlock
    from .tool_block import ToolBlock

# The reply widgets import Markdown and friends: loaded with the first reply, not at start-up.

LIVE_BLOCKS = 80
"""At most this many blocks stay live widgets (to open, to update) when a message is sent;
beyond it the oldest are folded into the compact view (:mod:`.chat_archive`), FOLD_BATCH at
a time, so adding a message costs the same after hours of chat as in the first minutes."""
FOLD_BATCH = 30


class ChatLog(VerticalScroll):
    def __init__(self, *, id: str | None = None, live_blocks: int | None = LIVE_BLOCKS,
                 fold_batch: int = FOLD_BATCH) -> None:
        """``live_blocks``: None keeps every block live (the benchmark's "before")."""
        super().__init__(id=id, classes="chat-log")
        self.live_blocks = live_blocks
        self.fold_batch = fold_batch
        self.folded = 0
        """Blocks folded into the compact view so far."""
        self.archives = 0
        """Compact-view widgets among the children."""
        self.tool_blocks: dict[str, ToolBlock] = {}
        self.subagents: dict[str, SubAgentBlock] = {}
        """Sub-agent blocks by the sub-agent's stream id."""
        self.current: AssistantBlock | None = None
        self._asking: set[str] = set()
        """Calls whose approval dialog is open."""
        self.parking = ChatParking(self)
        self._park_pending = False

    def on_mount(self) -> None:
        self.anchor()

    async def _add(self, widget: Widget) -> Widget:
        following = self.scroll_y >= self.max_scroll_y
        await self.mount(widget)
        if following and self.live_blocks is not None and \
                len(self.children) - self.archives > self.live_blocks + self.fold_batch:
            await self.fold_old()  # a long turn while the view follows the end
        self.park_soon()
        return widget

    async def fold_old(self) -> int:
        """Fold the oldest blocks beyond ``live_blocks`` into the compact view, a batch at a
        time (finished ones, in order; a block still at work stays live in its place);
        returns how many were folded. Runs when the person sends a message (the view goes to
        the end anyway) and while blocks are added with the view following the end (a long
        turn, a resumed session being drawn): never while the person reads further up, so
        their place does not jump."""
        if self.live_blocks is None:
            return 0
        from .chat_archive import ArchivedBlocks, fold, foldable

        done = 0
        while len(self.children) - self.archives > self.live_blocks:
            batch: list[Widget] = []
            for block in self.children:
                if isinstance(block, ArchivedBlocks):
                    continue
                if block is not self.current and foldable(block):
                    batch.append(block)
                    if len(batch) == self.fold_batch:
                        break
                elif batch:  # a block at work stays live, in its place
                    break
            if not batch:
                break
            await self.mount(fold(batch), before=batch[0])
            self.archives += 1
            await self.remove_children(batch)
            for block in batch:
                self._forget(block)
            done += len(batch)
        self.folded += done
        return done

    async def add_restored(self, older: list[Message], no_answer: str) -> None:
        """The older part of a resumed session, straight into the compact view."""
        from .chat_archive import restored_archives, restored_parts

        parts = restored_parts(older, no_answer)
        archives = restored_archives(parts, self.fold_batch)
        if archives:
            await self.mount_all(archives)
            self.archives += len(archives)
            self.folded += len(parts)

    def _forget(self, block: Widget) -> None:
        # folded blocks are the oldest, so nearly always parked: held there, each one (and
        # its widget tree) stayed for the session and was looked at on every scroll
        self.parking.parked.pop(block, None)
        for table in (self.tool_blocks, self.subagents):
            for key in [k for k, v in table.items() if v is block]:
                del table[key]

    # -- parking (chat_parking.py says why) ------------------------------------------------
    def working_blocks(self) -> list[Widget]:
        """Blocks that may still change: the reply being written, running tools and
        sub-agents (theirs or inside a sub-agent)."""
        live: list[Widget] = [] if self.current is None else [self.current]
        live += [b for b in self.tool_blocks.values() if b.status == "running"]
        live += [b for b in self.subagents.values() if b.status == "running"]
        return live

    def park_soon(self) -> None:
        """Park and unpark after the next layout (many changes come at once)."""
        if not self._park_pending:
            self._park_pending = True
            self.set_timer(0.2, self._park_now)

    def _park_now(self) -> None:
        self._park_pending = False
        if self.parking.update(self.working_blocks()):
            self.park_soon()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.parking.unpark_near()
        self.park_soon()

    def on_resize(self, event: events.Resize) -> None:
        self.park_soon()

    def watch_virtual_size(self) -> None:
        # Blocks were laid out (Textual sends no Resize when only the scrolled height
        # changes): their places are known now.
        self.park_soon()

    async def add_user(self, text: str) -> UserMessage:
        """A sent message: the view goes back to the end and follows the reply again, even
        after the person scrolled up to read (as Claude Code and Codex do on send)."""
        self.current = None
        await self.fold_old()
        message = await self._add(UserMessage(text))
        self.scroll_end(animate=False)
        return message  # type: ignore[return-value]

    async def assistant(self) -> AssistantBlock:
        """The assistant block being streamed into (created on first use in a reply)."""
        if self.current is None:
            from .assistant_block import AssistantBlock

            self.current = AssistantBlock()
            await self._add(self.current)
        return self.current

    async def end_assistant(self) -> None:
        if self.current is not None:
            await self.current.finish()
            self.current = None

    async def add_tool(self, call_id: str, name: str, arguments: str) -> ToolBlock:
        from .tool_block import ToolBlock

        await self.end_assistant()
        block = ToolBlock(call_id, name, arguments)
        self.tool_blocks[call_id] = block
        await self._add(block)
        self.tool_shown(block)
        return block

    def find_tool(self, call_id: str) -> ToolBlock | None:
        """The block of a tool call, the main history's or one inside a sub-agent's block;
        a running one first (a sub-agent's model may reuse an id the parent's used)."""
        found = [block for block in (self.tool_blocks.get(call_id),
                                     *(sub.tools.get(call_id) for sub in self.subagents.values()))
                 if block is not None]
        return next((b for b in found if b.status == "running"), found[0] if found else None)

    def approval_asked(self, call_id: str, open_: bool) -> None:
        """A call's approval dialog opened or closed: its block's seconds stop meanwhile.
        The tool asks as soon as it starts, often before its block is mounted: the block
        then starts waiting when it arrives (:meth:`tool_shown`)."""
        if not call_id:
            return
        block = self.find_tool(call_id)
        if open_:
            self._asking.add(call_id)
        else:
            self._asking.discard(call_id)
        if block is not None:
            block.wait_for_approval(open_)

    def tool_shown(self, block: ToolBlock) -> None:
        if block.call_id in self._asking:
            block.wait_for_approval(True)

    async def add_subagent(self, started: SubAgentStarted, caption: str = "",
                           after: Widget | None = None) -> SubAgentBlock:
        """A sub-agent's block: in place of its run_subagent call's tool block (``after``,
        then hidden), else at the end."""
        from .subagent_block import SubAgentBlock

        await self.end_assistant()
        block = SubAgentBlock(started, caption)
        self.subagents[started.subagent] = block
        if after is not None and after.parent is self:
            await self.mount(block, after=after)
            after.display = False
        else:
            await self._add(block)
        return block

    async def add_compaction(self, tier: str, before: int | None, after: int | None,
                             detail: str = "",
                             summary: str | None = None, failed: bool = False
                             ) -> CompactionNotice:
        from .compaction_notice import CompactionNotice

        await self.end_assistant()
        return await self._add(  # type: ignore[return-value]
            CompactionNotice(tier, before, after, detail, summary, failed))

    async def add_notice(self, text: str, kind: str = "info") -> Widget:
        """Program text; ``setup`` (the how-to-connect guide) and ``welcome`` (the first
        line of a new session) are shown verbatim."""
        from .notice import ChatNotice

        await self.end_assistant()
        if kind == "setup":
            guide = await self._add(SetupNotice(text))
            self.call_after_refresh(self._guide_from_its_top, guide)
            return guide
        if kind == "welcome":
            return await self._add(WelcomeLine(text))
        return await self._add(ChatNotice(text, kind))

    def _guide_from_its_top(self, guide: Widget, tries: int = 20) -> None:
        """A guide taller than the chat (on 80×24) is read from its first line, not its
        last; sending a message follows the end again. Not laid out yet (a loaded machine:
        the refresh came before its layout), it is looked at again after the next refresh
        (a few times): measured at no height, it stayed at its end."""
        if not guide.is_attached:
            return
        if guide.outer_size.height == 0 or self.scrollable_content_region.height == 0:
            if tries:
                self.call_after_refresh(self._guide_from_its_top, guide, tries - 1)
            return
        if guide.outer_size.height > self.scrollable_content_region.height:
            self.scroll_to_widget(guide, animate=False, top=True)

    async def reset(self) -> None:
        self.parking.forget()
        self.current = None
        self.tool_blocks.clear()
        self.subagents.clear()
        self.folded = self.archives = 0
        await self.remove_children()
