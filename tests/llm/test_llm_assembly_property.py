"""Invariant: however a provider splits and interleaves tool-call deltas, assembly gives back
exactly the calls it meant (ids, names, argument text), in index order."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.core.llm.assembly import ReplyAssembler

_ARGS = st.dictionaries(st.text(min_size=1, max_size=8),
                        st.one_of(st.integers(), st.text(max_size=30), st.booleans()),
                        max_size=4)
_CALL = st.tuples(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), _ARGS, st.booleans())


@settings(max_examples=150, deadline=None)
@given(calls=st.lists(_CALL, min_size=1, max_size=4), data=st.data())
def test_split_and_interleaved_deltas_reassemble(calls, data) -> None:
    pieces = []  # (index, chunk dict) in emission order per call
    expected = []
    for index, (name, arguments, has_id) in enumerate(calls):
        text = json.dumps(arguments, ensure_ascii=False)
        cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
        parts = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        call_id = f"id_{index}" if has_id else None
        first = {"index": index, "function": {"name": name, "arguments": parts[0]}}
        if call_id:
            first["id"] = call_id
        pieces.append([first] + [{"index": index, "function": {"arguments": p}}
                                 for p in parts[1:]])
        expected.append((call_id or f"call_{index}", name, text.strip() or "{}"))
    # interleave the calls' pieces in a random order that keeps each call's own order
    order = data.draw(st.permutations([i for i, p in enumerate(pieces) for _ in p]))
    cursors = [0] * len(pieces)
    assembler = ReplyAssembler()
    for index in order:
        chunk = pieces[index][cursors[index]]
        cursors[index] += 1
        assembler.feed({"choices": [{"index": 0, "delta": {"tool_calls": [chunk]}}]})
    assembler.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    done = assembler.finish()
    assert [(c.id, c.name, c.arguments) for c in done.tool_calls] == expected
    for call in done.tool_calls:
        json.loads(call.arguments)
