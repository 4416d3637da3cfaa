"""Property tests: every tier keeps a provider-valid history and the parts it must not touch.

Random valid histories with parallel tool calls (results in any order), internal user
messages (skills, runaway-guard notices, earlier summaries), images and huge results.
"""

from __future__ import annotations

import asyncio

from ctx_fakes import BEHAVIOURS, VALID_SUMMARY, SummaryModel
from doubles.completers import ScriptedCompleter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paicli_tui.config import Settings
from paicli_tui.core.context.boundary import wrap_tool_result
from paicli_tui.core.context.clearing import clear_tool_results, is_cleared
from paicli_tui.core.context.manager import ContextManager
from paicli_tui.core.context.pairing import pairing_problems, repair_pairing
from paicli_tui.core.context.profile import ContextProfile
from paicli_tui.core.context.summary import SummaryOptions, find_cut, summarise_history
from paicli_tui.core.messages import ImagePart, InternalKind, Message, Role, ToolCall

_SIZES = st.sampled_from([0, 10, 399, 400, 2_000, 40_000])
_TEXT = st.text(alphabet="ab 中文\n<>/_", max_size=20)


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    msgs = [Message.system("system " + draw(_TEXT)) for _ in range(draw(st.integers(1, 2)))]
    call_no = 0
    for _ in range(draw(st.integers(0, 9))):
        kind = draw(st.sampled_from(["user", "user", "user", "skill", "guard", "summary"]))
        if kind == "user":
            images = [ImagePart(url="http://img")] if draw(st.booleans()) and \
                draw(st.booleans()) else []
            msgs.append(Message.user("ask " + draw(_TEXT) * draw(_SIZES), images=images))
        elif kind == "skill":
            msgs.append(Message(Role.USER, "skill body", internal=InternalKind.SKILL,
                                meta={"skill": draw(st.sampled_from(["a", "b"]))}))
        elif kind == "guard":
            msgs.append(Message.user("stop repeating", internal=InternalKind.RUNAWAY_GUARD))
        else:
            msgs.append(Message.user(VALID_SUMMARY, internal=InternalKind.SUMMARY))
            msgs.append(Message.assistant("ok"))
            continue
        for _ in range(draw(st.integers(0, 3))):  # tool rounds in this turn
            width = draw(st.integers(1, 3))
            calls = []
            for _ in range(width):
                call_no += 1
                calls.append(ToolCall(f"call_{call_no}", draw(st.sampled_from(
                    ["read_file", "grep_code", "execute_command"])), '{"a": 1}'))
            msgs.append(Message.assistant(draw(_TEXT), tool_calls=calls))
            order = draw(st.permutations(calls))
            for call in order:
                body = "r" * draw(_SIZES)
                msgs.append(Message.tool(call.id, call.name, wrap_tool_result(call.name, body)))
        msgs.append(Message.assistant("done " + draw(_TEXT)))
    return msgs


def _systems(msgs: list[Message]) -> list[dict]:
    return [m.to_record() for m in msgs if m.role is Role.SYSTEM]


def _records(msgs: list[Message]) -> list[dict]:
    return [m.to_record() for m in msgs]


PROPS = settings(max_examples=400, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@PROPS
@given(histories())
def test_generated_histories_are_valid(msgs: list[Message]) -> None:
    assert pairing_problems(msgs) == []
    out, notes = repair_pairing(msgs)
    assert notes == [] and out == msgs


@PROPS
@given(histories(), st.integers(0, 4))
def test_clearing_properties(msgs: list[Message], keep: int) -> None:
    before = _records(msgs)
    out, report = clear_tool_results(msgs, keep_recent=keep)
    assert _records(msgs) == before  # input untouched
    assert pairing_problems(out) == []
    assert [(m.id, m.role, m.tool_call_id) for m in out] == \
        [(m.id, m.role, m.tool_call_id) for m in msgs]
    assert _systems(out) == _systems(msgs)
    tools = [i for i, m in enumerate(msgs) if m.role is Role.TOOL]
    for i in tools[len(tools) - keep:] if keep else []:
        assert out[i] is msgs[i]
    for a, b in zip(msgs, out, strict=True):
        if a is not b:
            assert a.role is Role.TOOL and is_cleared(b) and not is_cleared(a)
            assert len(a.content) >= 400
    assert report.tokens_after <= report.tokens_before


@PROPS
@given(histories(), st.sampled_from([1, 3]))
def test_summary_properties(msgs: list[Message], keep: int) -> None:
    before = _records(msgs)
    fake = ScriptedCompleter(VALID_SUMMARY)
    out, report = asyncio.run(summarise_history(msgs, fake, SummaryOptions(keep_user_turns=keep)))
    assert _records(msgs) == before
    assert pairing_problems(out) == []
    cut = find_cut(msgs, keep)
    if not report.changed:
        assert _records(out) == before
        return
    assert cut is not None
    tail = msgs[cut:]
    assert _records(out[len(out) - len(tail):]) == _records(tail)
    assert _systems(out) == _systems(msgs[:cut]) + _systems(tail)
    n_sys = len(_systems(msgs[:cut]))
    assert out[n_sys].internal is InternalKind.SUMMARY
    assert out[n_sys + 1].role is Role.ASSISTANT and not out[n_sys + 1].tool_calls
    assert report.tokens_after < report.tokens_before
    assert sum(m.is_real_user_turn for m in out) == keep


@PROPS
@given(histories(), st.sampled_from([8_000, 32_000]), st.booleans())
def test_manager_prepare_properties(msgs: list[Message], window: int, force: bool) -> None:
    manager = ContextManager(Settings(), ContextProfile.for_window(window),
                             ScriptedCompleter(VALID_SUMMARY))
    before = _records(msgs)
    prepared = asyncio.run(manager.prepare(msgs, force=force))
    out = prepared.messages
    assert _records(msgs) == before
    assert pairing_problems(out) == []
    assert _systems(out) == _systems(msgs)
    last_user = max((i for i, m in enumerate(msgs) if m.is_real_user_turn), default=None)
    if last_user is not None:
        tail = msgs[last_user:]
        kept = out[len(out) - len(tail):]
        assert [(m.id, m.role, m.tool_call_id) for m in kept] == \
            [(m.id, m.role, m.tool_call_id) for m in tail]
        for a, b in zip(tail, kept, strict=True):
            # unchanged, cleared, or (above the message threshold) offloaded with a notice
            assert a.to_record() == b.to_record() or (a.role is Role.TOOL and is_cleared(b)) \
                or ("[Large " in b.content and len(b.content) < len(a.content))


@st.composite
def heavy_histories(draw: st.DrawFn) -> list[Message]:
    """Histories with, now and then, a huge reply, a huge tool argument, long reasoning."""
    msgs = draw(histories())
    for _ in range(draw(st.integers(0, 3))):
        size = draw(st.sampled_from([5_000, 60_000, 400_000]))
        kind = draw(st.sampled_from(["reply", "argument", "reasoning", "paste"]))
        if kind == "reply":
            msgs += [Message.user("go"), Message.assistant("R" * size)]
        elif kind == "reasoning":
            msgs += [Message.user("think"), Message.assistant("ok", reasoning="T" * size)]
        elif kind == "paste":
            msgs += [Message.user("paste " + "中" * (size // 2)), Message.assistant("seen")]
        else:
            call = ToolCall(f"w{len(msgs)}", "write_file",
                            '{"path": "a.txt", "content": "' + "c" * size + '"}')
            msgs += [Message.user("write"), Message.assistant(tool_calls=[call]),
                     Message.tool(call.id, "write_file", wrap_tool_result("write_file", "ok")),
                     Message.assistant("written")]
    return msgs


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(heavy_histories(), st.sampled_from(sorted(BEHAVIOURS)),
       st.sampled_from([4_000, 8_000, 32_000]), st.booleans())
def test_any_summariser_any_history_fits_the_window(msgs: list[Message], behaviour: str,
                                                    window: int, force: bool) -> None:
    """Whatever the summariser does, the request handed back is within the window with a
    valid pairing, or it is refused with a reason (and then it is not sent)."""
    import tempfile
    from dataclasses import replace
    from pathlib import Path

    from paicli_tui.core.context.offload import output_saver
    from paicli_tui.core.contracts.session_state import SessionState
    from paicli_tui.core.llm.complete import completer_for
    from paicli_tui.paths import ProjectPaths

    model = SummaryModel(behaviour)
    with tempfile.TemporaryDirectory() as folder:
        manager = ContextManager(
            replace(Settings(), summary_timeout_s=0.05), ContextProfile.for_window(window),
            completer_for(model, ()),
            save_output=output_saver(ProjectPaths.for_dir(Path(folder)), SessionState("p")))
        prepared = asyncio.run(manager.prepare(msgs, force=force))
    assert pairing_problems(prepared.messages) == []
    assert len(model.requests) <= 8
    if prepared.overflow is None:
        assert prepared.estimated_tokens <= window
    else:
        assert prepared.estimated_tokens > window and "Not sent" in prepared.overflow
