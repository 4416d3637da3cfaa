"""Small fakes of the core for UI tests (never used by the product).

FakeSession follows the agent-session API (history, profile, client, run_turn, estimate,
compact_now, clear_history, switch_model, aclose) and yields scripted events, so screens can be
tested before and independently of the real agent loop.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paicli_tui.config import Settings
from paicli_tui.core.agent.port import ManualCompaction
from paicli_tui.core.context.profile import ContextProfile
from paicli_tui.core.context.report import CompactionReport
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.contracts.asks import (
    ApprovalRequest,
    ConflictDecision,
    ConflictEntry,
    ConflictRequest,
)
from paicli_tui.core.contracts.services import CodeService, MemoryService
from paicli_tui.core.messages import Message, Role, ToolCall
from paicli_tui.core.skills import SkillCatalog
from paicli_tui.ui.backend import (
    CodeHit,
    CodeResults,
    IndexStatus,
    IndexStep,
    MemoryRow,
    ModelChoice,
    SaveOutcome,
    SessionRow,
)


def fake_profile(window: int = 128_000) -> ContextProfile:
    """Fixed thresholds (whatever the window) so the pictures stay the same."""
    return ContextProfile(window=window, effective_window=128_000, summary_reserve=20_000,
                          buffer=13_000, compaction_trigger=95_000, clearing_trigger=57_000,
                          memory_budget=640)


@dataclass
class FakeClient:
    provider: str = "fake"
    model: str = "scripted-1"
    window: int = 128_000

    async def aclose(self) -> None:
        return None



def chat_script(session: str = "s1") -> list[ev.AgentEvent]:
    """A turn with reasoning, two tool calls, a compaction, usage and a final answer."""
    return [
        ev.TurnStarted(session, "find the config loader"),
        ev.RequestStarted(1, 40_000, 128_000, 57_000, 95_000),
        ev.ReasoningDelta("The user wants the loader; grep first."),
        ev.TextDelta("Let me look for the loader."),
        ev.AssistantMessage("Let me look for the loader.", None, ("c1", "c2")),
        ev.ToolCallStarted("c1", "grep_code", '{"pattern": "load_settings", "path": "."}'),
        ev.ToolCallFinished("c1", "grep_code", "done",
                            "paicli_tui/config.py:204: def load_settings(", 52),
        ev.ToolCallStarted("c2", "execute_command", '{"command": "pytest -q"}'),
        ev.ToolCallFinished("c2", "execute_command", "done", "120 passed in 3.2s", 41_000,
                            ".paicli/tool-outputs/s1/001-execute_command.txt"),
        ev.Usage(41_200, 300, 38_000, 40_000),
        ev.ContextCompacted("clearing", 61_000, 44_000, "3 old tool results cleared"),
        ev.RequestStarted(2, 44_000, 128_000, 57_000, 95_000),
        ev.TextDelta("The loader is `load_settings` in "),
        ev.TextDelta("`paicli_tui/config.py`.\n\n- defaults\n- config file\n- environment"),
        # the whole reply, as the core sends it (the chat shows it when it differs)
        ev.AssistantMessage("The loader is `load_settings` in `paicli_tui/config.py`.\n\n"
                            "- defaults\n- config file\n- environment"),
        ev.Usage(44_100, 80, 41_000, 44_000),
        ev.TurnFinished(session, "done", "The loader is …"),
    ]


LONG_SESSION_REPLY = ("Here is what I found in `loader.py`:\n\n1. The config is read by `load_settings`.\n"
         "2. Then the environment overrides it.\n\n```python\ndef load(path):\n    return 1\n```"
         "\n\n- one detail\n- another detail\n\nSo the fix is to call `validate()`. **Done.**")


def long_session_history(turns: int) -> list[Message]:
    """An hour of work, ``turns`` of it: a question, three read_file calls and their results,
    a reply with a list and a code block (about 45 widgets a turn on the screen)."""
    history = [Message.system("sys")]
    for n in range(turns):
        calls = tuple(ToolCall(f"c{n}_{k}", "read_file", json.dumps({"path": f"f{k}.py"}))
                      for k in range(3))
        history += [Message.user(f"question {n}"), Message.assistant("", calls)]
        history += [Message.tool(c.id, "read_file", "x = 1\n" * 5) for c in calls]
        history.append(Message.assistant(f"Answer {n}. {LONG_SESSION_REPLY}"))
    return history


class FakeSession:
    """Scripted agent session. ``script`` is a list of events, or of callables that receive
    the session and return an event (to await approvals) or None — or an ``asyncio.Event`` to
    wait on (used to hold a turn mid-stream)."""

    def __init__(self, *, client: Any = None, script: Sequence[Any] = (),
                 history: Sequence[Message] = (), profile: ContextProfile | None = None,
                 session_id: str = "s1") -> None:
        self.session_id = session_id
        self.client = client
        self.script = list(script)
        self.history: list[Message] = list(history)
        self.profile = profile or fake_profile()
        self.memory: MemoryService | None = None
        self.code: CodeService | None = None
        self.approve: Any = None
        self.resolve_conflict: Any = None
        self.ask_summary: Any = None
        self.closed = False
        self.skills = SkillCatalog()
        self.compactions: list[CompactionReport] = []
        self.mcp = None
        self.estimate_value = 1_200
        self.notices: list[ev.AgentEvent] = []
        """Background notices (memory saves) a script queued; ``take_notices`` drains them."""
        self.subagent_records: list[Any] = []
        self.subagent_histories: dict[str, list[Message]] = {}
        self.interrupted: Any = None
        """What interrupted_plan() answers (an InterruptedPlan, or None)."""
        self.turn_diff: Any = None
        """What last_turn_diff() answers (a DiffView, or None: no file changed)."""
        self.accept_edits = False

    def set_accept_edits(self, on: bool) -> None:
        self.accept_edits = on

    def interrupted_plan(self) -> Any:
        return self.interrupted

    def subagent_history(self, subagent: str) -> list[Message]:
        """What ``subagent_histories`` holds for that sub-agent (KeyError as the port)."""
        return list(self.subagent_histories[subagent])

    def estimate(self) -> int:
        return self.estimate_value

    async def run_plan(self, goal: str, *, review: Any, on_failure: Any = None,
                       resume: Any = None) -> AsyncIterator[ev.AgentEvent]:
        yield ev.TurnStarted(session=self.session_id, user_input=f"/plan {goal}")
        yield ev.PlanFinished(status="rejected", done=0, total=0)
        yield ev.TurnFinished(session=self.session_id, reason="done")

    async def last_turn_diff(self) -> Any:
        return self.turn_diff

    async def undo_last_turn(self) -> Any:
        from paicli_tui.core.agent.checkpoints import UndoResult

        return UndoResult()

    async def run_shell_line(self, command: str) -> AsyncIterator[ev.AgentEvent]:
        yield ev.ToolCallStarted(call_id="shell-1", name="execute_command",
                                 arguments=f'{{"command": "{command}"}}')
        yield ev.ToolCallFinished(call_id="shell-1", name="execute_command", status="done",
                                  preview="[exit code 0] (no output)", permission="typed")

    async def approve_project_mcp(self) -> str:
        return "No unapproved MCP servers in this project's .mcp.json."

    async def restart_mcp(self, name: str = "") -> str:
        return "No MCP servers are configured."

    def watch_mcp(self, listener: Any) -> None:
        self.mcp_listener = listener

    def take_mcp_changes(self) -> list[ev.AgentEvent]:
        return []

    async def run_turn(self, user_input: str) -> AsyncIterator[ev.AgentEvent]:
        self.history.append(Message.user(user_input))
        text: list[str] = []
        try:
            for item in self.script:
                if isinstance(item, asyncio.Event):
                    await item.wait()
                    continue
                event = await item(self) if callable(item) else item
                if event is None:  # the callable only acted (queued a notice, …)
                    continue
                if isinstance(event, ev.TextDelta):
                    text.append(event.text)
                if isinstance(event, ev.AssistantMessage):
                    calls = tuple(ToolCall(i, "tool") for i in event.tool_call_ids)
                    self.history.append(Message.assistant("".join(text), calls))
                    text = []
                if isinstance(event, ev.ToolCallFinished):
                    self.history.append(Message.tool(event.call_id, event.name, event.preview))
                if isinstance(event, ev.RequestStarted):
                    self.estimate_value = event.estimated_tokens
                yield event
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            # like the real loop: close the reply and answer dangling calls
            self.history.append(Message.assistant("".join(text)))
            raise

    def tool_schemas(self) -> list[dict[str, Any]]:
        return []

    async def compact_now(self, focus: str = "") -> ManualCompaction:
        self.compact_focus = focus
        report = CompactionReport("summary", True, self.estimate_value, 900, "kept 1 user turn",
                            "## Goal\nFind the loader.")
        self.compactions.append(report)
        self.estimate_value = 900
        return ManualCompaction((ev.compaction_event(report),), compacted=True)

    def replace_view(self, messages: Sequence[Message], reason: str) -> None:
        self.history = list(messages)

    def take_notices(self) -> list[ev.AgentEvent]:
        notices, self.notices = self.notices, []
        return notices

    def clear_history(self) -> None:
        self.history = [m for m in self.history if m.role is Role.SYSTEM]
        self.estimate_value = 300

    def switch_model(self, client: Any) -> None:
        self.client = client
        self.profile = fake_profile(window=client.window)

    async def wait_background(self) -> None:
        return None

    async def aclose(self) -> None:
        self.closed = True


@dataclass
class FakeMemory:
    rows_: list[MemoryRow] = field(default_factory=list)
    saved: list[tuple[str, str, bool]] = field(default_factory=list)
    ranking: dict[str, list[str]] = field(default_factory=dict)
    """search(query) answers: the ids ranked for a query (none: an empty ranking)."""
    searched: list[str] = field(default_factory=list)
    without_meaning: str = ""
    """Why no embedder read a query's meaning, for every search ("" : one did)."""

    def rows(self) -> list[MemoryRow]:
        return list(self.rows_)

    def search(self, query: str, limit: int) -> tuple[list[str], str]:
        self.searched.append(query)
        answer = self.ranking.get(query, [])
        if isinstance(answer, Exception):
            raise answer
        return answer[:limit], self.without_meaning

    def save(self, content: str, scope: str, force: bool = False,
             allow_sensitive: bool = False) -> SaveOutcome:
        self.saved.append((content, scope, force))
        conflicts = tuple(ConflictEntry(r.id, r.content) for r in self.rows_
                          if not force and _numbers_removed(r.content) == _numbers_removed(content))
        if conflicts:
            return SaveOutcome(conflicts=conflicts)
        new_id = f"m{len(self.rows_) + 1}"
        self.rows_.append(MemoryRow(new_id, scope, content, "2026-11-01", "2026-11-01"))
        return SaveOutcome(saved_id=new_id)

    def decide(self, content: str, scope: str, decision: ConflictDecision,
               replace_id: str | None, conflicting: Sequence[str], *,
               allow_sensitive: bool = False) -> SaveOutcome:
        if decision is ConflictDecision.KEEP_BOTH:
            return self.save(content, scope, True)
        if decision is ConflictDecision.REPLACE:
            target = replace_id or conflicting[0]
            self.replace(target, content)
            return SaveOutcome(replaced_id=target)
        return SaveOutcome(message="nothing saved")

    def replace(self, memory_id: str, content: str, allow_sensitive: bool = False) -> None:
        self.rows_ = [MemoryRow(r.id, r.scope, content, r.written, "2026-11-02")
                      if r.id == memory_id else r for r in self.rows_]

    def verify(self, memory_id: str) -> None:
        self.rows_ = [MemoryRow(r.id, r.scope, r.content, r.written, "2026-11-02", False,
                                r.source, False, r.created) if r.id == memory_id else r
                      for r in self.rows_]

    def delete(self, memory_id: str) -> None:
        self.rows_ = [r for r in self.rows_ if r.id != memory_id]

    def clear(self) -> int:
        count = len(self.rows_)
        self.rows_ = []
        return count


def _numbers_removed(text: str) -> str:
    return "".join(c for c in text.lower() if not c.isdigit() and not c.isspace())


def seeded_memories() -> list[MemoryRow]:
    return [
        MemoryRow("m1", "project", "The project uses Java 17 and Gradle 8.", "2026-09-01",
                  "2026-09-01", True, "explicit"),
        MemoryRow("m2", "global", "I prefer answers in Chinese with English code terms.",
                  "2026-10-20", "2026-11-20", False, "explicit"),
        MemoryRow("m3", "project", "项目统一使用 UTF-8 编码，禁止使用 GBK。", "2026-11-10",
                  "2026-11-10", False, "auto", True, "2026-11-10T09:30:00+00:00"),
    ]


@dataclass
class FakeCode:
    hits: list[CodeHit] = field(default_factory=list)
    indexed: bool = True
    searches: list[tuple[str, str, int]] = field(default_factory=list)
    summary: str = ""
    """What grep mode reports before ranking (``13 matching lines in 3 files``)."""

    def status(self) -> IndexStatus:
        return IndexStatus(self.indexed, 42, 310, "(use, 512-d)")

    def search(self, query: str, mode: str, top_k: int) -> CodeResults:
        self.searches.append((query, mode, top_k))
        return CodeResults(list(self.hits), self.summary if mode == "grep" else "")

    def index(self, progress: Callable[[IndexStep], None]) -> str:
        for done in range(0, 11, 5):
            progress(IndexStep(done, 10, f"indexing {done}/10 files"))
        self.indexed = True
        return "indexed 10 files, 80 chunks"

    def graph(self, name: str) -> str:
        return f"{name}\n  extends Base\n  calls Loader.load()"


def seeded_hits() -> list[CodeHit]:
    return [
        CodeHit("src/main/java/app/ConfigLoader.java", 12, "ConfigLoader.load(Path path)", 0.912,
                "public Config load(Path path) throws IOException {\n"
                "    String text = Files.readString(path);\n"
                "    return parse(text);\n}", "java"),
        CodeHit("paicli_tui/config.py", 204, "load_settings(flags, env)", 0.804,
                "def load_settings(flags=None, env=None):\n    env = dict(os.environ)\n",
                "python"),
    ]


@dataclass
class FakeBackend:
    settings: Settings
    project_root: Path
    session: FakeSession | None = None
    client: Any = None
    memory_: FakeMemory = field(default_factory=FakeMemory)
    code_: FakeCode = field(default_factory=FakeCode)
    sessions_: list[SessionRow] = field(default_factory=list)
    history_events: list[dict] = field(default_factory=list)
    before_compaction: list[Message] | None = None
    unanswered: dict[str, str] = field(default_factory=dict)
    """Why a message of the person's got no reply, by id (the ledger's reading)."""
    started: list[str | None] = field(default_factory=list)
    approvals: list[ApprovalRequest] = field(default_factory=list)

    def prepare(self) -> None:
        return None

    def how_to_configure(self) -> str:
        from paicli_tui.core.llm.registry import how_to_configure

        return how_to_configure(self.settings)

    def build_client(self, settings: Settings) -> Any:
        if settings.provider and settings.provider != "fake":
            return FakeClient(settings.provider, settings.model or "default", 200_000)
        return self.client

    async def start_session(self, client: Any, approve: Any, resolve_conflict: Any,
                            resume: str | None, ask_summary: Any = None) -> FakeSession:
        self.started.append(resume)
        session = self.session or FakeSession()
        session.client = client
        session.approve = approve
        session.resolve_conflict = resolve_conflict
        session.ask_summary = ask_summary
        if resume:
            session.session_id = resume
        return session

    def memory(self) -> FakeMemory:
        return self.memory_

    def code(self) -> FakeCode:
        return self.code_

    def sessions(self) -> list[SessionRow]:
        return list(self.sessions_)

    def compaction_history(self, session_id: str) -> list[dict]:
        return list(self.history_events)

    def view_before_last_compaction(self, session_id: str) -> list[Message] | None:
        return self.before_compaction

    def unanswered_reasons(self, session_id: str) -> dict[str, str]:
        return dict(self.unanswered)

    def has_code_index(self) -> bool:
        return self.code_.indexed

    def models(self) -> list[ModelChoice]:
        """Every provider of the registry with its default model and window (as the real
        picker lists them), every other one without a key."""
        from paicli_tui.core.llm.registry import PROVIDERS

        return [ModelChoice(name, spec.default_model or "", int(spec.window or 0), n % 2 == 0)
                for n, (name, spec) in enumerate(PROVIDERS.items())]


async def ask_conflict(session: FakeSession, new: str, existing: ConflictEntry
                       ) -> tuple[ConflictDecision, str | None]:
    return await session.resolve_conflict(ConflictRequest(new, (existing,)))
