"""One sub-agent's own history, opened from the context inspector's sub-agent row: the task it
was given, each tool call with the start of its result under it, any summary of its older
turns, and its answer. Scrolls from the keyboard; Esc closes."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ...core.agent.prompt import person_text
from ...core.agent.subagent_record import SubAgentRecord
from ...core.context.boundary import unwrap_tool_result
from ...core.messages import Message, Role
from ...core.plural import counted
from ...core.tokens import estimate_request
from ..format import fmt_tokens, preview_lines, short_args
from ..subagent_rows import ICONS
from .dialog_keys import CTRL_C

RESULT_LINES = 6
"""Lines of each tool result shown (the whole result is in the sub-agent's stream)."""


def subagent_history_text(record: SubAgentRecord, messages: Sequence[Message]) -> Text:
    """The sub-agent's messages as a person reads them; the system prompt as one line."""
    out = Text()

    def section(title: str, body: str = "") -> None:
        out.append(f"{title}\n", style="bold")
        if body:
            out.append(body.rstrip("\n") + "\n")
        out.append("\n")

    for message in messages:
        if message.role is Role.SYSTEM:
            out.append(f"system prompt · {fmt_tokens(estimate_request([message]))} tokens\n\n",
                       style="dim")
        elif message.role is Role.USER:
            summary = message.internal is not None and message.internal.value == "summary"
            section("summary of its older turns" if summary else "task",
                    message.content if summary else person_text(message))
        elif message.role is Role.ASSISTANT:
            if message.content.strip():
                last = message is messages[-1] and not message.tool_calls
                section("answer" if last else "it said", message.content)
            for call in message.tool_calls:
                out.append(f"→ {call.name} {short_args(call.arguments)}\n", style="cyan")
        elif message.role is Role.TOOL:  # under its call, indented
            shown = preview_lines(unwrap_tool_result(message.content), RESULT_LINES)
            for line in shown.splitlines() or ["(empty)"]:
                out.append(f"  {line}\n", style="dim")
            out.append("\n")
    if not messages:
        out.append("Its stream holds no messages.\n", style="dim")
    return out


class SubAgentHistoryModal(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "Close"), CTRL_C]

    def __init__(self, record: SubAgentRecord, messages: Sequence[Message]) -> None:
        super().__init__(classes="dialog-screen")
        self.record = record
        self.messages = list(messages)

    def compose(self) -> ComposeResult:
        record = self.record
        name = f"task {record.task_id}" if record.task_id else f"sub-agent {record.label}"
        title = (f"{ICONS.get(record.status, '?')} {name} · {record.status} · "
                 f"{counted(len(self.messages), 'message')} · {fmt_tokens(record.history_tokens)} tok")
        with Vertical(classes="dialog help-dialog subagent-history-dialog"):
            yield Static(Text(title), classes="dialog-title")  # wraps at 60 columns
            yield Label("[dim]↑↓ PgUp PgDn scroll · Esc closes[/dim]")
            with VerticalScroll(classes="help-scroll"):
                yield Static(subagent_history_text(record, self.messages),
                             classes="help-text")

    def on_mount(self) -> None:
        self.query_one(".help-scroll", VerticalScroll).focus()

    def action_dismiss(self, result: object = None) -> None:  # type: ignore[override]
        self.dismiss(None)
