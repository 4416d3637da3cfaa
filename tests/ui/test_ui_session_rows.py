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


def _cli_sessions(settings, project_dir) -> list[str]:
    """What `paicli-tui sessions --json` lists, run as a person would (a new process)."""
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("PAICLI_")}
    env["PAICLI_HOME"] = str(settings.home.home)
    done = subprocess.run([sys.executable, "-m", "paicli_tui", "sessions", "--json",
                           "--project", str(project_dir)], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return [s["session"] for s in json.loads(done.stdout)["sessions"]]


async def test_real_launches_leave_a_session_only_once_the_person_spoke(settings, project_dir):
    """Launch the app on the real core and quit without typing: no session file, the CLI
    lists nothing. Launch, say one thing, quit: one session, listed, and `--resume` of it
    opens with "Resumed session … · 1 message from you"."""
    from pilot_helpers import wait_until
    from test_ui_core_session import ScriptedClient, make_app, send

    from paicli_tui.app import PaicliApp
    from paicli_tui.ui.widgets.notice import ChatNotice

    for _ in range(2):  # two idle launches
        app = make_app(settings, project_dir, ScriptedClient([]))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: getattr(pilot.app.screen, "session", None) is not None)
            await pilot.press("ctrl+q")
    raw = settings.home.history_raw_dir
    assert not raw.exists() or list(raw.glob("*.jsonl")) == []
    assert _cli_sessions(settings, project_dir) == []

    app = make_app(settings, project_dir, ScriptedClient([(["Hello."], [])]))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hello there")
        await app.workers.wait_for_complete()
        session_id = app.screen.session.session_id
        await pilot.press("ctrl+q")
    assert _cli_sessions(settings, project_dir) == [session_id]

    resumed = PaicliApp(settings, project_dir, resume=session_id,
                        backend=make_app(settings, project_dir, ScriptedClient([])).backend)
    async with resumed.run_test(size=(100, 30)) as pilot:
        def notices() -> list[str]:
            return [str(n.source) for n in resumed.screen.query(ChatNotice)]

        await wait_until(pilot, lambda: any("Resumed session" in n for n in notices()))
        assert f"Resumed session {session_id} · 1 message from you." in notices()
    assert _cli_sessions(settings, project_dir) == [session_id]


def test_a_session_row_says_when_in_local_time(settings, project_dir, monkeypatch) -> None:
    """Found in tmux: three sessions of one morning each read `2026-12-07 · …`, told apart
    only by their ids. The row says the hour too, in the person's own time zone (the
    ledger keeps UTC: 03:02 UTC is 11:02 in Beijing)."""
    import os
    import time

    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    try:
        used = SessionLedger.create(settings.home, project_dir, "Move config loading to TOML")
        used.append(Message.user("Move config loading to TOML"))
        used.close()
        stamp = 1_796_612_520  # 2026-12-07 03:02 UTC
        os.utime(settings.home.session_ledger(used.session_id), (stamp, stamp))
        [row] = CoreBackend(settings, project_dir).sessions()
        assert row.updated == "2026-12-07 11:02"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
