"""Context-engine benchmark: the pre-request check and each compaction tier.

A synthetic session of ~2,000 messages and ~1M estimated tokens (English and Chinese text,
parallel tool calls, large tool results). Prints figures; asserts nothing.

    python benchmarks/bench_context.py

Main figure: the cost of the check before a request when one message was appended, as a
ratio to serialising that request to JSON (target: at most 0.1).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from paicli_tui.config import Settings
from paicli_tui.core.context.boundary import wrap_tool_result
from paicli_tui.core.context.clearing import clear_tool_results
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.context.manager import ContextManager
from paicli_tui.core.context.offload import offload_tool_result
from paicli_tui.core.context.profile import ContextProfile
from paicli_tui.core.context.summary import summarise_history
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.messages import Message, ToolCall, to_openai_messages
from paicli_tui.core.tokens import estimate_request
from paicli_tui.paths import HomePaths, ProjectPaths

SUMMARY = ("## 1. Current goal and success criteria\ngoal\n"
           "## 2. User requirements and confirmed decisions\nreqs\n"
           "## 3. Work done and evidence\nwork\n## 4. Open problems and next steps\nnext\n")

ZH = "请把登录模块里的会话过期逻辑改成可配置的，并补充单元测试。"
EN = "public final class SessionManager { private final Duration ttl; } // refresh tokens\n"


def synthetic_session(target_messages: int = 2_000) -> list[Message]:
    """About ``target_messages`` messages and ~1M estimated tokens."""
    msgs = [Message.system("You are a coding agent. " * 200)]
    turn = 0
    while len(msgs) < target_messages:
        turn += 1
        msgs.append(Message.user(f"turn {turn}: {ZH * 3}"))
        for rnd in range(3):
            calls = [ToolCall(f"c{turn}_{rnd}_{k}", "read_file", f'{{"path": "src/F{k}.java"}}')
                     for k in range(2)]
            msgs.append(Message.assistant(f"Reading files for step {rnd}.", tool_calls=calls))
            for call in calls:
                body = EN * 36 + ZH * 8
                msgs.append(Message.tool(call.id, "read_file",
                                         wrap_tool_result("read_file", body)))
        msgs.append(Message.assistant(f"Done with turn {turn}. " + EN * 5))
    return msgs


def timed(fn: Callable[[], object], repeat: int = 5) -> float:
    """Median seconds of ``repeat`` runs."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


async def fake_summariser(system_prompt: str, user_text: str) -> str:
    return SUMMARY


def main() -> int:
    msgs = synthetic_session()
    chars = sum(len(m.content) for m in msgs)
    cold_start = time.perf_counter()
    tokens = estimate_request(msgs)
    cold = time.perf_counter() - cold_start
    print(f"session: {len(msgs):,} messages, {chars:,} characters, {tokens:,} estimated tokens")
    print(f"cold estimate (no memo):                 {cold * 1e3:8.2f} ms")

    # The check before a request, after one message was appended. Triggers out of reach keep
    # every tier idle, so this measures the check itself (estimate, trigger test, pairing).
    settings = Settings()
    unreachable = replace(ContextProfile.for_window(1_000_000), clearing_trigger=10**12,
                          compaction_trigger=10**12 + 1)
    idle = ContextManager(settings, unreachable)
    # Measured inside one running event loop, as the agent loop calls it.
    loop = asyncio.new_event_loop()
    history = list(msgs)
    loop.run_until_complete(idle.prepare(history))
    checks, dumps = [], []
    for i in range(30):
        history.append(Message.user(f"one more question {i} {ZH}") if i % 2 == 0
                       else Message.assistant(f"an answer {i}"))
        start = time.perf_counter()
        loop.run_until_complete(idle.prepare(history))
        checks.append(time.perf_counter() - start)
        start = time.perf_counter()
        json.dumps({"model": "m", "messages": to_openai_messages(history)}, ensure_ascii=False)
        dumps.append(time.perf_counter() - start)
    check, dump = statistics.median(checks), statistics.median(dumps)
    print(f"pre-request check, one new message:      {check * 1e3:8.2f} ms")
    print(f"json.dumps of the same request:          {dump * 1e3:8.2f} ms")
    print(f"ratio check / json.dumps:                {check / dump:8.3f} (target <= 0.1)")

    # Tier 1: one huge tool result (1 MB) offloaded to a file.
    with tempfile.TemporaryDirectory() as tmp:
        project = ProjectPaths.for_dir(tmp)
        session = SessionState("bench")
        big = EN * 12_000
        t1 = timed(lambda: offload_tool_result(tool_name="execute_command", content=big,
                                               arguments={}, project=project, session=session,
                                               settings=settings, is_command=True))
        print(f"tier 1 offload of {len(big):,} chars:        {t1 * 1e3:8.2f} ms")

        # The check on a 1M window once clearing has run: clearing finds nothing new each time.
        steady = ContextManager(settings, ContextProfile.for_window(1_000_000), fake_summariser)
        view = asyncio.run(steady.prepare(list(msgs))).messages
        view.append(Message.user("next"))
        ts = timed(lambda: loop.run_until_complete(steady.prepare(view)), repeat=10)
        print(f"steady check on 1M window after clearing: {ts * 1e3:7.2f} ms "
              f"({estimate_request(view):,} tokens, over the clearing trigger)")

        # Tier 2 on the full session.
        t2 = timed(lambda: clear_tool_results(msgs))
        cleared, report = clear_tool_results(msgs)
        print(f"tier 2 clearing ({report.detail}): {t2 * 1e3:.2f} ms, "
              f"{report.tokens_before:,} -> {report.tokens_after:,} tokens")

        # Tier 3 with an instant summariser: the engine's own cost (render, chunk, rebuild).
        t3 = timed(lambda: asyncio.run(summarise_history(cleared, fake_summariser)), repeat=3)
        _, report3 = asyncio.run(summarise_history(cleared, fake_summariser))
        print(f"tier 3 summary, model time excluded:     {t3 * 1e3:8.2f} ms, "
              f"{report3.tokens_before:,} -> {report3.tokens_after:,} tokens")

        # The whole manager on a 128k window, where the session is over both triggers.
        real = ContextManager(settings, ContextProfile.for_window(128_000), fake_summariser)
        tm = timed(lambda: asyncio.run(real.prepare(list(msgs))), repeat=3)
        prepared = asyncio.run(real.prepare(list(msgs)))
        print(f"manager.prepare over both triggers:      {tm * 1e3:8.2f} ms, "
              f"{[r.tier for r in prepared.reports]} -> {prepared.estimated_tokens:,} tokens")

        # Ledger: append one message + checkpoint the whole view (refs for known messages).
        ledger = SessionLedger.create(HomePaths(Path(tmp) / "home"), Path(tmp))
        for m in msgs:
            ledger.append(m)
        ledger.checkpoint(msgs, "bench")
        view = list(msgs)

        def one_step() -> None:
            extra = Message.assistant("x")
            view.append(extra)
            ledger.append(extra)
            ledger.checkpoint(view, "append")

        tl = timed(one_step, repeat=10)
        print(f"ledger append + full-view checkpoint:    {tl * 1e3:8.2f} ms "
              f"(file {ledger.path.stat().st_size / 1e6:.1f} MB)")
    loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
