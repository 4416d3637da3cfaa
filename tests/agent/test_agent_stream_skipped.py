"""Unreadable lines in a provider's stream: the reply keeps what arrived, and the person is
told once, after the reply (an event the TUI and exec show, a record in the session file)."""

from __future__ import annotations

import httpx
import pytest
from agent_script import drain
from doubles.llm_replay import Replay, client_for, delta, sse, text_reply

from paicli_tui.core.agent.ledger_events import ledger_events
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.contracts.events import (
    AssistantMessage,
    StreamLinesSkipped,
    TurnFinished,
    skipped_lines_notice,
)


@pytest.mark.parametrize("garbled", [0, 1, 40])
async def test_one_notice_per_reply_after_it(settings, project_dir, garbled: int) -> None:
    chunks = [delta(content="The build "), *["{garbled"] * garbled, delta(content="uses make."),
              delta(finish="stop")]
    replay = Replay([httpx.Response(200, content=sse(chunks)),
                     *[httpx.Response(200, content=text_reply("[]")) for _ in range(4)]])
    session = await AgentSession.start(settings, project_dir, client=client_for(replay))
    events = await drain(session.run_turn("how is it built?"))
    skipped = [e for e in events if isinstance(e, StreamLinesSkipped)]
    assert skipped == ([StreamLinesSkipped(provider="deepseek", count=garbled)]
                       if garbled else [])
    kinds = [type(e) for e in events]
    if garbled:  # after the reply it is about, before the turn ends
        assert kinds.index(AssistantMessage) < kinds.index(StreamLinesSkipped) \
            < kinds.index(TurnFinished)
    assert events[-1].final_text == "The build uses make."
    recorded = ledger_events(SessionLedger.open(settings.home, session.session_id).path,
                             "stream_lines_skipped")
    assert [(r["provider"], r["count"]) for r in recorded] == \
        ([("deepseek", garbled)] if garbled else [])
    await session.aclose()


@pytest.mark.parametrize(("count", "words"), [(1, "sent 1 line of"), (40, "sent 40 lines of"),
                                              (2500, "sent 2,500 lines of")])
def test_the_notice_counts_lines(count: int, words: str) -> None:
    text = skipped_lines_notice(StreamLinesSkipped(provider="deepseek", count=count))
    assert text.startswith(f"deepseek {words} this reply's stream")


def test_exec_shows_it_on_stderr_and_in_json() -> None:
    import io
    import json

    from paicli_tui.commands.exec_cmd import _Printer

    event = StreamLinesSkipped(provider="deepseek", count=3)
    out, err = io.StringIO(), io.StringIO()
    _Printer(as_json=False, out=out, err=err).emit(event)
    assert "[stream] deepseek sent 3 lines" in err.getvalue() and out.getvalue() == ""
    out = io.StringIO()
    _Printer(as_json=True, out=out, err=err).emit(event)
    record = json.loads(out.getvalue())
    assert (record["type"], record["count"], record["provider"]) == \
        ("stream_lines_skipped", 3, "deepseek")
