"""One path for the person's answer to a memory conflict (behaviour §12), and exit code 3 from the
typed tool status."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from paicli_tui.config import Settings
from paicli_tui.core.contracts import events as ev
from paicli_tui.core.contracts.asks import ConflictDecision
from paicli_tui.core.contracts.tools import ToolOutput, ToolStatus
from paicli_tui.core.memory.decision import carry_out
from paicli_tui.core.memory.service import LocalMemoryService


@pytest.fixture
def service(settings: Settings, project_dir: Path) -> LocalMemoryService:
    return LocalMemoryService(settings, project_dir, use_vectors=False)


@pytest.mark.parametrize(("decision", "pick", "status", "contents"), [
    (ConflictDecision.REPLACE, "chosen", "replaced", ["Node 20", "uses Java 17"]),
    (ConflictDecision.REPLACE, None, "replaced", ["Node 20", "uses Java 17"]),
    (ConflictDecision.KEEP_BOTH, None, "saved", ["Node 18", "uses Java 17", "Node 20"]),
    (ConflictDecision.CANCEL, None, "cancelled", ["Node 18", "uses Java 17"]),
])
def test_each_answer_does_one_thing_to_the_store(
        service: LocalMemoryService, decision: ConflictDecision, pick: str | None, status: str,
        contents: list[str]) -> None:
    old = service.save("Node 18").entry
    service.save("uses Java 17")
    found = service.save("Node 20")
    assert found.status == "conflict" and [e.id for e in found.conflicts] == [old.id]
    result = carry_out(service, "Node 20", decision,
                       replace_id=old.id if pick else None,
                       conflicting=[e.id for e in found.conflicts])
    assert result.status == status
    assert [e.content for e in service.list_visible()] == contents


def test_replace_without_any_id_is_refused_and_writes_nothing(
        service: LocalMemoryService) -> None:
    service.save("Node 18")
    result = carry_out(service, "Node 20", ConflictDecision.REPLACE)
    assert result.status == "refused" and not result.written
    assert [e.content for e in service.list_visible()] == ["Node 18"]


def test_replace_still_refused_while_another_memory_conflicts(
        service: LocalMemoryService) -> None:
    first = service.save("Node 18").entry
    service.save("Node 16", force=True)
    result = carry_out(service, "Node 20", ConflictDecision.REPLACE, replace_id=first.id)
    assert result.status == "conflict"
    assert sorted(e.content for e in service.list_visible()) == ["Node 16", "Node 18"]


def test_tool_status_is_typed_and_checked() -> None:
    assert ToolOutput("x", status="conflict").status is ToolStatus.CONFLICT
    assert ToolOutput("x").status is ToolStatus.DONE and ToolStatus.DONE == "done"
    with pytest.raises(ValueError):
        ToolOutput("x", status="maybe")


@pytest.mark.parametrize(("status", "preview", "conflict"), [
    ("conflict", "anything at all", True),
    # the old text-matching rule: a denial that quotes the phrase is not a conflict
    ("denied", "Not saved: 'x' conflicts with these memories:", False),
    ("done", "Saved memory m1 (project).", False),
])
def test_exec_exit_code_comes_from_the_status(status: str, preview: str, conflict: bool) -> None:
    from paicli_tui.commands.exec_cmd import _Printer

    printer = _Printer(as_json=True, out=io.StringIO(), err=io.StringIO())
    printer.emit(ev.ToolCallFinished(call_id="c1", name="save_memory", status=status,
                                     preview=preview))
    assert printer.conflict is conflict
