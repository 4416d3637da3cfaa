"""The session picker lists only sessions with something the person said: a launch that was
opened and closed (only the system prompt recorded) adds no `(untitled) · 1 messages` row."""

from __future__ import annotations

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.messages import Message
from paicli_tui.ui.core_backend import CoreBackend


async def test_a_launch_without_a_message_is_not_in_the_picker(settings, project_dir) -> None:
    idle = await AgentSession.start(settings, project_dir, client=None)
    await idle.aclose()
    used = SessionLedger.create(settings.home, project_dir, "Move config loading to TOML")
    used.append(Message.system("You are paicli-tui."))
    used.append(Message.user("Move config loading to TOML"))
    used.close()
    rows = CoreBackend(settings, project_dir).sessions()
    assert [r.title for r in rows] == ["Move config loading to TOML"]
