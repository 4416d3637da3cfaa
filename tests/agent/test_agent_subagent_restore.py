"""A resumed session reads each sub-agent's final numbers from its own stream; a stream written
before those numbers were recorded is counted from its messages, and a hand-edited record
never breaks the resume."""

from __future__ import annotations

import math

import pytest

from paicli_tui.core.agent.subagent_record import (
    FINISHED_EVENT,
    SubAgentRecord,
    restored_subagents,
)
from paicli_tui.core.context.ledger import SessionLedger
from paicli_tui.core.messages import Message


def _parent_with_child(settings, project_dir, finished: dict | None) -> SessionLedger:
    parent = SessionLedger.create(settings.home, project_dir, "parent")
    child_id = f"{parent.session_id}.sub-1"
    child = SessionLedger.create(settings.home, project_dir, "sub-agent: look",
                                 parent=parent.session_id, session_id=child_id)
    for message in (Message.system("be brief"), Message.user("look around"),
                    Message.assistant("all is well")):
        child.append(message)
    if finished is not None:
        child.event(FINISHED_EVENT, **finished)
    child.close()
    parent.event("subagent", child=child_id, label="look", read_only=True, call_id="c1")
    return parent


def test_final_numbers_come_back_as_recorded(settings, project_dir) -> None:
    record = SubAgentRecord("x", "look", status="done", messages=3, history_tokens=2_300,
                            requests=1, prompt_tokens=2_250, completion_tokens=40,
                            elapsed_s=1.5)
    parent = _parent_with_child(settings, project_dir, None)
    child = SessionLedger.open(settings.home, f"{parent.session_id}.sub-1")
    record.write_finished(child)
    child.close()
    _, [restored] = restored_subagents(settings.home, parent)
    assert (restored.status, restored.messages, restored.history_tokens, restored.requests,
            restored.prompt_tokens, restored.completion_tokens, restored.elapsed_s,
            restored.call_id) == ("done", 3, 2_300, 1, 2_250, 40, 1.5, "c1")
    parent.close()


def test_a_stream_without_final_numbers_is_counted_from_its_messages(settings,
                                                                      project_dir) -> None:
    parent = _parent_with_child(settings, project_dir, None)
    _, [restored] = restored_subagents(settings.home, parent)
    assert (restored.status, restored.messages, restored.requests, restored.tool_calls) == (
        "done", 3, 1, 0)
    assert 0 < restored.history_tokens < 100  # three short messages, no tool schemas
    parent.close()


@pytest.mark.parametrize(("finished", "expected"), [
    ({"status": "weird", "history_tokens": "lots", "messages": True, "elapsed_s": None},
     ("failed", 0, 0, 0.0)),
    ({"status": "cancelled", "history_tokens": 1_200.7, "messages": 4, "elapsed_s": 2},
     ("cancelled", 1_200, 4, 2.0)),
    ({}, ("failed", 0, 0, 0.0)),
    # JSON readers accept Infinity and NaN (1e999 reads as Infinity); int() of either raised
    ({"status": "done", "history_tokens": math.inf, "messages": math.nan,
      "elapsed_s": math.inf}, ("done", 0, 0, 0.0)),
    ({"status": "done", "history_tokens": -2_300, "messages": -3, "elapsed_s": -1.5},
     ("done", 0, 0, 0.0)),
])
def test_a_hand_edited_final_record_never_breaks_the_resume(settings, project_dir, finished,
                                                            expected) -> None:
    parent = _parent_with_child(settings, project_dir, finished)
    _, [restored] = restored_subagents(settings.home, parent)
    assert (restored.status, restored.history_tokens, restored.messages,
            restored.elapsed_s) == expected
    parent.close()


def test_a_ledger_that_cannot_be_written_loses_only_the_final_numbers(settings, project_dir,
                                                                      caplog) -> None:
    class Broken:
        def event(self, kind: str, **data: object) -> None:
            raise OSError("disk full")

    SubAgentRecord("s.sub-1", "look").write_finished(Broken())  # type: ignore[arg-type]
    assert "final numbers not recorded: disk full" in caplog.text
