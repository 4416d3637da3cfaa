"""Seeded scenes of the chat side at small sizes (80×24 and 60×20): waiting for the first
token with a queued message, the slash menu, help, the approval dialog. Shared by the
snapshot tests and scripts/screenshots.py. Clocks are frozen so the pictures are stable."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from textual.pilot import Pilot
from ui_fakes import FakeClient, FakeSession, chat_script
from ui_scenarios import Scene, _app, _backend, settle, type_and_send

from paicli_tui.config import Settings
from paicli_tui.core.agent.diff_view import DiffView, assemble, file_diff
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.contracts.asks import ApprovalRequest
from paicli_tui.core.mcp import McpManager
from paicli_tui.core.mcp.config import McpServerConfig
from paicli_tui.core.mcp.status import ServerStatus
from paicli_tui.ui.backend import IndexStep
from paicli_tui.ui.index_job import IndexJob

SMALL_SIZES = {"80x24": (80, 24), "60x20": (60, 20)}


async def frozen(pilot: Pilot) -> None:
    """Let everything land; settle() freezes the clocks of the status line and tool blocks."""
    await settle(pilot, 2)


def turn_diff_view() -> DiffView:
    """Three files of one turn: an edit, a new file, a binary."""
    files, pieces = [], []
    for label, before, after in [
            ("src/Config.java", b"class Config {\n    int port = 80;\n}\n",
             b"class Config {\n    int port = 8080;\n    // the port the proxy listens on, "
             b"read once at start and never again\n}\n"),
            ("notes.md", None, b"# Notes\nport moved\n"), ("logo.png", None, b"\x89PNG\0")]:
        row, text = file_diff(label, before, after)
        files.append(row)
        pieces.append(text)
    return assemble("What the agent changed in turn 3", files, pieces, lambda text: text)


def chat_scenes(settings: Settings, project: Path) -> list[Scene]:
    out: list[Scene] = []

    hold = asyncio.Event()
    waiting = _app(_backend(settings, project, client=FakeClient(), session=FakeSession(
        script=[ev.RequestStarted(1, 9_000, 128_000, 57_000, 95_000), hold])))

    async def waiting_before(pilot: Pilot) -> None:
        await settle(pilot)
        await type_and_send(pilot, "why does the index build stop at 123 files?")
        await settle(pilot)
        await type_and_send(pilot, "and show me where the embedder loads")
        await frozen(pilot)
    out.append(Scene(
        "chat_waiting", waiting, waiting_before,
        "Waiting for the first token: the welcome line (folder, model, 3 memories, code "
        "index ready, key hints), the question, a status line '⠹ Waiting for "
        "fake:scripted-1 · 3 s · Esc to interrupt', one queued message with how to edit it, "
        "the input and the two-line gauge, nothing cut at the right."))

    menu = _app(_backend(settings, project, client=FakeClient(), session=FakeSession()))

    async def menu_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("slash", "m")
        await settle(pilot)
        await pilot.press("tab", "tab")
        await frozen(pilot)
    out.append(Scene(
        "chat_slash_menu", menu, menu_before,
        "The slash menu after '/m' and Tab twice: /memory, /mcp and /model listed vertically "
        "with their arguments and descriptions, /mcp highlighted (❯, reversed) and in the "
        "input, the hint line 'Tab / ↑↓ choose · Enter runs · Esc closes'."))

    done = _app(_backend(settings, project, client=FakeClient(),
                         session=FakeSession(script=chat_script())))

    async def done_before(pilot: Pilot) -> None:
        await settle(pilot)
        await type_and_send(pilot, "find the config loader")
        await pilot.app.workers.wait_for_complete()
        await frozen(pilot)
    out.append(Scene(
        "chat_done", done, done_before,
        "A finished turn: the answer's last lines, the gauge's two lines whole — "
        "'44k/128k 34.4% ok' on the first, 'clear at 57k · compact at 95k · last prompt "
        "44k (41k cached)' on the second (shortened only at 60 columns)."))

    help_app = _app(_backend(settings, project, client=FakeClient(), session=FakeSession()))

    async def help_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("f1")
        await frozen(pilot)
    out.append(Scene(
        "help_small", help_app, help_before,
        "Help centred over the chat: title with scroll keys, the slash-command table first "
        "(no separator rows, descriptions wrapped), a scrollbar. A long usage wraps between "
        "words or after a '|' with its next lines indented two cells (`/memory [list|` / "
        "`  search|delete|…`), never inside a word.",
        screen="HelpScreen"))

    edits = _app(_backend(settings, project, client=FakeClient(), session=FakeSession(script=[
        ev.ToolCallStarted("c1", "edit_file", '{"path": "CHANGELOG.md"}'),
        ev.ToolCallFinished("c1", "edit_file", "done", "edit CHANGELOG.md (+2 -0)",
                            permission="accept-edits"),
        ev.TextDelta("Added the 0.4.1 entry to CHANGELOG.md."),
        ev.AssistantMessage(content="Added the 0.4.1 entry to CHANGELOG.md."),
        ev.TurnFinished(session="s1", reason="done")])))

    async def edits_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("shift+tab")
        await type_and_send(pilot, "add a changelog entry for 0.4.1")
        await pilot.app.workers.wait_for_complete()
        await frozen(pilot)
    out.append(Scene(
        "accept_edits_small", edits, edits_before,
        "The accept-edits mode on (Shift+Tab): under the input, in the warning colour, "
        "'» accept edits on · commands still ask · Shift+Tab: off' (the same at 60 "
        "columns, whole); the edit's block above reads '✓ edit_file … · done · "
        "auto-approved (accept edits)' and the answer follows; the gauge below is whole."))

    turn = FakeSession()
    turn.turn_diff = turn_diff_view()
    diff_app = _app(_backend(settings, project, client=FakeClient(), session=turn))

    async def diff_before(pilot: Pilot) -> None:
        await settle(pilot)
        await type_and_send(pilot, "/diff turn")
        await frozen(pilot)
    out.append(Scene(
        "diff_small", diff_app, diff_before,
        "/diff turn over the chat: the title 'What the agent changed in turn 3 · 3 files · "
        "+4 −1', the keys line, then one row a file: '+2 −1  "
        "src/Config.java', '+2 −0  notes.md  (new)' and 'logo.png  (new, binary)' without "
        "counts, then the diff coloured, long lines wrapped, a scrollbar.",
        screen="DiffModal"))

    async def ask(session: FakeSession) -> ev.AgentEvent:
        decision = await session.approve(ApprovalRequest(
            "edit_file", "write src/Config.java",
            "--- a/src/Config.java\n+++ b/src/Config.java\n@@ -1,9 +1,9 @@\n"
            + "".join(f" line {i}\n" for i in range(1, 5))
            + "-    int port = 80;\n+    int port = 8080;\n"
            + "".join(f" line {i}\n" for i in range(6, 14))))
        return ev.ToolCallFinished("c9", "edit_file", "done", f"decision {decision}")

    approval = _app(_backend(settings, project, client=FakeClient(), session=FakeSession(
        script=[ev.ToolCallStarted("c9", "edit_file", '{"path": "src/Config.java"}'), ask])))

    async def approval_before(pilot: Pilot) -> None:
        await settle(pilot)
        await type_and_send(pilot, "use port 8080")
        await settle(pilot)
        while not getattr(pilot.app.screen, "armed", True):  # a dialog waiting for quiet keys
            await pilot.pause(0.05)
        await settle(pilot)
        await frozen(pilot)
    out.append(Scene(
        "approval_small", approval, approval_before,
        "The approval dialog: 'Allow edit_file?', the summary, the diff (scrollable, "
        "shortened to fit) and all three buttons visible at the bottom — Approve once (y), "
        "Always (a), Deny (n) focused.", screen="ApprovalModal"))

    mcp = FakeSession(client=FakeClient())
    mcp.mcp = mcp_servers()
    servers = _app(_backend(settings, project, client=FakeClient(), session=mcp))
    out.append(Scene(
        "mcp_servers_small", servers, sending("/mcp"),
        "The /mcp view over its report: 'MCP servers', three rows (files running 2 tools, "
        "github failed highlighted, docs disabled), under them github's last error (its "
        "process ended, its stderr's masked line) and its log path, then '↑↓ choose · r "
        "restarts · Esc closes', nothing cut at the right.", screen="McpServersScreen"))
    indexing = _app(_backend(settings, project, client=FakeClient(), session=FakeSession()))

    async def indexing_before(pilot: Pilot) -> None:
        await settle(pilot)
        job = pilot.app.index_job
        job.stepped(IndexJob.Stepped(IndexStep(12, 23, "", "embed", "64/120 chunks")))
        await frozen(pilot)
    out.append(Scene(
        "chat_indexing", indexing, indexing_before,
        "An index build half done (/index): the footer keeps every key on one line, f1 Help "
        "to ^q Quit, with '⟳ index 52%' on the right; at 80 columns '^p palette' beside it, "
        "at 60 the progress takes its place."))
    return out


def sending(text: str):
    """A scene's steps: ``text`` typed and sent once the chat has settled, then frozen."""
    async def before(pilot: Pilot) -> None:
        await settle(pilot)
        await type_and_send(pilot, text)
        await frozen(pilot)
    return before


def mcp_servers() -> McpManager:
    """Three servers as /mcp shows them: one running, one that stopped, one disabled."""
    def status(name: str, state: str, **more: object) -> ServerStatus:
        return ServerStatus(McpServerConfig(name=name, command=name), state=state, **more)

    return McpManager([
        status("files", "running", tools=[SimpleNamespace(name="mcp__files__read"),
                                          SimpleNamespace(name="mcp__files__list")]),
        status("github", "failed", log_path=Path("/home/dev/.paicli/logs/mcp-github.log"),
               error="its process ended (its stderr ended: fatal: bad credentials ****)"),
        status("docs", "disabled")])
