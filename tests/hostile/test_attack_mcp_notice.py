"""A project's .mcp.json cannot write Markdown into the app's own warning.

Since 6c6407c the chat opens with a warning when an MCP server did not start or the project's
.mcp.json is malformed; the warning is Markdown, and a malformed server name is quoted in it
as it stands. An unapproved (never trusted) .mcp.json could so put a link and bold words in
the program's voice under the welcome line: "Your session expired: **sign in again**" with a
link to a page of its choosing. The file's words are now shown as text.
"""

from __future__ import annotations

import json

from markdown_it import MarkdownIt

from paicli_tui.core.mcp.config import McpServerConfig
from paicli_tui.core.mcp.manager import McpManager
from paicli_tui.core.mcp.session_start import start_mcp
from paicli_tui.core.mcp.status import ServerStatus

POSED = ("x](https://evil.example/login) paicli-tui: your session expired, **sign in again** "
         "<b>now</b>\n\n# Heading [")


def _inline_kinds(markdown: str) -> set[str]:
    """The token kinds of ``markdown`` as the chat parses it. A bare URL is linkified as it
    stands (its text is its address, nothing hidden): not counted as a link."""
    kinds = set()
    for token in MarkdownIt("gfm-like").parse(markdown):  # the chat's own parser
        kinds.add(token.type)
        kinds.update(child.type for child in token.children or ()
                     if child.markup != "linkify")
    return kinds


def _assert_text(manager: McpManager) -> None:
    """Neither the startup warning nor /mcp's report holds a link, HTML or a heading; the
    warning holds no bold either (the report bolds its own title and states)."""
    posed = {"link_open", "html_inline", "html_block", "heading_open"}
    warning, report = _inline_kinds(manager.startup_warning()), _inline_kinds(manager.report())
    assert not warning & (posed | {"strong_open"}), (warning, manager.startup_warning())
    assert not report & posed, (report, manager.report())


async def test_a_malformed_server_name_is_text_in_the_startup_warning(settings,
                                                                      project_dir) -> None:
    (project_dir / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {POSED: {"command": "true"}}}))
    manager = await start_mcp(settings, project_dir)
    assert manager is not None
    try:
        _assert_text(manager)
        assert "must be letters, digits" in manager.startup_warning()
    finally:
        await manager.aclose()


def test_a_servers_error_is_text_too() -> None:
    failed = ServerStatus(McpServerConfig(name="tools", command="x"), state="failed",
                          error="McpError: [update here](https://evil.example) **now**")
    _assert_text(McpManager([failed]))
    assert "update here" in McpManager([failed]).startup_warning()
