"""`/mcp restart` in the chat, and a server that fails while the person is not calling it.

A failed MCP server could only be brought back by quitting; one whose process ended went
unsaid until the model's next call to it failed. Now `/mcp restart NAME` says at once that it
restarts, `/mcp` shows it as restarting meanwhile, and its outcome comes as a notice, as a
server stopping by itself does, once."""

from __future__ import annotations

import asyncio
import contextlib

from pilot_helpers import wait_for_screen, wait_until
from ui_fakes import FakeBackend, FakeClient, FakeSession

from paicli_tui.app import PaicliApp
from paicli_tui.core.mcp import McpManager
from paicli_tui.core.mcp.config import McpServerConfig
from paicli_tui.core.mcp.status import ServerStatus
from paicli_tui.ui.widgets.chat_log import ChatLog
from paicli_tui.ui.widgets.notice import ChatNotice
from paicli_tui.ui.widgets.prompt_input import PromptInput


class RestartingSession(FakeSession):
    """A session whose one MCP server restarts when ``release`` is set."""

    def __init__(self) -> None:
        super().__init__(client=FakeClient())
        self.status = ServerStatus(McpServerConfig(name="demo", command="demo-server"),
                                   state="failed", error="its process ended")
        self.mcp = McpManager([self.status])
        self.release = asyncio.Event()
        self.asked: list[str] = []

    async def restart_mcp(self, name: str = "") -> str:
        self.asked.append(name)
        self.status.state, self.status.error = "restarting", None
        await self.release.wait()
        self.status.state = "running"
        self.mcp._changed(self.status, "restart")
        return ""

    def watch_mcp(self, listener) -> None:
        self.mcp.on_change = listener

    def take_mcp_changes(self):
        return self.mcp.take_changes()


def notices(app) -> list[str]:
    """The chat's notices, also under the /mcp view."""
    chat = next(s for s in reversed(app.screen_stack) if s.query(ChatLog))
    return [n.source for n in chat.query_one(ChatLog).query(ChatNotice)]


async def notices_after(pilot, app, before: int, count: int) -> list[str]:
    """The notices since the first ``before``, once there are ``count`` of them (a busy
    machine takes its time; the wait is bounded, nothing is timed)."""
    for _ in range(300):
        if len(notices(app)) >= before + count:
            break
        await pilot.pause(0.1)
    return notices(app)[before:]


@contextlib.asynccontextmanager
async def chat_with(settings, project_dir, session: RestartingSession):
    """The app on ``session``, opened: its pilot, and the app."""
    backend = FakeBackend(settings, project_dir, session=session, client=session.client)
    app = PaicliApp(settings, project_dir, backend=backend)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: session.mcp.on_change is not None)  # the chat listens
        await pilot.pause(0.1)  # once it has shown the session's start
        yield pilot, app


async def send(pilot, app, text: str) -> None:
    app.screen.query_one(PromptInput).load_text(text)
    await pilot.press("enter")
    await pilot.pause(0.2)


async def test_restart_says_so_shows_restarting_then_the_outcome(settings, project_dir):
    session = RestartingSession()
    async with chat_with(settings, project_dir, session) as (pilot, app):
        before = len(notices(app))
        await send(pilot, app, "/mcp restart demo")
        await send(pilot, app, "/mcp")
        said = await notices_after(pilot, app, before, 2)
        assert said[0] == "Restarting MCP server `demo`… (`/mcp` shows it as restarting)"
        assert "`demo` (config.toml): **restarting**" in said[1]
        session.release.set()
        await app.workers.wait_for_complete()
        assert (await notices_after(pilot, app, before, 3))[2:] == [
            "MCP server `demo` restarted: 0 tools, offered from the next request."]
        assert session.asked == ["demo"]


async def test_a_server_stopping_by_itself_is_said_once(settings, project_dir):
    session = RestartingSession()
    session.status.state = "running"
    async with chat_with(settings, project_dir, session) as (pilot, app):
        before = len(notices(app))
        session.status.state, session.status.error = "failed", "its process ended"
        session.mcp._changed(session.status, "exited")
        await notices_after(pilot, app, before, 1)
        await send(pilot, app, "/mcp restart")  # every failed one
        said = await notices_after(pilot, app, before, 2)
        assert said[0] == ("MCP server `demo` stopped: its process ended; calls to its tools "
                           "fail. `/mcp restart demo` starts it again.")
        assert said[1] == "Restarting MCP server `demo`… (`/mcp` shows it as restarting)"
        assert len([s for s in said if "stopped" in s]) == 1
        session.release.set()
        await app.workers.wait_for_complete()


async def test_restart_of_an_unknown_server_names_the_known_ones(settings, project_dir):
    session = RestartingSession()
    async with chat_with(settings, project_dir, session) as (pilot, app):
        await send(pilot, app, "/mcp restart files")
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: notices(app)[-1:] == [
            "No MCP server is named files (there are `demo`)."], 30, lambda: notices(app))
        assert session.asked == []


async def test_r_in_the_mcp_view_restarts_the_highlighted_server(settings, project_dir):
    """`/mcp` writes its report, then opens the view on the first failed server: `r` there
    restarts it as `/mcp restart NAME` does; on a disabled one `r` does nothing; Esc closes
    without a restart."""
    from paicli_tui.ui.modals.mcp_servers import McpServersScreen

    session = RestartingSession()
    session.mcp.statuses.insert(0, ServerStatus(McpServerConfig(name="off", command="x"),
                                                state="disabled"))
    async def view_open(pilot, app) -> bool:
        await wait_for_screen(pilot, McpServersScreen)
        await pilot.pause(0.1)
        return isinstance(app.screen, McpServersScreen)

    async with chat_with(settings, project_dir, session) as (pilot, app):
        await send(pilot, app, "/mcp")
        assert await view_open(pilot, app)
        assert "`demo` (config.toml): **failed**" in notices(app)[-1], "the report stays"
        await pilot.press("up", "r")  # the disabled one: nothing
        assert isinstance(app.screen, McpServersScreen) and session.asked == []
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, McpServersScreen))
        assert session.asked == []
        before = len(notices(app))
        await send(pilot, app, "/mcp")
        assert await view_open(pilot, app)
        await pilot.press("r")
        said = await notices_after(pilot, app, before, 2)
        assert said[-1] == "Restarting MCP server `demo`… (`/mcp` shows it as restarting)"
        session.release.set()
        await app.workers.wait_for_complete()
        assert session.asked == ["demo"]
