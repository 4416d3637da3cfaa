"""A working day in one session: what grows and what gets slower per turn.

    python benchmarks/bench_long_session.py                  # core at 100/300/1000 turns, TUI
    python benchmarks/bench_long_session.py --turns 100,300 --tui 100,500
    python benchmarks/bench_long_session.py --tui ''         # the core part only

**Core.** One real ``AgentSession`` (ledger, context manager, memory service by keywords,
built-in tools running in a temporary project, logging at ``info`` into a temporary
PAICLI_HOME) driven by a scripted model at the ChatClient protocol that answers at once. A
turn is a realistic mix: read a source file, grep the project, edit a file every 3rd turn, a
20,000-line command output (offloaded) every 7th, a memory saved every 10th, then an answer.
The window is small (``--window``, 32,000: compaction trigger 20,000), so a few hundred
turns make many summaries. Each N runs in a fresh process (RSS is the process's own). Per N,
side by side: RSS after turn 10 and at the end, time per turn (median of the first 10 and
the last 10; the model takes no time, so this is the program's own cost plus the commands
it runs) and its CPU seconds in this process (the steadier figure on a shared machine), the session file, log and saved-output sizes, compactions, the largest request of
any turn against the window, and after the session closed: resume (open + restore), the
listing of sessions, the inspector's compaction history and its view before the last
compaction (`r`), each the best CPU time of 3 beside the same read as it was before (every
line decoded; the file read from the top), and whether the resumed history is
the one the session ended with.

**TUI.** A headless Textual pilot appends hours of chat to the real ``ChatLog`` (a message
from the person, a Markdown reply with a code block and a list, two tool blocks; repeated)
and measures at 100 / 500 / 2,000 blocks: the CPU time to add one more exchange (median of
3) and to scroll to the top and back to the end, RSS, and how many widgets the chat holds;
"folded" is the chat as it is, "all live" keeps every block a widget (as before older
blocks were folded into the compact view), at the sizes of ``--tui-before``. Then the app
itself (with the UI's test doubles for the core) opens a resumed session whose view holds
100 / 300 turns (``--resume``; a large window compacts rarely), both ways: CPU until the
"Resumed session" line shows, RSS, widgets.

Prints figures; asserts nothing. Run it under ``nice -n 10`` on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from paicli_tui.core.context.summary import SECTION_TITLES
from paicli_tui.core.contracts.asks import ApprovalDecision
from paicli_tui.core.contracts.llm import StreamDone, UsageReport
from paicli_tui.core.messages import Message, ToolCall
from paicli_tui.core.tokens import estimate_request

HERE = Path(__file__).resolve()


def rss_mb() -> float:
    """The process's resident set now (Linux)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def best_cpu(work: Callable[[], object], runs: int = 3) -> float:
    """The fewest CPU seconds of ``runs`` runs (steadier than wall time on a shared machine)."""
    samples = []
    for _ in range(runs):
        start = time.process_time()
        work()
        samples.append(time.process_time() - start)
    return min(samples)


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) \
        if folder.is_dir() else 0


# -- the scripted model ----------------------------------------------------------------------

ANSWER = ("Done. The retry loop in `src/mod{k}.py` now stops after three attempts; "
          "会话过期的检查也改成了可配置的。\n\n```python\nfor attempt in range(3):\n"
          "    if send():\n        break\n```\n\n- tests: `pytest tests/test_mod{k}.py`\n"
          "- next: the backoff cap\n")


def turn_plan(turn: int) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls of one turn, one per request (the mix described above)."""
    k = turn % 40
    steps: list[tuple[str, dict[str, Any]]] = [
        ("read_file", {"path": f"src/mod{k}.py"}),
        ("execute_command", {"command": f"grep -rn 'def ' src | grep -v mod{k} | head -n 150"}),
    ]
    if turn % 3 == 0:
        steps.append(("edit_file", {"path": f"src/mod{k}.py", "old_string": "# marker\n",
                                    "new_string": f"# marker\n# touched in turn {turn}\n"}))
    if turn % 7 == 0:
        steps.append(("execute_command", {"command": "seq 1 20000"}))
    if turn % 10 == 0:
        steps.append(("save_memory", {"content": f"模块 mod{k} 的重试上限是 {turn % 5 + 2} 次 "
                                                 f"(decided in turn {turn})"}))
    return steps


class SoakModel:
    """Answers each request at once from :func:`turn_plan`; records each request's size."""

    provider, model = "soak", "soak-1"

    def __init__(self, window: int) -> None:
        self.window = window
        self.turn = 0
        self.step = 0
        self.largest = 0
        """The largest request (estimated tokens) of the current turn."""
        self.summaries = 0

    async def stream(self, messages: Sequence[Message], tools: Sequence[dict] = (), *,
                     model: str | None = None) -> AsyncIterator[Any]:
        if not tools:  # a summary request
            self.summaries += 1
            text = "\n".join(f"## {title}\n- kept {self.summaries}" for title in SECTION_TITLES)
            yield StreamDone(Message.assistant(text), "stop")
            return
        self.largest = max(self.largest, estimate_request(messages, tools))
        plan = turn_plan(self.turn)
        if self.step < len(plan):
            name, arguments = plan[self.step]
            self.step += 1
            call = ToolCall(f"t{self.turn}s{self.step}", name, json.dumps(arguments))
            yield StreamDone(Message.assistant("", [call]), "tool_calls",
                             UsageReport(prompt_tokens=self.largest, completion_tokens=30))
            return
        yield StreamDone(Message.assistant(ANSWER.format(k=self.turn % 40)), "stop",
                         UsageReport(prompt_tokens=self.largest, completion_tokens=120))

    async def aclose(self) -> None:
        pass


def make_project(root: Path) -> None:
    src = root / "src"
    src.mkdir(parents=True)
    for k in range(40):
        body = "".join(f"def handler_{k}_{n}(request, retries=3):\n"
                       f"    # 处理请求 {n}: validate, retry, log\n"
                       f"    return send(request, retries=retries) + {n}\n\n"
                       for n in range(60 + 5 * k))
        (src / f"mod{k}.py").write_text(f"# marker\n{body}", encoding="utf-8")


async def always(request: Any) -> Any:
    return ApprovalDecision.ALWAYS


async def run_core(turns: int, window: int) -> dict[str, Any]:
    from paicli_tui import logs
    from paicli_tui.config import load_settings
    from paicli_tui.core.agent.session import AgentSession
    from paicli_tui.core.context.ledger import SessionLedger, list_sessions
    from paicli_tui.core.contracts.events import ContextCompacted
    from paicli_tui.core.memory.service import LocalMemoryService

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        make_project(project)
        env = {"PAICLI_HOME": str(root / "home"), "PATH": os.environ.get("PATH", "")}
        settings = load_settings({"auto_extract": False, "log_level": "info"}, env)
        logs.start_logging(settings)
        model = SoakModel(window)
        memory = LocalMemoryService(settings, project, use_vectors=False)
        session = await AgentSession.start(settings, project, client=model, memory=memory,
                                           approve=always)
        times: list[float] = []
        cpu_times: list[float] = []
        over_window = compactions = 0
        largest_ratio = 0.0
        rss_at_10 = objects_at_10 = 0.0
        for turn in range(1, turns + 1):
            model.turn, model.step, model.largest = turn, 0, 0
            start, cpu = time.perf_counter(), time.process_time()
            async for event in session.run_turn(f"turn {turn}: 请检查 mod{turn % 40} 的重试逻辑"):
                if isinstance(event, ContextCompacted) and event.outcome == "compacted" \
                        and event.tier in ("summary", "digest"):
                    compactions += 1
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu)
            largest_ratio = max(largest_ratio, model.largest / window)
            over_window += model.largest > window
            if turn == 10:
                gc.collect()
                rss_at_10, objects_at_10 = rss_mb(), len(gc.get_objects())
        gc.collect()
        rss_end, objects_end = rss_mb(), len(gc.get_objects())
        history = [m.to_record() for m in session.history]
        session_id = session.session_id
        await session.aclose()
        logs.stop_logging()
        home = settings.home
        start = time.perf_counter()
        resumed = SessionLedger.open(home, session_id).restore()
        resume_s = time.perf_counter() - start
        start = time.perf_counter()
        list_sessions(home)
        list_s = time.perf_counter() - start
        events = SessionLedger.open(home, session_id).compaction_history()
        assert every_line_decoded(home.session_ledger(session_id)) == events
        inspector_s = best_cpu(lambda: SessionLedger.open(home, session_id).compaction_history())
        inspector_before_s = best_cpu(lambda: every_line_decoded(home.session_ledger(session_id)))
        path = home.session_ledger(session_id)
        restore_view = SessionLedger.open(home, session_id).checkpoint_before_last_compaction
        assert [m.to_record(strip_images=True) for m in restore_view()] == \
            view_before_from_the_top(path)
        restore_s = best_cpu(restore_view)
        restore_before_s = best_cpu(lambda: view_before_from_the_top(path))
        same = [m.to_record() for m in resumed.messages] == history
        return {
            "turns": turns,
            "rss_10": rss_at_10, "rss_end": rss_end,
            "objects_10": objects_at_10, "objects_end": objects_end,
            "first10_ms": statistics.median(times[:10]) * 1000,
            "last10_ms": statistics.median(times[-10:]) * 1000,
            "first10_cpu_ms": statistics.median(cpu_times[:10]) * 1000,
            "last10_cpu_ms": statistics.median(cpu_times[-10:]) * 1000,
            "ledger_mb": home.session_ledger(session_id).stat().st_size / 1e6,
            "log_mb": folder_bytes(home.logs_dir) / 1e6,
            "outputs_mb": folder_bytes(project / ".paicli" / "tool-outputs") / 1e6,
            "compactions": compactions, "summary_requests": model.summaries,
            "largest_request": largest_ratio, "over_window": over_window,
            "history_messages": len(history),
            "resume_ms": resume_s * 1000, "sessions_ms": list_s * 1000,
            "inspector_ms": inspector_s * 1000, "inspector_before_ms": inspector_before_s * 1000,
            "restore_ms": restore_s * 1000, "restore_before_ms": restore_before_s * 1000,
            "resumed_same": same,
        }


def every_line_decoded(path: Path) -> list[dict[str, Any]]:
    """The compaction history as the inspector read it before: every line of the file
    decoded (a full read from the top)."""
    from paicli_tui.core.context.ledger_read import open_regular, read_ledger

    events: list[dict[str, Any]] = []

    def collect(record: dict[str, Any]) -> bool:
        if record.get("type") == "event" and record.get("kind") == "compaction":
            events.append(record)
        return False

    with open_regular(path) as handle:
        read_ledger(handle, tail=False, stop=collect)
    return events


def view_before_from_the_top(path: Path) -> list[dict[str, Any]]:
    """The view before the last compaction as the inspector's `r` read it before: the
    compaction events counted, then the file read from the top up to the last one."""
    from paicli_tui.core.context.ledger_read import open_regular, read_events, read_ledger

    with open_regular(path) as handle:
        total = len([e for e in read_events(handle, "compaction") if e.get("changed") is not False])
    seen = [0]

    def at_last(record: dict[str, Any]) -> bool:
        if record.get("type") == "event" and record.get("kind") == "compaction" \
                and record.get("changed") is not False:
            seen[0] += 1
        return seen[0] == total

    with open_regular(path) as handle:
        return read_ledger(handle, tail=False, stop=at_last).view


# -- the TUI ---------------------------------------------------------------------------------

REPLY = ("Here is what changed in **`src/mod{k}.py`**:\n\n1. the retry loop stops after three "
         "attempts\n2. 会话过期时间可以配置\n\n```python\ndef retry(send, attempts=3):\n"
         "    for n in range(attempts):\n        if send():\n            return n\n```\n\n"
         "| file | lines |\n|---|---|\n| src/mod{k}.py | 42 |\n")


async def run_tui(sizes: list[int], keep_all: bool) -> list[dict[str, Any]]:
    """``keep_all``: every block stays a live widget (as before the chat folded old ones)."""
    from textual.app import App, ComposeResult

    from paicli_tui.resources import style_paths
    from paicli_tui.ui.widgets.chat_log import ChatLog

    class ChatOnly(App[None]):
        CSS_PATH = [str(p) for p in style_paths()]

        def compose(self) -> ComposeResult:
            yield ChatLog(id="chat", **({"live_blocks": None} if keep_all else {}))

    async def exchange(chat: ChatLog, k: int) -> None:
        """One exchange: 4 blocks (a message, two tool calls, a reply)."""
        await chat.add_user(f"turn {k}: 请检查 mod{k % 40} 的重试逻辑 and fix it")
        for j in range(2):
            block = await chat.add_tool(f"c{k}_{j}", "read_file",
                                        json.dumps({"path": f"src/mod{k % 40}.py"}))
            block.finish("done", "def handler(request):\n    return send(request)\n" * 6,
                         chars=2400)
        reply = await chat.assistant()
        await reply.set_text(REPLY.format(k=k % 40))
        await chat.end_assistant()

    rows = []
    app = ChatOnly()
    async with app.run_test(size=(100, 30)) as pilot:
        chat = app.query_one(ChatLog)
        blocks = k = 0
        for size in sorted(sizes):
            while blocks < size:
                await exchange(chat, k)
                k += 1
                blocks += 4
            await pilot.pause()
            samples = []
            for _ in range(3):
                start = time.process_time()
                await exchange(chat, k)
                await pilot.pause()
                samples.append(time.process_time() - start)
                k += 1
                blocks += 4
            start = time.process_time()
            chat.scroll_home(animate=False)
            await pilot.pause()
            top_s = time.process_time() - start
            start = time.process_time()
            chat.scroll_end(animate=False)
            await pilot.pause()
            end_s = time.process_time() - start
            gc.collect()
            rows.append({"mode": "all live" if keep_all else "folded", "blocks": blocks,
                         "add_ms": statistics.median(samples) * 1000,
                         "top_ms": top_s * 1000, "end_ms": end_s * 1000, "rss": rss_mb(),
                         "children": len(chat.children), "widgets": len(list(chat.walk_children()))})
    return rows


async def run_tui_resume(turns: int, keep_all: bool) -> dict[str, Any]:
    """The app opening a resumed session whose view holds ``turns`` turns (a model with a
    large window compacts rarely): CPU seconds until the "Resumed session" line shows."""
    sys.path[:0] = [str(HERE.parents[1] / "tests"), str(HERE.parents[1] / "tests" / "ui")]
    from ui_fakes import FakeBackend, FakeClient, FakeSession

    from paicli_tui.app import PaicliApp
    from paicli_tui.config import load_settings
    from paicli_tui.ui.widgets import chat_log

    if keep_all:  # as before folding: every block stays a widget
        chat_log.ChatLog.__init__.__kwdefaults__["live_blocks"] = None
    history = [Message.system("sys")]
    for n in range(1, turns + 1):
        call = ToolCall(f"c{n}", "read_file", json.dumps({"path": f"src/mod{n % 40}.py"}))
        history += [Message.user(f"turn {n}: 请检查 mod{n % 40} 的重试逻辑"),
                    Message.assistant("Reading it.", (call,)),
                    Message.tool(call.id, "read_file", "def retry():\n    pass\n" * 10),
                    Message.assistant(REPLY.format(k=n % 40))]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        settings = load_settings({}, {"PAICLI_HOME": str(root / "home")})
        backend = FakeBackend(settings, root / "project",
                              session=FakeSession(history=history), client=FakeClient())
        app = PaicliApp(settings, root / "project", resume="a1b2c3", backend=backend)
        start = time.process_time()
        async with app.run_test(size=(100, 30)) as pilot:
            chat = None
            while chat is None or not any("Resumed session" in str(getattr(w, "source", ""))
                                          for w in chat.children[-3:]):
                await pilot.pause(0.05)
                chat = app.screen.query_one(chat_log.ChatLog) \
                    if type(app.screen).__name__ == "ChatScreen" else None
            await pilot.pause()
            opened = time.process_time() - start
            gc.collect()
            return {"mode": "all live" if keep_all else "folded", "blocks": turns * 4,
                    "open_ms": opened * 1000, "rss": rss_mb(),
                    "widgets": len(list(chat.walk_children()))}


# -- the report ------------------------------------------------------------------------------

CORE_ROWS = [
    ("RSS after turn 10 (MB)", "rss_10", "{:.0f}"),
    ("RSS at the end (MB)", "rss_end", "{:.0f}"),
    ("Python objects after turn 10", "objects_10", "{:,.0f}"),
    ("Python objects at the end", "objects_end", "{:,.0f}"),
    ("time per turn, first 10 (ms)", "first10_ms", "{:.1f}"),
    ("time per turn, last 10 (ms)", "last10_ms", "{:.1f}"),
    ("CPU per turn, first 10 (ms)", "first10_cpu_ms", "{:.1f}"),
    ("CPU per turn, last 10 (ms)", "last10_cpu_ms", "{:.1f}"),
    ("session file (MB)", "ledger_mb", "{:.2f}"),
    ("log files (MB)", "log_mb", "{:.2f}"),
    ("saved tool outputs (MB)", "outputs_mb", "{:.2f}"),
    ("summaries/digests made", "compactions", "{}"),
    ("largest request / window", "largest_request", "{:.2f}"),
    ("turns with a request above the window", "over_window", "{}"),
    ("messages in the history at the end", "history_messages", "{}"),
    ("resume: open + restore (ms)", "resume_ms", "{:.1f}"),
    ("list sessions (ms)", "sessions_ms", "{:.1f}"),
    ("inspector's compaction history (CPU ms)", "inspector_ms", "{:.1f}"),
    ("  the same, every line decoded (CPU ms)", "inspector_before_ms", "{:.1f}"),
    ("inspector's view before last compaction", "restore_ms", "{:.1f}"),
    ("  the same, read from the top (CPU ms)", "restore_before_ms", "{:.1f}"),
    ("resumed history == history at close", "resumed_same", "{}"),
]

RESUME_ROWS = [
    ("open the resumed session (CPU ms)", "open_ms", "{:.0f}"),
    ("RSS (MB)", "rss", "{:.0f}"),
    ("widgets in the chat", "widgets", "{:,}"),
]

TUI_ROWS = [
    ("add one exchange, 4 blocks (CPU ms)", "add_ms", "{:.1f}"),
    ("scroll to the top (CPU ms)", "top_ms", "{:.1f}"),
    ("scroll to the end (CPU ms)", "end_ms", "{:.1f}"),
    ("RSS (MB)", "rss", "{:.0f}"),
    ("blocks mounted in the chat", "children", "{:,}"),
    ("widgets in the chat", "widgets", "{:,}"),
]


def table(title: str, head: str, results: list[dict[str, Any]], key: str,
          rows: list[tuple[str, str, str]]) -> None:
    print(f"\n{title}")
    print(f"{head:<40}" + "".join(f"{r[key]:>12,}" for r in results))
    for label, field, fmt in rows:
        print(f"{label:<40}" + "".join(f"{fmt.format(r[field]):>12}" for r in results))


def child(args: list[str]) -> Any:
    out = subprocess.run([sys.executable, str(HERE), *args], capture_output=True, text=True)
    if out.returncode:
        print(f"{' '.join(args)} failed:\n{out.stderr.strip().splitlines()[-1]}")
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", default="100,300,1000")
    parser.add_argument("--tui", default="100,500,2000")
    parser.add_argument("--tui-before", default="100,500",
                        help="sizes measured with every block live, as before the chat "
                             "folded old blocks (2,000 takes many minutes that way)")
    parser.add_argument("--window", type=int, default=32_000)
    parser.add_argument("--one-core", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--one-tui", help=argparse.SUPPRESS)
    parser.add_argument("--keep-all", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--resume", default="100,300",
                        help="turns in the view of a session the app resumes")
    parser.add_argument("--one-resume", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_core:
        print(json.dumps(asyncio.run(run_core(args.one_core, args.window))))
        return 0
    if args.one_resume:
        print(json.dumps(asyncio.run(run_tui_resume(args.one_resume, args.keep_all))))
        return 0
    if args.one_tui:
        sizes = [int(s) for s in args.one_tui.split(",")]
        print(json.dumps(asyncio.run(run_tui(sizes, args.keep_all))))
        return 0
    turns = [int(s) for s in args.turns.split(",") if s]
    if turns:
        core = [r for n in turns
                if (r := child(["--one-core", str(n), "--window", str(args.window)]))]
        table(f"core: one session, window {args.window:,}", "turns", core, "turns", CORE_ROWS)
    before = [s for s in args.tui_before.split(",") if s]
    sizes = [s for s in args.tui.split(",") if s]
    tui = (child(["--one-tui", ",".join(before), "--keep-all"]) or []) if before and sizes else []
    if sizes:
        tui += child(["--one-tui", ",".join(sizes)]) or []
        table("TUI: the chat log (100x30, headless)", "blocks appended", tui, "blocks",
              [("", "mode", "{}"), *TUI_ROWS])
    resumed = [r for n in args.resume.split(",") if n and sizes
               for flag in (["--keep-all"], []) if (r := child(["--one-resume", n, *flag]))]
    if resumed:
        table("TUI: opening a resumed session (100x30, headless)", "blocks in its view",
              resumed, "blocks", [("", "mode", "{}"), *RESUME_ROWS])
    return 0


if __name__ == "__main__":
    sys.exit(main())
