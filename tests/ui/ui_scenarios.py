"""Seeded scenes of every screen and dialog, shared by the snapshot tests and
scripts/screenshots.py (one source, so the screenshots are what the tests check)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pilot_helpers import session_started, wait_until
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Label
from ui_fakes import (
    FakeBackend,
    FakeClient,
    FakeCode,
    FakeMemory,
    FakeSession,
    chat_script,
    seeded_hits,
    seeded_memories,
)

from paicli_tui.app import PaicliApp
from paicli_tui.config import Settings
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.contracts.asks import ApprovalRequest
from paicli_tui.core.messages import InternalKind, Message, ToolCall
from paicli_tui.resources import style_paths
from paicli_tui.ui.backend import SessionRow
from paicli_tui.ui.widgets.context_gauge import ContextGauge
from paicli_tui.ui.widgets.prompt_input import PromptInput

SIZE = (100, 30)

Before = Callable[[Pilot], Awaitable[None]]


@dataclass
class Scene:
    name: str
    app: App
    before: Before
    about: str
    """What you should see."""
    screen: str = "ChatScreen"
    """Class name of the screen on top once ``before`` ran (checked by the tests)."""


async def settle(pilot: Pilot, rounds: int = 3) -> None:
    """Let workers and redraws finish; stop cursor blinking so a snapshot is stable."""
    for _ in range(rounds):
        await pilot.pause(0.05)
    await pilot.wait_for_scheduled_animations()
    await _anchored_logs_at_their_end(pilot)
    for screen in pilot.app.screen_stack:
        for widget in screen.query("Input, TextArea"):
            widget.cursor_blink = False  # type: ignore[attr-defined]
        freeze_clocks(screen)
    await pilot.pause()


async def _anchored_logs_at_their_end(pilot: Pilot, seconds: float = 5.0) -> None:
    """An anchored chat log scrolls to its end on a later refresh; on a loaded machine the
    picture could be taken before it did (CI saw the 50x16 plan review's background scrollbar
    one fraction of a row off). Not for a log the scene scrolled up on purpose, nor for one
    shorter than its view (its scroll_y can sit below 0 there, which is its end)."""
    from paicli_tui.ui.widgets.chat_log import ChatLog

    def behind() -> list[ChatLog]:
        return [log for screen in pilot.app.screen_stack for log in screen.query(ChatLog)
                if log.is_anchored and not log._anchor_released
                and 0 < log.max_scroll_y and log.scroll_y < log.max_scroll_y]

    for _ in range(int(seconds / 0.05)):
        if not behind():
            return
        await pilot.pause(0.05)


def freeze_clocks(screen: Screen, waited: float = 3.2, tool_running: float = 4.0) -> None:
    """The turn's status line reads ``waited`` seconds and running tool blocks
    ``tool_running``; finished blocks show no time (they took milliseconds in a scene)."""
    from paicli_tui.ui.widgets.tool_block import ToolBlock
    from paicli_tui.ui.widgets.turn_status import TurnStatus

    for status in screen.query(TurnStatus):
        started = status.started_at
        status.clock = lambda started=started: started + waited  # type: ignore[misc]
        status.tick()
    for block in screen.query(ToolBlock):
        if block.seconds is not None:
            block.seconds = 0.0
        started = block.started_at
        block.clock = lambda started=started: started + tool_running  # type: ignore[misc]
        block.title = block.title_text()


async def type_and_send(pilot: Pilot, text: str) -> None:
    # a message or command sent before the session has started is answered "The session
    # is still starting…" instead: the scene's settle() is too short on a busy machine
    await session_started(pilot)
    prompt = pilot.app.screen.query_one(PromptInput)
    prompt.load_text(text)
    await pilot.press("enter")


async def reach(pilot: Pilot, scene: Scene, seconds: float = 30.0) -> None:
    """Run the scene's steps, wait until its screen is on top, then let data load."""
    if isinstance(pilot.app, PaicliApp):
        # F4 or a message before the session has started is answered "still starting":
        # the steps' first settle() is too short for that on a busy machine
        await session_started(pilot)
    await scene.before(pilot)
    for _ in range(int(seconds / 0.05)):
        if type(pilot.app.screen).__name__ == scene.screen:
            break
        await pilot.pause(0.05)
    while not getattr(pilot.app.screen, "armed", True):  # a dialog waiting for quiet keys
        await pilot.pause(0.05)
    await settle(pilot, 4)


def _backend(settings: Settings, project: Path, **kw: object) -> FakeBackend:
    kw.setdefault("memory_", FakeMemory(seeded_memories()))
    kw.setdefault("code_", FakeCode(seeded_hits()))
    return FakeBackend(settings, project, **kw)  # type: ignore[arg-type]


def _app(backend: FakeBackend, *, theme: str = "dark", inbox_seen: bool = True) -> PaicliApp:
    settings = backend.settings.with_overrides(theme=theme)
    backend.settings = settings
    app = PaicliApp(settings, backend.project_root, backend=backend)
    if inbox_seen:
        # looked after the seeded automatic memory was written: it awaits review, not new
        app.memory_inbox.seen.mark(datetime(2026, 11, 20, tzinfo=UTC))
    return app


def seeded_history() -> list[Message]:
    call = ToolCall("c1", "read_file", '{"path": "src/Config.java"}')
    return [
        Message.system("You are paicli-tui, a coding agent. " * 40),
        Message.user("Summary of earlier work:\n## Goal\nMove config loading to TOML.",
                     internal=InternalKind.SUMMARY),
        Message.assistant("Understood."),
        Message.user("Where is the config parsed?"),
        Message.assistant("Let me read it.", (call,)),
        Message.tool("c1", "read_file", "public class Config { }\n" * 60),
        Message.tool("c0", "grep_code", "[cleared: grep_code result, ~4,000 chars]",
                     cleared=True),
        Message.assistant("It is parsed in `Config.load()`."),
    ]


def scenes(settings: Settings, project: Path) -> list[Scene]:
    """Every screen and dialog, each with its seeded data and the keys that reach it."""
    out: list[Scene] = []

    hold = asyncio.Event()
    script = chat_script()[:9] + [
        ev.RequestStarted(2, 44_000, 128_000, 57_000, 95_000),
        ev.TextDelta("The loader is `load_settings` in `paicli_tui/config.py`. It reads\n\n"
                     "1. the defaults\n2. `config.toml`\n"),
        hold,
    ]
    chat = _app(_backend(settings, project, session=FakeSession(script=script),
                         client=FakeClient()))

    async def chat_before(pilot: Pilot) -> None:
        await settle(pilot)
        await type_and_send(pilot, "find the config loader")
        # the script has streamed up to its hold: the partial answer's last line is shown
        await wait_until(pilot, lambda: "config.toml" in (
            pilot.app.screen.query("AssistantBlock").last().text
            if pilot.app.screen.query("AssistantBlock") else ""))
        await settle(pilot, 6)
    out.append(Scene("chat_midstream", chat, chat_before,
                     "The chat mid-stream: the question, folded reasoning, two finished tool "
                     "blocks (the second offloaded), a partial Markdown answer; the gauge at "
                     "44k of 128k in the ok zone with both markers."))

    nomodel = _app(_backend(settings, project, session=FakeSession(), client=None))
    out.append(Scene("no_model", nomodel, settle,
                     "No model configured: the chat shows how to connect one (keys, config "
                     "file, Ollama); the input and the gauge are there."))

    out.append(Scene("gauge_zones", GaugeZones(), settle,
                     "Four gauges: ok (green), near clearing (yellow), clearing (bold "
                     "yellow), compacts next (red); markers at 57k and 95k.", screen="Screen"))

    memory = _app(_backend(settings, project, session=FakeSession(), client=FakeClient()))

    async def memory_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
    out.append(Scene("memory_browser", memory, memory_before,
                     "The memory browser: three memories (one stale with ⚠, one global, one "
                     "Chinese auto-extracted awaiting review with ?), filter box, scope "
                     "selector, '1 awaiting review (y accepts, n rejects)', key hints.", screen="MemoryScreen"))

    conflict = _app(_backend(settings, project, session=FakeSession(), client=FakeClient()))

    async def conflict_before(pilot: Pilot) -> None:
        await settle(pilot)
        await type_and_send(pilot, "/save The project uses Java 21 and Gradle 9.")
        await settle(pilot)
    out.append(Scene("conflict_dialog", conflict, conflict_before,
                     "The conflict dialog: the new fact (Java 21) beside the existing one "
                     "(Java 17), with Replace / Keep both / Cancel.", screen="ConflictModal"))

    code = _app(_backend(settings, project, session=FakeSession(), client=FakeClient()))

    async def code_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press(*"load config", "enter")
        await wait_until(pilot, lambda: len(pilot.app.screen.panel.hits) == 2)
        await settle(pilot)
    out.append(Scene("code_search", code, code_before,
                     "Code search: two results (Java method and Python function) with "
                     "path:line, name, score; the first previewed with syntax colours; the "
                     "index status line.", screen="CodeSearchScreen"))

    inspector_session = FakeSession(history=seeded_history())
    inspector_session.estimate_value = 61_500
    inspector = _app(_backend(
        settings, project, session=inspector_session, client=FakeClient(),
        history_events=[
            {"ts": "2026-11-29T10:02:11", "tier": "clearing", "tokens_before": 61_000,
             "tokens_after": 44_000, "detail": "3 tool results cleared"},
            {"ts": "2026-11-29T10:40:52", "tier": "summary", "tokens_before": 96_100,
             "tokens_after": 12_300, "detail": "kept 3 user turns"},
        ]))

    async def inspector_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("f4")
        await settle(pilot)
        pilot.app.clear_notifications()  # the chat's near-clearing toast: the inspector itself
        await settle(pilot)
    out.append(Scene("context_inspector", inspector, inspector_before,
                     "The context inspector: tokens by category (system prompt, conversation, "
                     "live and cleared tool results, summary), both thresholds with what is "
                     "left, and two compaction events from the ledger.", screen="ContextInspector"))

    picker = _app(_backend(settings, project, session=FakeSession(), client=FakeClient(),
                           sessions_=[
                               SessionRow("a1b2c3", "Move config loading to TOML",
                                          "2026-11-29", 84, str(project)),
                               SessionRow("d4e5f6", "修复索引增量更新", "2026-11-28", 31,
                                          str(project)),
                               SessionRow("0719aa", "Explain the compaction tiers",
                                          "2026-11-20", 12, str(project)),
                           ]))

    async def picker_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("f5")
        await settle(pilot)
    out.append(Scene("session_picker", picker, picker_before,
                     "The session picker: a filter box and three sessions, newest first.", screen="SessionPicker"))

    async def ask(session: FakeSession) -> ev.AgentEvent:
        decision = await session.approve(ApprovalRequest(
            "edit_file", "write src/Config.java",
            "--- a/src/Config.java\n+++ b/src/Config.java\n@@ -1,3 +1,3 @@\n"
            " public class Config {\n-    int port = 80;\n+    int port = 8080;\n }\n"))
        return ev.ToolCallFinished("c9", "edit_file", "done", f"decision {decision}")

    approval = _app(_backend(settings, project, client=FakeClient(), session=FakeSession(
        script=[ev.ToolCallStarted("c9", "edit_file", '{"path": "src/Config.java"}'), ask])))

    async def approval_before(pilot: Pilot) -> None:
        await settle(pilot)
        await type_and_send(pilot, "use port 8080")
        await settle(pilot)
    out.append(Scene("approval_dialog", approval, approval_before,
                     "The approval dialog over the chat: the file write with its diff, "
                     "Approve once / Always / Deny (Deny focused).", screen="ApprovalModal"))

    help_app = _app(_backend(settings, project, session=FakeSession(), client=FakeClient()))

    async def help_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
    out.append(Scene("help", help_app, help_before,
                     "The help screen: the keys table and every slash command.", screen="HelpScreen"))

    model = _app(_backend(settings, project, session=FakeSession(), client=FakeClient()))

    async def model_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("f8")
        await settle(pilot)
    out.append(Scene("model_picker", model, model_before,
                     "The model picker: providers with default model, window and whether a "
                     "key is set.", screen="ModelPicker"))

    light = _app(_backend(settings, project, session=FakeSession(script=chat_script()),
                          client=FakeClient()), theme="light")

    async def light_before(pilot: Pilot) -> None:
        await settle(pilot)
        await type_and_send(pilot, "find the config loader")
        await pilot.app.workers.wait_for_complete()
        await settle(pilot, 6)
    out.append(Scene("chat_light", light, light_before,
                     "A finished turn in the light theme: answer with a list, tool blocks, "
                     "the compaction notice, the gauge with two points in the sparkline."))
    return out


class GaugeZones(App):
    """Four gauges side by side in one small app, one per zone."""

    CSS_PATH = [str(p) for p in style_paths()]

    def compose(self) -> ComposeResult:
        with Vertical():
            for label in ("ok", "near clearing", "clearing", "compacts next"):
                yield Label(label)
                yield ContextGauge()

    def on_mount(self) -> None:
        for gauge, tokens in zip(self.query(ContextGauge), (20_000, 53_000, 70_000, 99_000),
                                 strict=True):
            gauge.warned = True
            gauge.show(tokens=tokens, window=128_000, clearing_trigger=57_000,
                       compaction_trigger=95_000, model_label="deepseek:deepseek-chat")
            gauge.record_usage(tokens - 500, tokens // 2)


def assert_scene_snapshot(scene: Scene, size: tuple[int, int], snap_compare) -> None:
    """The scene at ``size`` matches its snapshot, and the screen it is about was on top when
    the picture was taken (else the picture shows the wrong thing)."""
    reached: list[str] = []

    async def before(pilot: Pilot) -> None:
        await reach(pilot, scene)
        reached.append(type(pilot.app.screen).__name__)

    assert snap_compare(scene.app, terminal_size=size, run_before=before), scene.about
    assert reached == [scene.screen], f"{scene.name}: expected {scene.screen} on top"
