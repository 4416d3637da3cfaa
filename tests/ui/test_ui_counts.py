"""Every count the memory browser and the panels around it show agrees with its noun and
groups its thousands: the browser read "1 of 1 memories" and "5000 of 5000 memories"."""

from __future__ import annotations

import pytest

from paicli_tui.core.mcp.config import McpServerConfig
from paicli_tui.core.mcp.status import ServerStatus
from paicli_tui.ui.backend import MemoryRow
from paicli_tui.ui.format import preview_lines
from paicli_tui.ui.memory_inbox import inbox_text
from paicli_tui.ui.modals.mcp_servers import server_row
from paicli_tui.ui.screens.memory_rows import project_memories, status_counts
from paicli_tui.ui.widgets.setup_notice import memory_count_text


@pytest.mark.parametrize(("shown", "total", "pending", "stale", "line"), [
    (0, 0, 0, 0, "0 of 0 memories"),
    (0, 1, 0, 0, "0 of 1 memory"),
    (1, 1, 0, 0, "1 of 1 memory"),
    (1, 2, 1, 1, "1 of 2 memories · 1 awaiting review (y accepts, n rejects)"
                 " · 1 possibly stale (v verifies)"),
    (2, 2, 0, 2, "2 of 2 memories · 2 possibly stale (v verifies)"),
    (900, 1_204, 1_100, 1_001, "900 of 1,204 memories · 1,100 awaiting review (y accepts, "
                               "n rejects) · 1,001 possibly stale (v verifies)"),
    (5_000, 5_000, 0, 0, "5,000 of 5,000 memories · the first 1,000 listed, type to narrow"),
])
def test_the_browsers_status_line(shown, total, pending, stale, line) -> None:
    assert status_counts(shown, total, "", pending, stale) == line


@pytest.mark.parametrize(("n", "memories", "welcome", "inbox"), [
    (0, "0 project memories", "0 memories", ""),
    (1, "1 project memory", "1 memory", "✉ 1 new memory (F2)"),
    (2, "2 project memories", "2 memories", "✉ 2 new memories (F2)"),
    (1_204, "1,204 project memories", "1,204 memories", "✉ 1,204 new memories (F2)"),
])
def test_memory_counts_around_the_browser(n, memories, welcome, inbox) -> None:
    rows = [MemoryRow(f"m{i}", "project", "text", "", "") for i in range(n)] + \
        [MemoryRow("g", "global", "text", "", "")]
    assert project_memories(rows) == memories
    assert memory_count_text(n) == welcome
    assert inbox_text(n) == inbox


@pytest.mark.parametrize(("tools", "shown"), [
    (0, "0 tools"), (1, "1 tool"), (2, "2 tools"), (1_204, "1,204 tools")])
def test_a_running_servers_tools(tools, shown) -> None:
    status = ServerStatus(McpServerConfig(name="files", command="srv"), state="running",
                          tools=[None] * tools)  # only counted
    assert server_row(status, 5) == f"files  running    {shown}"


@pytest.mark.parametrize(("lines", "tail"), [
    (9, "… (1 more line)"), (10, "… (2 more lines)"), (1_212, "… (1,204 more lines)")])
def test_a_previews_lines_left_out(lines, tail) -> None:
    assert preview_lines("x\n" * lines).splitlines()[-1] == tail
