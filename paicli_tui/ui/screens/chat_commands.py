"""Slash commands of the chat screen (behaviour §18 plus the panels), as a mixin so the chat
screen stays about rendering. Each command either opens a screen or runs a worker.

A worker does not change widgets: it posts one of the messages below, and the handler (on the
screen's message queue) changes the chat log, the gauge or the title."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.message import Message

from ..memory_decision import save_asking, saved_message, stored_in
from ..slash import BY_NAME, closest_command

if TYPE_CHECKING:
    from ...core.contracts.events import McpServerChanged
    from ..backend import SessionRow
    from .chat import ChatScreen
    from .context_inspector import InspectorResult


class SlashCommandsMixin:
    class Requested(Message):
        """Run a slash command (from a key binding or the command palette)."""

        bubble = False

        def __init__(self, command: str) -> None:
            super().__init__()
            self.command = command

    class Said(Message):
        """A slash command's worker has words for the chat log."""

        bubble = False

        def __init__(self, text: str, kind: str = "info") -> None:
            super().__init__()
            self.text = text
            self.kind = kind

    class InspectorClosed(Message):
        """The context inspector closed: what it compacted or restored, for the chat."""

        bubble = False

        def __init__(self, result: InspectorResult | None) -> None:
            super().__init__()
            self.result = result

    class SessionChanged(Message):
        """A worker changed the session (its model, its history): title and gauge follow."""

        bubble = False

    class McpChanged(Message):
        """An MCP server failed by itself or a restart ended: take the session's changes."""

        bubble = False

    def say(self: ChatScreen, text: str, kind: str = "info") -> None:
        self.post_message(SlashCommandsMixin.Said(text, kind))

    async def on_slash_commands_mixin_requested(self: ChatScreen, message: Requested) -> None:
        from ..slash import parse_slash

        await self.run_slash(*(parse_slash(message.command) or (message.command, "")))

    async def on_slash_commands_mixin_said(self: ChatScreen, message: Said) -> None:
        await self.chat.add_notice(message.text, message.kind)

    def on_slash_commands_mixin_session_changed(self: ChatScreen) -> None:
        self.sub_title = self.title_line()
        if self.gauge.state in ("summary next", "summary postponed"):
            # said for the old model's triggers: at 15% of a larger window it still read
            # "summary next"; the next request says again if a summary is near
            self.gauge.show(state="")
        self.refresh_gauge()

    async def run_slash(self: ChatScreen, name: str, rest: str) -> None:
        """Run one slash command; unknown names get a clear message, nothing is lost."""
        if name not in BY_NAME:
            guess = closest_command(name)
            hint = f"Did you mean `{guess}`? " if guess else ""
            await self.chat.add_notice(f"Unknown command `{name}`. {hint}Press F1 for the "
                                       "list.", "warning")
            return
        handler = getattr(self, "slash_" + name[1:], None)
        if handler is not None:
            await handler(rest)

    # -- panels ---------------------------------------------------------------------------
    async def slash_help(self: ChatScreen, rest: str) -> None:
        from ..modals.help import HelpScreen

        self.app.push_screen(HelpScreen())

    async def slash_memory(self: ChatScreen, rest: str) -> None:
        from .memory import MemoryPanel

        words = rest.split(maxsplit=1)
        action = words[0].lower() if words else "list"
        argument = words[1] if len(words) > 1 else ""
        if action in ("list", "search"):  # search ranks by meaning, as on the command line
            await self.show_panel(MemoryPanel(self.backend, filter_text=argument,
                                              rank=action == "search"))
        elif action in ("delete", "verify", "replace", "clear"):
            await self.show_panel(MemoryPanel(self.backend, command=(action, argument)))
        else:
            await self.chat.add_notice(
                "Usage: `/memory [list|search TEXT|delete ID|verify ID|replace ID TEXT|clear]`",
                "warning")

    async def slash_search(self: ChatScreen, rest: str) -> None:
        from .code_search import CodeSearchPanel

        await self.show_panel(CodeSearchPanel(self.backend, query=rest,
                                              last=self.last_search))

    async def slash_index(self: ChatScreen, rest: str) -> None:
        """Build in the background: the footer shows the progress, a toast and a chat line
        the end."""
        job = self.app.index_job  # type: ignore[attr-defined]
        if job.start(self.backend.code()):
            self.notify("Building the code index; the footer shows its progress.",
                        title="index")
        else:
            self.notify("An index build is already running (see the footer).", title="index")

    async def slash_context(self: ChatScreen, rest: str) -> None:
        from .context_inspector import ContextInspector

        if self.session is None:
            self.notify("The session is still starting…", severity="warning")
            return
        gauge = self.gauge
        usage = (gauge.last_prompt, gauge.cached, list(gauge.per_request))
        self.app.push_screen(ContextInspector(self.backend, self.session, usage),
                             callback=self.after_inspector)

    def after_inspector(self: ChatScreen, result: InspectorResult | None) -> None:
        self.post_message(SlashCommandsMixin.InspectorClosed(result))

    async def on_slash_commands_mixin_inspector_closed(self: ChatScreen,
                                                       message: InspectorClosed) -> None:
        from ..messages import AgentEventPosted

        result = message.result
        if result is not None and result.restored:
            await self.chat.reset()
            await self.chat.add_notice("View restored from before the last compaction.")
            await self.render_history(self.session.history)
        for event in result.compactions if result is not None else ():
            self.post_message(AgentEventPosted(event))
        self.refresh_gauge()

    async def slash_resume(self: ChatScreen, rest: str) -> None:
        if rest:
            self.resume_by_id(rest.split()[0])
            return
        self.pick_session()

    @work(group="picker", exit_on_error=False)
    async def resume_by_id(self: ChatScreen, wanted: str) -> None:
        """`/resume ID`: the session with that id or a unique start of it. A mistyped id
        keeps the conversation (it cleared the chat for a new session)."""
        rows = await asyncio.to_thread(self.backend.sessions)
        found = [r for r in rows if r.session_id == wanted] or \
            [r for r in rows if r.session_id.startswith(wanted)]
        if len(found) == 1:
            self.resume_row(found[0])
            return
        said = (f"No session {wanted} (F5 lists them); this conversation goes on."
                if not found else
                f"{len(found)} sessions start with {wanted}: type more of the id, or pick "
                f"one with F5.")
        self.say(said, "warning")

    @work(group="picker", exit_on_error=False)
    async def pick_session(self: ChatScreen) -> None:
        from ..modals.session_picker import SessionPicker

        # the session open now is not one to go back to: choosing it reopened it over itself
        current = self.session.session_id if self.session is not None else None
        rows = [row for row in self.backend.sessions() if row.session_id != current]
        chosen = await self.app.push_screen_wait(SessionPicker(rows))
        for row in rows:
            if row.session_id == chosen:
                self.resume_row(row)

    def resume_row(self: ChatScreen, row: SessionRow) -> None:
        """Reopen a session of this project; one of another project only says where it
        belongs and how to reopen it there: the app's tools, index and memory are this
        folder's, and it has no way to move them to another one mid-run."""
        if not row.other_project:
            self.start_session(row.session_id)
            return
        self.say(f"Session {row.session_id} belongs to another project, {row.project}; "
                 f"this conversation goes on here. To continue it there: paicli-tui "
                 f"--resume {row.session_id} --project {shlex.quote(row.project)}", "warning")

    async def slash_model(self: ChatScreen, rest: str) -> None:
        self.pick_model(rest)

    @work(group="model", exit_on_error=False)
    async def pick_model(self: ChatScreen, rest: str) -> None:
        from ...core.llm.registry import configuration_problem, switched_settings
        from ..modals.model_picker import ModelPicker

        if rest:
            provider, _, model = rest.partition(":")
            answer: Any = (provider, model or None)
        else:
            answer = await self.app.push_screen_wait(
                ModelPicker(self.backend.models(), self.model_label()))
        if not answer or self.session is None:
            return
        provider, model = answer
        try:
            settings = switched_settings(self.backend.settings, provider, model)
            client = self.backend.build_client(settings)
        except Exception as exc:  # in the chat, as the switch's line is: a toast goes by
            self.say(f"Cannot use {provider}: {exc}. Still using {self.model_label()}.",
                     "error")
            return
        if client is None:  # what it lacks: a key, or a custom server's URL and model
            problem = configuration_problem(settings) or "set its key first"
            self.say(f"Cannot use {provider}: {problem}. Still using {self.model_label()}.",
                     "error")
            return
        old = self.session.client
        self.session.switch_model(client)
        self.model_settings = settings  # a session reopened later keeps this model
        self.post_message(SlashCommandsMixin.SessionChanged())
        if old is not None and old is not client:
            with contextlib.suppress(Exception):  # its connections are no longer needed
                await old.aclose()
        # in the chat, not a toast: scrolling back through a day, the line says which model
        # answered from here on
        profile = self.session.profile
        self.say(f"Now using {self.model_label()} · window {profile.window:,}: clearing at "
                 f"{profile.clearing_trigger:,}, compaction at {profile.compaction_trigger:,}.")

    async def slash_theme(self: ChatScreen, rest: str) -> None:
        wanted = rest.strip().lower()
        if wanted not in ("dark", "light"):
            wanted = "light" if self.app.theme == "textual-dark" else "dark"
        self.app.theme = f"textual-{wanted}"
        self.keep_theme(wanted)

    @work(group="config", exit_on_error=False)
    async def keep_theme(self: ChatScreen, theme: str) -> None:
        """The next start opens in the same theme (config.toml keeps it)."""
        from ...config import ConfigError, keep_setting

        path = self.backend.settings.home.config_file
        try:
            await asyncio.to_thread(keep_setting, path, "theme", theme)
        except (ConfigError, OSError) as exc:
            self.notify(f"Theme changed for this run only: {exc}", severity="warning")

    async def slash_quit(self: ChatScreen, rest: str) -> None:
        await self.app.action_quit()

    # -- conversation -------------------------------------------------------------------------
    async def slash_clear(self: ChatScreen, rest: str) -> None:
        if self.session is None or self.turn_running:
            self.notify("Wait for the turn to finish first.", severity="warning")
            return
        self.session.clear_history()
        await self.chat.reset()
        await self.chat.add_notice("History cleared. The session ledger keeps everything.")
        self.gauge.show(state="")
        self.refresh_gauge()

    async def slash_undo(self: ChatScreen, rest: str) -> None:
        if self.session is None or self.turn_running:
            self.notify("Wait for the turn to finish first.", severity="warning")
            return
        result = await self.session.undo_last_turn()
        kind = "info" if result.turn is None or not result.kept else "warning"
        tail = "" if result.turn is None else " The model hears of it with your next message."
        await self.chat.add_notice(result.summary() + tail, kind)

    async def slash_compact(self: ChatScreen, rest: str) -> None:
        if self.session is None or self.turn_running:
            self.notify("Wait for the turn to finish first.", severity="warning")
            return
        # as the turn: a summary takes seconds, so the status line moves and Esc stops it,
        # and a message sent meanwhile is queued (it started a turn that cancelled this)
        self.status.start("Compacting the context")
        self.turn_worker = self.compact_now(rest)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def compact_now(self: ChatScreen, focus: str = "") -> None:
        from ..messages import AgentEventPosted, TurnEnded

        try:
            outcome = await self.session.compact_now(focus)
        except asyncio.CancelledError:
            self.post_turn_end(TurnEnded("cancelled", what="Compaction"))
            raise
        except Exception as exc:  # in the chat, as "Nothing compacted" is
            self.say(f"Compaction failed: {exc}. The history is as it was.", "error")
            self.post_turn_end(TurnEnded("done"))  # what was queued still goes out
            return
        for event in outcome.events:
            self.post_message(AgentEventPosted(event))
        why = outcome.why_not
        # in the chat: a toast went by while the person looked away
        note = "" if outcome.compacted else \
            f"Nothing compacted{': ' + why if why else ' (the history is short)'}."
        self.post_turn_end(TurnEnded("done", note=note))

    # -- memory and code from the input line --------------------------------------------------
    async def slash_save(self: ChatScreen, rest: str) -> None:
        try:
            words = shlex.split(rest)
        except ValueError:
            words = rest.split()
        scope = "global" if "--global" in words else "project"
        force = "--force" in words
        sensitive = "--sensitive" in words  # the person confirms a text that looks secret
        flags = ("--global", "--force", "--sensitive")
        text = " ".join(w for w in words if w not in flags).strip()
        if not text:
            await self.chat.add_notice("Usage: `/save [--global] [--force] [--sensitive] "
                                       "<fact>`", "warning")
            return
        self.save_memory(text, scope, force, sensitive)

    @work(group="memory", exit_on_error=False)
    async def save_memory(self: ChatScreen, text: str, scope: str, force: bool,
                          sensitive: bool = False) -> None:
        try:
            await self._save_memory(text, scope, force, sensitive)
        except Exception as exc:  # refused (secret, too long, conflict left): say why
            self.say(f"Memory not saved: {exc}", "error")

    async def _save_memory(self: ChatScreen, text: str, scope: str, force: bool,
                           sensitive: bool = False) -> None:
        decision, outcome = await save_asking(self.app, self.backend.memory(), text, scope,
                                              force, sensitive)
        # in the chat, as every command's outcome: a toast went by, and the file's path is
        # there to copy
        where = stored_in(decision, outcome, str(self.backend.settings.home.memory_file))
        self.say(saved_message(decision, outcome, text, scope) + where)
        inbox = getattr(self.app, "memory_inbox", None)
        if inbox is not None:  # the welcome line's count follows (it kept the count before)
            inbox.refresh()

    async def slash_skills(self: ChatScreen, rest: str) -> None:
        from ...core.skills import SkillCatalog
        from ...paths import ProjectPaths

        on_disk = await asyncio.to_thread(
            SkillCatalog.discover, ProjectPaths.for_dir(self.backend.project_root),
            self.backend.settings.home)
        if self.session is None:  # no session (no model connected): the folders as they are
            await self.chat.add_notice(on_disk.report())
            return
        report = self.session.skills.report()
        changes = on_disk.changes_since(self.session.skills)
        if changes:  # written after the start: saying "No skills. Put one in …" alone misled
            from ..resume_hint import resume_hint

            reopen = ("quit and reopen it (`paicli-tui --resume "
                      f"{self.session.session_id}`)" if resume_hint(self.session)
                      else "restart paicli-tui")  # nothing said yet: nothing to resume
            report += ("\n\nChanged in the skill folders since this session started "
                       f"({changes}). The model is offered the skills it started with: "
                       f"{reopen} to offer the new set.")
        await self.chat.add_notice(report, "warning" if changes else "info")

    async def slash_init(self: ChatScreen, rest: str) -> None:
        target = self.backend.project_root / "PAI.md"
        if target.exists():
            await self.chat.add_notice(
                f"`{target}` already exists: /init never overwrites it. Edit it directly.",
                "warning")
            return
        self.draft_rules(target)

    @work(group="init", exit_on_error=False)
    async def draft_rules(self: ChatScreen, target: Path) -> None:
        from ...core.memory.rules_draft import draft_rules
        from ..modals.rules_draft import RulesDraftModal

        draft = await asyncio.to_thread(draft_rules, target.parent)
        text = await self.app.push_screen_wait(RulesDraftModal("PAI.md", draft))
        if text is None:
            self.say("/init cancelled: nothing was written.")
            return
        try:
            with open(target, "x", encoding="utf-8") as out:  # never over an existing file
                out.write(text)
        except FileExistsError:
            self.say(f"`{target}` appeared meanwhile: left it untouched.",
                                       "warning")
            return
        except OSError as exc:
            self.say(f"Cannot write `{target}`: {exc}", "error")
            return
        self.say(f"Wrote `{target}`. Its rules apply from the next session "
                                   "(or `--resume` this one).")

    async def slash_mcp(self: ChatScreen, rest: str) -> None:
        from ...core.mcp import McpManager
        from ...core.mcp.session_start import servers_written_since_start

        words = rest.split()
        if len(words) in (1, 2) and words[0].lower() == "restart":
            if self.session is None:
                await self.chat.add_notice("No session yet: connect a model first.", "warning")
                return
            await self.start_mcp_restart(words[1] if len(words) == 2 else "")
            return
        if rest.strip().lower() == "approve":
            if self.session is None:
                await self.chat.add_notice("No session yet: connect a model first.", "warning")
                return
            await self.chat.add_notice("Starting this project's MCP servers…")
            await self.chat.add_notice(await self.session.approve_project_mcp())
            return
        if rest.strip():
            await self.chat.add_notice("Usage: `/mcp`, `/mcp approve` or `/mcp restart "
                                       "[NAME]`", "warning")
            return
        manager = self.session.mcp if self.session is not None else None
        report = (manager or McpManager([])).report(self.backend.settings.home.config_file)
        written = "" if self.session is None else await asyncio.to_thread(
            servers_written_since_start, manager, self.backend.settings,
            self.backend.project_root)
        if written:  # not the how-to: the file is there, only not started
            nothing_yet = manager is None or not (manager.statuses or manager.problems)
            report = ("**MCP servers**" if nothing_yet else report) + f"\n- {written}"
        await self.chat.add_notice(report, "warning" if written else "info")
        if manager is not None and manager.statuses:  # the report stays in the chat
            from ..modals.mcp_servers import McpServersScreen

            self.app.push_screen(McpServersScreen(list(manager.statuses)),
                                 callback=self.after_mcp_servers)

    def after_mcp_servers(self: ChatScreen, name: str | None) -> None:
        """`r` in the /mcp view: the same as typing `/mcp restart NAME`."""
        if name:
            self.post_message(SlashCommandsMixin.Requested(f"/mcp restart {name}"))

    async def start_mcp_restart(self: ChatScreen, name: str) -> None:
        """``/mcp restart [NAME]``: said at once, the outcome when each restart ends (it
        comes as a change, as a server failing by itself does)."""
        mcp = self.session.mcp if self.session is not None else None
        try:
            if mcp is None:
                raise ValueError("No MCP servers are configured.")
            names = mcp.restart_targets(name)
        except ValueError as exc:
            await self.chat.add_notice(str(exc), "warning")
            return
        await self.chat.add_notice("Restarting MCP server " + ", ".join(f"`{n}`" for n in names)
                                   + "… (`/mcp` shows it as restarting)")
        self.restart_mcp(name)

    @work(group="mcp", exit_on_error=False)
    async def restart_mcp(self: ChatScreen, name: str) -> None:
        session = self.session
        if session is None:
            return
        try:
            refused = await session.restart_mcp(name)
        except Exception as exc:  # noqa: BLE001 — said, never a silent dead worker
            self.say(f"The MCP restart failed: {exc}", "error")
            return
        if refused:
            self.say(refused, "warning")

    async def on_slash_commands_mixin_mcp_changed(self: ChatScreen) -> None:
        if self.session is not None:
            for change in self.session.take_mcp_changes():
                await self.show_mcp_change(change)

    async def show_mcp_change(self: ChatScreen, event: McpServerChanged) -> None:
        """A server that stopped or was restarted, once; one that did not start at the
        session's start is in its opening warning already."""
        from ...core.mcp.status import change_notice

        if event.cause != "start":
            await self.chat.add_notice(change_notice(event),
                                       "info" if event.state == "running" else "warning")

    async def slash_graph(self: ChatScreen, rest: str) -> None:
        if not rest:
            await self.chat.add_notice("Usage: `/graph <Class>`", "warning")
            return
        self.show_graph(rest)

    @work(group="graph", exit_on_error=False, thread=True)
    def show_graph(self: ChatScreen, name: str) -> None:
        try:
            text = self.backend.code().graph(name)
        except Exception as exc:  # words, not a code block (one cut its hint off at 80 cols)
            self.say(f"Cannot read the code graph: {exc}", "warning")
            return
        self.say(f"```\n{text}\n```")
