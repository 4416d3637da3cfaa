"""Ledger benchmark: schema 1 (a full view after every change) beside schema 2 (changes,
occasional full checkpoints), same session, same run.

A tool-heavy session (a user turn, assistant calls, tool results, an answer; clearing of old
tool results every 40 messages, as tier 2 does) is written by both writers; printed per
size: ledger bytes ÷ the bytes of the messages it records, and the time of a resume
(open + restore, median of 3) and of `sessions` (listing).

    python benchmarks/bench_ledger.py [500 2000 4000]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "context"))

from bench_context import timed  # noqa: E402  (median of runs)
from ledger_schema1 import SchemaOneLedger  # noqa: E402

from paicli_tui.core.context.ledger import SessionLedger, list_sessions  # noqa: E402
from paicli_tui.core.messages import Message, ToolCall  # noqa: E402
from paicli_tui.paths import HomePaths  # noqa: E402

BODY = "public final class SessionManager { private Duration ttl; } // refresh\n"


def write_session(kind: type[SessionLedger], home: HomePaths, project: Path,
                  count: int) -> tuple[str, int, float]:
    """(session id, bytes of the messages, seconds spent writing)."""
    ledger = kind.create(home, project)
    view: list[Message] = []
    message_bytes = 0
    start = time.perf_counter()

    def add(message: Message) -> None:
        nonlocal message_bytes
        ledger.append(message)
        view.append(message)
        message_bytes += len(json.dumps(message.to_record(), ensure_ascii=False))
        ledger.checkpoint(view, "append")

    add(Message.system("You are a coding agent. " * 40))
    turn = 0
    while len(view) < count:
        turn += 1
        add(Message.user(f"turn {turn}: read the session files and fix the expiry check"))
        call = ToolCall(f"c{turn}", "read_file", f'{{"path": "src/F{turn}.java"}}')
        add(Message.assistant("Reading.", tool_calls=[call]))
        add(Message.tool(call.id, "read_file", BODY * (turn % 7 + 1)))
        add(Message.assistant(f"Done with turn {turn}."))
        if len(view) % 40 < 4:  # tier 2: clear tool results older than the last 20
            for index, message in enumerate(view[:-20]):
                if message.role.value == "tool" and not message.content.startswith("[cleared"):
                    view[index] = message.evolve(content="[cleared: read_file]")
            ledger.checkpoint(view, "clearing")
    ledger.close()
    return ledger.session_id, message_bytes, time.perf_counter() - start


def main(sizes: list[int]) -> int:
    print(f"{'messages':>8} {'schema':>6} {'ledger MB':>10} {'÷ messages':>11} "
          f"{'write s':>8} {'resume s':>9} {'sessions s':>11}")
    for count in sizes:
        rows = []
        for kind, name in ((SchemaOneLedger, "1"), (SessionLedger, "2")):
            with tempfile.TemporaryDirectory() as tmp:
                home = HomePaths(Path(tmp) / "home")
                project = Path(tmp) / "project"
                project.mkdir()
                session, message_bytes, write_s = write_session(kind, home, project, count)
                size = home.session_ledger(session).stat().st_size
                resume_s = timed(lambda: SessionLedger.open(home, session).restore(), 3)  # noqa: B023
                list_s = timed(lambda: list_sessions(home), 3)  # noqa: B023
                rows.append((size, resume_s, list_s))
                print(f"{count:>8} {name:>6} {size / 1e6:>10.2f} {size / message_bytes:>10.1f}× "
                      f"{write_s:>8.2f} {resume_s:>9.3f} {list_s:>11.3f}")
        (s1, r1, l1), (s2, r2, l2) = rows
        print(f"{count:>8} {'1 ÷ 2':>6} {s1 / s2:>10.1f}× {'':>11} {'':>8} "
              f"{r1 / r2:>8.1f}× {l1 / l2:>10.1f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main([int(a) for a in sys.argv[1:]] or [500, 2000, 4000]))
