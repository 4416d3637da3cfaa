"""One tool call in the chat: a collapsible block with status, arguments and result preview."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Collapsible, Static

from ..format import fmt_tokens, preview_lines, short_args

STATUS_ICONS = {"running": "…", "done": "✓", "denied": "⊘", "conflict": "⊘", "failed": "✗"}


class ToolBlock(Collapsible):
    """Title: ``icon name args · status``; body: full arguments, preview, offload path."""

    status: reactive[str] = reactive("running")

    def __init__(self, call_id: str, name: str, arguments: str) -> None:
        self.call_id = call_id
        self.tool_name = name
        self.arguments = arguments
        self._preview = Static("", markup=False, classes="tool-preview")
        self._offload = Static("", markup=False, classes="tool-offload")
        super().__init__(Static(arguments, markup=False, classes="tool-args"), self._preview,
                         self._offload, title=self._title_for("running"), collapsed=True,
                         classes="tool-block status-running")

    def _title_for(self, status: str) -> str:
        return f"{STATUS_ICONS.get(status, '?')} {self.tool_name} {short_args(self.arguments)} · {status}"

    def watch_status(self, old: str, new: str) -> None:
        self.remove_class(f"status-{old}")
        self.add_class(f"status-{new}")
        self.title = self._title_for(new)

    def finish(self, status: str, preview: str, chars: int = 0,
               offload_path: str | None = None) -> None:
        """Show the outcome; the block stays folded unless the tool failed, was denied or left a
        memory conflict for the person."""
        self.status = status
        self._preview.update(preview_lines(preview))
        extra = f" · {fmt_tokens(chars)} chars" if chars else ""
        if offload_path:
            self._offload.update(
                f"full output saved to {offload_path} (read it back with read_file)")
            extra += " · offloaded"
        self.title = self._title_for(status) + extra
        if status in ("failed", "denied", "conflict"):
            self.collapsed = False
