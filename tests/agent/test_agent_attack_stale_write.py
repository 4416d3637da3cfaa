"""A write lands on the file it was approved for, or not at all.

write_file and edit_file read the file, show the diff, wait for the person's answer, then
wrote the content they had computed from what they read. Whatever changed the file in
between was overwritten without a word: the person fixing a line in their editor while the
dialog was open (they had seen the diff), or a sub-agent's approved edit of the same file
(sub-agents and plan tasks run in parallel). Both calls answered "done"; one change was gone.
Now the file is read again at the moment of the write: if it is not what the diff was made
from, nothing is written and the model is told to read it again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from paicli_tui.core.agent.tools.edit import EditFileTool, WriteFileTool
from paicli_tui.core.contracts.asks import ApprovalDecision
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext

ORIGINAL = "def total(items):\n    return sum(items)\n\n\ndef count(items):\n    return 0\n"


def _context(project: Path, settings, approve) -> ToolContext:
    return ToolContext(project_root=project, settings=settings, session=SessionState("s1"),
                       approve=approve)


def _person_edits(path: Path, text: str | None):
    """An approver who changes the file in their editor (``text``; None: deletes it), then
    approves the agent's write."""
    async def approve(request):
        if text is None:
            path.unlink()
        else:
            path.write_text(text)
        return ApprovalDecision.ONCE
    return approve


@pytest.mark.parametrize(("tool", "arguments", "exists", "meanwhile"), [
    (EditFileTool(), {"old_string": "return 0", "new_string": "return len(items)"}, True,
     ORIGINAL.replace("sum(items)", "sum(items)  # fixed by hand")),
    (EditFileTool(), {"old_string": "return 0", "new_string": "return len(items)"}, True, None),
    (WriteFileTool(), {"content": "print('agent')\n"}, True, ORIGINAL + "# mine\n"),
    (WriteFileTool(), {"content": "print('agent')\n"}, False, "print('person')\n"),
])
async def test_a_file_changed_while_the_approval_was_open_is_not_overwritten(
        tool, arguments, exists, meanwhile, project_dir, settings) -> None:
    path = project_dir / "stats.py"
    if exists:
        path.write_text(ORIGINAL)
    out = await tool.run({"path": "stats.py", **arguments},
                         _context(project_dir, settings, _person_edits(path, meanwhile)))
    assert out.status == "failed" and "changed" in out.content and "read it again" in out.content
    if meanwhile is None:
        assert not path.exists()
    else:
        assert path.read_text() == meanwhile  # the person's version, untouched


async def test_an_unchanged_file_is_written(project_dir, settings) -> None:
    path = project_dir / "stats.py"
    path.write_text(ORIGINAL)

    async def approve(request):
        return ApprovalDecision.ONCE

    out = await EditFileTool().run({"path": "stats.py", "old_string": "return 0",
                                    "new_string": "return len(items)"},
                                   _context(project_dir, settings, approve))
    assert out.status == "done" and "return len(items)" in path.read_text()


async def test_two_parallel_edits_of_one_file_never_lose_one_silently(project_dir,
                                                                      settings) -> None:
    """Two sub-agents edit one file: both dialogs are open at once, then both approved."""
    path = project_dir / "stats.py"
    path.write_text(ORIGINAL)
    both_asked = asyncio.Event()
    asked = 0

    async def approve(request):
        nonlocal asked
        asked += 1
        if asked == 2:
            both_asked.set()
        await both_asked.wait()
        return ApprovalDecision.ONCE

    edits = [("return sum(items)", "return sum(items) + 0"), ("return 0", "return len(items)")]
    results = await asyncio.gather(*(
        EditFileTool().run({"path": "stats.py", "old_string": old, "new_string": new},
                           _context(project_dir, settings, approve))
        for old, new in edits))
    final = path.read_text()
    for (_old, new), out in zip(edits, results, strict=True):
        if out.status == "done":
            assert new in final, f"{new!r} was reported done but is not in the file"
        else:
            assert "changed" in out.content
    assert any(out.status == "done" for out in results)
