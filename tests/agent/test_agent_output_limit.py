"""A reply the provider ends at the model's output limit (finish reason "length") or stops
with its content filter ("content_filter", GLM's "sensitive"): the person is told why it ends
there, and a tool call cut off in its arguments is not sent back to the
model as bad JSON but as the limit, with how to write less at once. Faked at the protocol:
the real client reads the SSE a provider sends."""

from __future__ import annotations

import io
import json

import httpx
import pytest
from agent_script import drain
from doubles.llm_replay import Replay, client_for, delta, sse, text_reply

from paicli_tui.commands.exec_cmd import _Printer
from paicli_tui.core.agent.ledger_events import ledger_events
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.contracts.events import (
    AgentError,
    AssistantMessage,
    ReplyAtOutputLimit,
    ReplyFiltered,
    TurnFinished,
    filtered_notice,
    output_limit_notice,
)

LONG_FILE = json.dumps({"path": "big.py", "content": "print('a')\n" * 40})


def _call(arguments: str, index: int = 0, call_id: str = "c1") -> dict:
    return delta(tool_calls=[{"index": index, "id": call_id, "type": "function",
                              "function": {"name": "write_file", "arguments": arguments}}])


def _facts() -> list[httpx.Response]:
    """Answers to the background requests after the turn (fact extraction)."""
    return [httpx.Response(200, content=text_reply("[]")) for _ in range(4)]


async def test_a_call_cut_in_its_arguments_is_told_as_the_limit(settings, project_dir) -> None:
    cut = sse([_call(LONG_FILE[:60]), delta(finish="length")])
    replay = Replay([httpx.Response(200, content=cut),
                     httpx.Response(200, content=text_reply("I will write it in parts.")),
                     *_facts()])
    session = await AgentSession.start(settings, project_dir, client=client_for(replay))
    events = await drain(session.run_turn("write big.py"))
    limits = [e for e in events if isinstance(e, ReplyAtOutputLimit)]
    assert limits == [ReplyAtOutputLimit(provider="deepseek", cut_calls=("write_file",))]
    assert events[-1].reason == "done" and not (project_dir / "big.py").exists()
    # the second request: the call's result, then the notice naming the limit
    second = replay.bodies()[1]["messages"]
    assert second[-2]["role"] == "tool" and "not valid JSON" in second[-2]["content"]
    assert second[-1]["role"] == "user" and "output limit" in second[-1]["content"]
    assert "write_file" in second[-1]["content"]
    recorded = ledger_events(SessionLedger.open(settings.home, session.session_id).path,
                             "reply_at_output_limit")
    assert [(r["provider"], r["cut_calls"]) for r in recorded] == [("deepseek", ["write_file"])]
    await session.aclose()


@pytest.mark.parametrize(("finish", "said"), [
    ("length", ReplyAtOutputLimit(provider="deepseek")),
    # the provider's content filter (OpenAI, Qwen; GLM says "sensitive")
    ("content_filter", ReplyFiltered(provider="deepseek", finish_reason="content_filter")),
    ("sensitive", ReplyFiltered(provider="deepseek", finish_reason="sensitive")),
])
async def test_an_answer_stopped_early_says_why_after_it(settings, project_dir, finish,
                                                         said) -> None:
    cut = sse([delta(content="The build uses make, and the tests"), delta(finish=finish)])
    replay = Replay([httpx.Response(200, content=cut), *_facts()])
    session = await AgentSession.start(settings, project_dir, client=client_for(replay))
    events = await drain(session.run_turn("how is it built?"))
    kinds = [type(e) for e in events]
    assert kinds.index(AssistantMessage) < kinds.index(type(said)) < kinds.index(TurnFinished)
    assert [e for e in events if isinstance(e, type(said))] == [said]
    assert events[-1].final_text == "The build uses make, and the tests"
    assert len(replay.bodies()) == 1  # nothing sent to the model on its own
    recorded = ledger_events(SessionLedger.open(settings.home, session.session_id).path,
                             said.type)
    assert len(recorded) == 1
    await session.aclose()


async def test_a_reply_filtered_before_a_word_is_not_called_empty(settings,
                                                                  project_dir) -> None:
    stopped = sse([delta(content=""), delta(finish="sensitive")])
    replay = Replay([httpx.Response(200, content=stopped)])
    session = await AgentSession.start(settings, project_dir,
                                       client=client_for(replay, provider="glm"))
    events = await drain(session.run_turn("explain this file"))
    assert [e.message for e in events if isinstance(e, AgentError)] == [
        "glm stopped the reply with finish reason 'sensitive' (its content filter) before "
        "any answer or tool call"]
    await session.aclose()


@pytest.mark.parametrize(("finish", "options"), [
    ("stop", {}),
    ("tool_calls", {}),
    # the client's own cap: its note in the text already says why the reply ends there
    ("stop", {"max_reply_chars": 20}),
])
async def test_no_notice_when_the_provider_did_not_stop_at_its_limit(
        settings, project_dir, finish, options) -> None:
    reply = sse([delta(content="A whole answer that is longer than twenty characters."),
                 delta(finish=finish)])
    replay = Replay([httpx.Response(200, content=reply), *_facts()])
    session = await AgentSession.start(settings, project_dir,
                                       client=client_for(replay, **options))
    events = await drain(session.run_turn("hello"))
    assert not [e for e in events if isinstance(e, ReplyAtOutputLimit)]
    await session.aclose()


@pytest.mark.parametrize(("event", "words"), [
    (ReplyAtOutputLimit("glm"),
     "The reply stopped at glm's output limit (finish reason \"length\"), so it may end "
     "mid-sentence. Say 'continue' to have the model go on."),
    (ReplyAtOutputLimit("glm", cut_calls=("write_file",)),
     "The reply stopped at glm's output limit (finish reason \"length\"): the call to "
     "write_file was cut off in the arguments and did not run; the model is told to write "
     "less in one reply."),
    (ReplyAtOutputLimit("glm", cut_calls=("write_file", "edit_file")),
     "The reply stopped at glm's output limit (finish reason \"length\"): the calls to "
     "write_file, edit_file were cut off in the arguments and did not run; the model is "
     "told to write less in one reply."),
    (ReplyAtOutputLimit("glm", other_calls=2),
     "The reply stopped at glm's output limit (finish reason \"length\"); its tool calls "
     "arrived whole and run."),
])
def test_what_the_person_is_told(event: ReplyAtOutputLimit, words: str) -> None:
    assert output_limit_notice(event) == words


def test_what_is_said_of_a_filtered_reply_and_where() -> None:
    event = ReplyFiltered(provider="qwen", finish_reason="content_filter")
    assert filtered_notice(event) == (
        "qwen stopped the reply with finish reason 'content_filter' (its content filter), so "
        "it may be incomplete; rewording the request, or the file it quotes, may get past it.")
    out, err = io.StringIO(), io.StringIO()
    _Printer(as_json=False, out=out, err=err).emit(event)
    assert err.getvalue().startswith("[reply] qwen stopped the reply")
    out = io.StringIO()
    _Printer(as_json=True, out=out, err=err).emit(event)
    assert json.loads(out.getvalue())["type"] == "reply_filtered"


def test_exec_shows_it_on_stderr_and_in_json() -> None:
    event = ReplyAtOutputLimit(provider="glm", cut_calls=("write_file",))
    out, err = io.StringIO(), io.StringIO()
    _Printer(as_json=False, out=out, err=err).emit(event)
    assert err.getvalue().startswith("[reply] The reply stopped at glm's output limit")
    assert out.getvalue() == ""
    out = io.StringIO()
    _Printer(as_json=True, out=out, err=err).emit(event)
    record = json.loads(out.getvalue())
    assert (record["type"], record["cut_calls"]) == ("reply_at_output_limit", ["write_file"])
