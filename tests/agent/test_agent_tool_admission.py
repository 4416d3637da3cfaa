"""Admitting tool results (redaction, offload, boundary) off the event loop, in call order.

A 20 MB result took about a second to redact and save; done on the event loop it froze the
TUI for that second. The heavy part runs in a worker thread now, while the saved outputs of a
parallel batch keep the numbers they get when the calls run one after another.
"""

from __future__ import annotations

import asyncio
import threading
import time

from agent_script import ScriptedClient, Step, call, drain
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from paicli_tui.core.agent import tool_calls
from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.contracts.tools import ToolOutput
from paicli_tui.core.messages import Role

BIG = 3_000_000


class Sized:
    """A read-only tool answering ``"x" * size`` after ``delay`` seconds (so a batch's calls
    finish in any order the test chooses)."""

    name, description, requires_approval = "read_file", "d", False
    parameters = {"type": "object"}

    async def run(self, arguments, context) -> ToolOutput:
        await asyncio.sleep(arguments["delay"])
        return ToolOutput(f"{arguments['n']}:" + "x" * arguments["size"])


async def _session(settings, project, steps) -> AgentSession:
    session = await AgentSession.start(settings, project, client=ScriptedClient(list(steps)))
    session.tools.add(Sized())
    return session


async def test_the_event_loop_keeps_running_while_a_large_result_is_redacted(
        settings, project_dir, monkeypatch) -> None:
    # Redaction of a 3 MB result waits (up to 10 s) for a heartbeat task on the loop to beat
    # three times. On the loop itself it can never see one, so the turn would stall the full
    # 10 s and report no beat; in a worker thread the beats come at once.
    beats = 0
    seen: list[tuple[int, bool]] = []
    real = tool_calls.redact_known

    def waiting_redact(text, secrets):
        if len(text) >= BIG:
            start, deadline = beats, time.monotonic() + 10
            while beats < start + 3 and time.monotonic() < deadline:
                time.sleep(0.001)
            seen.append((beats - start, threading.current_thread() is threading.main_thread()))
        return real(text, secrets)

    monkeypatch.setattr(tool_calls, "redact_known", waiting_redact)

    async def heartbeat() -> None:
        nonlocal beats
        while True:
            beats += 1
            await asyncio.sleep(0.001)

    steps = [Step(calls=[call("read_file", n=0, size=BIG, delay=0)]), Step(text="ok")]
    session = await _session(settings, project_dir, steps)
    ticking = asyncio.create_task(heartbeat())
    try:
        events = await drain(session.run_turn("read the big file"))
    finally:
        ticking.cancel()
    assert events[-1].reason == "done"
    assert len(seen) == 1
    beat, on_main_thread = seen[0]
    assert not on_main_thread and beat >= 3
    tool = next(m for m in session.history if m.role is Role.TOOL)
    assert tool.meta["offload_path"].endswith("/001-read_file.txt")
    saved = project_dir / tool.meta["offload_path"]
    assert saved.read_text() == "0:" + "x" * BIG


def _offload_paths(session: AgentSession) -> list[str | None]:
    return [m.meta.get("offload_path", "").rsplit("/", 1)[-1] or None
            for m in session.history if m.role is Role.TOOL]


# Sizes: under the offload threshold (32,000), just over it (admitted on the loop when it is
# the batch's only large one), and large enough that the batch goes to a worker thread.
_CALLS = st.lists(st.tuples(st.sampled_from([10, 40_000, 100_000]),
                            st.sampled_from([0, 0.001, 0.003, 0.006])),
                  min_size=1, max_size=6)


@hsettings(max_examples=20, deadline=None,
           suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(batch=_CALLS)
async def test_offload_numbers_of_a_parallel_batch_equal_the_serial_ones(
        settings, project_dir, batch) -> None:
    calls = [call("read_file", n=i, size=size, delay=delay)
             for i, (size, delay) in enumerate(batch)]
    parallel = await _session(settings, project_dir, [Step(calls=calls), Step(text="ok")])
    await drain(parallel.run_turn("all at once"))
    serial = await _session(settings, project_dir,
                            [Step(calls=[c]) for c in calls] + [Step(text="ok")])
    await drain(serial.run_turn("one by one"))
    numbers = iter(range(1, len(batch) + 1))
    expected = [f"{next(numbers):03d}-read_file.txt" if size > 32_000 else None
                for size, _ in batch]
    assert _offload_paths(parallel) == _offload_paths(serial) == expected
    # each saved file holds its own call's output
    for message in parallel.history:
        if message.role is Role.TOOL and message.meta.get("offload_path"):
            number = (project_dir / message.meta["offload_path"]).read_text().split(":", 1)[0]
            assert f'"n": {number}' in next(
                c.arguments for m in parallel.history for c in m.tool_calls
                if c.id == message.tool_call_id)


# The scans are cut into slices so the worker thread gives the loop its turn between them;
# what they find must not change where a slice edge falls.
@given(text=st.text(max_size=60), size=st.integers(1, 8))
def test_slices_put_together_give_the_text(text, size) -> None:
    from paicli_tui.core.text_slices import text_slices

    pieces = list(text_slices(text, size))
    assert "".join(pieces) == text and all(0 < len(p) <= size for p in pieces)


def test_a_secret_and_runs_across_a_slice_edge_are_found_whole() -> None:
    from paicli_tui.core.context.boundary import clean_text
    from paicli_tui.core.llm.redact import redact_known
    from paicli_tui.core.text_slices import SLICE_CHARS
    from paicli_tui.core.tokens import estimate_text

    key = "sk-Zq81mWv0Lr5TbN3xJd7Y"
    pad = " " * (SLICE_CHARS - 10)  # the key's reversed form starts 10 characters before the edge
    text = pad + key[::-1] + " tail"
    assert redact_known(text, [key]) == pad + "**** tail"
    cjk = "中" * 9 + "a" * (SLICE_CHARS - 9) + "文" * 6  # CJK runs on both sides of the edge
    assert estimate_text(cjk) == -(-(8 * 15 + 3 * (SLICE_CHARS - 9)) // 12)
    broken = "a" * (SLICE_CHARS - 1) + "\udcff\udcfe" + "b"
    assert clean_text(broken) == "a" * (SLICE_CHARS - 1) + "\ufffd\ufffd" + "b"


@given(text=st.text(alphabet="ab\r\n\x0b\x85\u2028", max_size=80), size=st.integers(1, 6),
       block=st.integers(1, 5))
def test_read_file_splits_and_numbers_in_steps_as_in_one(text, size, block) -> None:
    # read_file splits a whole file and numbers its lines a slice at a time (one split of a
    # 20 MB file held the interpreter ~0.1 s): the same lines and numbers as in one step.
    from paicli_tui.core.agent.tools import files

    real_slice, real_block = files.SLICE_CHARS, files.NUMBER_BLOCK
    files.SLICE_CHARS, files.NUMBER_BLOCK = size, block
    try:
        lines = files._split_lines(text)
        numbered = files._number(lines, 7)
    finally:
        files.SLICE_CHARS, files.NUMBER_BLOCK = real_slice, real_block
    assert lines == text.splitlines()
    assert numbered == "\n".join(f"{7 + i:>6}\t{line}" for i, line in enumerate(lines))


async def test_esc_while_a_large_result_is_admitted_keeps_the_calls_results(
        settings, project_dir, monkeypatch) -> None:
    # The calls have run (a command, an edit: done on disk) when their results are admitted
    # in the worker thread; Esc arriving then used to drop both results, and the history said
    # "this call was interrupted", so the model would run them again. The admission is
    # finished first (it is bounded: about a second for 20 MB), then the turn stops.
    redacting, release = threading.Event(), threading.Event()
    real = tool_calls.redact_known

    def held_redact(text, secrets):
        if len(text) >= BIG:
            redacting.set()
            release.wait(60)
        return real(text, secrets)

    monkeypatch.setattr(tool_calls, "redact_known", held_redact)
    steps = [Step(calls=[call("read_file", n=0, size=BIG, delay=0),
                         call("read_file", n=1, size=10, delay=0)]), Step(text="never")]
    session = await _session(settings, project_dir, steps)
    task = asyncio.create_task(drain(session.run_turn("read both")))
    assert await asyncio.to_thread(redacting.wait, 60)
    task.cancel()
    await asyncio.sleep(0.05)  # the cancel has reached the turn while the thread still works
    release.set()
    try:
        await task
    except asyncio.CancelledError:
        pass
    assert task.cancelled()
    tools = [m for m in session.history if m.role is Role.TOOL]
    assert [m.meta.get("offload_path", "").rsplit("/", 1)[-1] for m in tools] == [
        "001-read_file.txt", ""]
    assert "1:xxxxxxxxxx" in tools[1].content and "interrupted" not in tools[1].content
    assert (project_dir / tools[0].meta["offload_path"]).read_text() == "0:" + "x" * BIG
    restored = [m for m in session.ledger.restore().messages if m.role is Role.TOOL]
    assert [m.content for m in restored] == [m.content for m in tools]


@given(parts=st.lists(st.sampled_from(["ab", "C-d", " ", "Zq81", "mW", "\n", "é", "x9"]),
                      max_size=40),
       size=st.integers(1, 7))
def test_transformed_keys_are_placed_the_same_slice_by_slice(parts, size) -> None:
    # A found key is placed by looking in its own slice only (listing every character of a
    # 20 MB text took 3 s): the same spans as one pass over the whole text.
    from paicli_tui.core.llm.redact import _transformed_spans, _variants

    text = "".join(parts)
    variants = ["abcd", "zq81mw", "x9ab", *_variants("Zq81mWab-cdx9x9")]
    assert (_transformed_spans(text, variants, size)
            == _transformed_spans(text, variants, len(text) + 1))
