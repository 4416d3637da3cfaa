"""The agent's own tools: file reading and editing, listing, shell commands.

grep_code / glob_files / search_code come from the code service and save_memory from the
memory service; the session puts them all in one registry.
"""

from __future__ import annotations

from ...contracts.tools import Tool
from .command import ExecuteCommandTool
from .edit import EditFileTool, WriteFileTool
from .files import ListDirTool, ReadFileTool
from .guard import ToolArgumentError, resolve_in_project


def builtin_tools() -> list[Tool]:
    """read_file, list_dir, write_file, edit_file and execute_command, in that order."""
    return [ReadFileTool(), ListDirTool(), WriteFileTool(), EditFileTool(), ExecuteCommandTool()]


__all__ = ["EditFileTool", "ExecuteCommandTool", "ListDirTool", "ReadFileTool",
           "ToolArgumentError", "WriteFileTool", "builtin_tools",
           "resolve_in_project"]
