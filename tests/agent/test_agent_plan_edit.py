"""The person's edit of a plan's JSON is the JSON object alone: a sentence typed before or
after it was dropped without a word; it is refused now, quoted with its line."""

from __future__ import annotations

import pytest

from paicli_tui.core.agent.plan import PlanError
from paicli_tui.core.agent.plan_edit import parse_edited_plan

TASKS = '{"tasks": [{"id": "look", "title": "Look around", "task": "Read it."}]}'


@pytest.mark.parametrize("text", [TASKS, f"\n  {TASKS}\n\n", f"{TASKS}\n"])
def test_the_object_alone_runs(text) -> None:
    assert [t.id for t in parse_edited_plan("goal", text).tasks] == ["look"]


@pytest.mark.parametrize(("text", "reason"), [
    (f"Please also run the tests.\n{TASKS}",
     "there is text before the JSON object, on line 1: 'Please also run the tests.'"),
    (f"{TASKS}\n\nand do not touch the docs",
     "there is text after the JSON object, on line 3: 'and do not touch the docs'"),
    (f"```json\n{TASKS}\n```", "there is text before the JSON object, on line 1: '```json'"),
    (f"{TASKS}\n{TASKS}", "there is text after the JSON object, on line 2: '{\"tasks\": "
     "[{\"id\": \"look\", \"title\": \"Look around\", \"task\": \"…'"),
    ("no plan here", 'the plan must be one JSON object, {"tasks": [...]}'),
    ('{"tasks": [', "the plan is not valid JSON (Expecting value: line 1 column 12"),
])
def test_text_outside_the_object_is_refused_with_where_it_is(text, reason) -> None:
    with pytest.raises(PlanError) as refused:
        parse_edited_plan("goal", text)
    assert str(refused.value).startswith(reason)
