"""The agent's code tools: grep_code, glob_files, search_code, code_graph.

Each is a small adapter from JSON arguments to a core function; the blocking work runs in a
thread so the agent loop (and the TUI) stays responsive. Bad arguments give a clear failed
result, never an exception into the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...config import Settings
from ..contracts.tools import ToolContext, ToolOutput
from .globbing import DEFAULT_MAX_FILES, glob_files
from .grep import DEFAULT_MAX_MATCHES, GrepError, GrepOptions, grep_code
from .patterns import ScanControl

MAX_TOP_K = 30

T = TypeVar("T")


async def run_scan(scan: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking scan in a thread; cancelling the caller stops the scan too (a thread
    cannot be killed, so the scan checks a shared flag and the regex engine's time slice)."""
    control = ScanControl()
    try:
        return await asyncio.to_thread(scan, *args, control=control, **kwargs)
    except asyncio.CancelledError:
        control.cancel.set()
        raise


def _int_arg(arguments: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = arguments.get(name, default)
    if value is None:
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise GrepError(f"{name} must be an integer, got {value!r}") from None
    return max(low, min(high, number))


def _bool_arg(arguments: dict[str, Any], name: str, default: bool) -> bool:
    value = arguments.get(name, default)
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes")
    return bool(value)


class GrepCodeTool:
    name = "grep_code"
    description = (
        "Search the project's files for a keyword or regular expression (like ripgrep). "
        "Honours .gitignore, skips binary and huge files. Returns `path:line:text` hits with "
        "context lines (`path-line-text`). Prefer this for any identifier, string or error "
        "message you can name exactly."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Regex (or literal text with literal=true)."},
            "literal": {"type": "boolean", "description": "Treat the pattern as plain text.",
                        "default": False},
            "ignore_case": {"type": "boolean", "default": False},
            "path": {"type": "string", "description": "Folder or file to search in (relative)."},
            "glob": {"type": "string", "description": "Only files matching this glob, e.g. *.java"},
            "context": {"type": "integer", "description": "Context lines around each hit (0-10).",
                        "default": 2},
            "max_results": {"type": "integer", "default": DEFAULT_MAX_MATCHES,
                            "description": "Maximum hits shown (1-500)."},
        },
        "required": ["pattern"],
    }
    requires_approval = False

    def __init__(self, project_root: Path) -> None:
        self.project_root = Path(project_root)

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        try:
            options = GrepOptions(
                pattern=str(arguments.get("pattern") or ""),
                regex=not _bool_arg(arguments, "literal", False),
                ignore_case=_bool_arg(arguments, "ignore_case", False),
                context=_int_arg(arguments, "context", 2, 0, 10),
                path=str(arguments.get("path") or ""),
                glob=str(arguments.get("glob") or ""),
                max_matches=_int_arg(arguments, "max_results", DEFAULT_MAX_MATCHES, 1, 500),
            )
            result = await run_scan(grep_code, self.project_root, options)
        except GrepError as exc:
            return ToolOutput(f"grep_code: {exc}", status="failed")
        return ToolOutput(result.text)


class GlobFilesTool:
    name = "glob_files"
    description = (
        "List project files whose path matches a glob (`**/*.py`, `src/**/Test*.java`; a "
        "pattern without '/' matches the file name in any folder). Honours .gitignore."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "path": {"type": "string", "description": "Folder to list under (relative)."},
            "max_results": {"type": "integer", "default": DEFAULT_MAX_FILES},
        },
        "required": ["pattern"],
    }
    requires_approval = False

    def __init__(self, project_root: Path) -> None:
        self.project_root = Path(project_root)

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        try:
            limit = _int_arg(arguments, "max_results", DEFAULT_MAX_FILES, 1, 2000)
            result = await run_scan(
                glob_files, self.project_root, str(arguments.get("pattern") or ""),
                path=str(arguments.get("path") or ""), max_files=limit)
        except GrepError as exc:
            return ToolOutput(f"glob_files: {exc}", status="failed")
        return ToolOutput(result.text)


class SearchCodeTool:
    name = "search_code"
    description = (
        "Semantic + full-text search over the project's code index: finds methods, classes "
        "and files by meaning (English or Chinese questions). Use it for vague questions or "
        "after grep_code found nothing; use grep_code for exact names."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What you are looking for."},
            "mode": {"type": "string", "enum": ["hybrid", "semantic", "text"],
                     "default": "hybrid"},
            "top_k": {"type": "integer", "default": 5, "description": "Results (1-30)."},
        },
        "required": ["query"],
    }
    requires_approval = False

    def __init__(self, settings: Settings, project_root: Path) -> None:
        self.settings = settings
        self.project_root = Path(project_root)

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        from . import rerank
        from .search import SearchError, format_hits_for_model, plan_with_model, search_project

        query = str(arguments.get("query") or "").strip()
        mode = str(arguments.get("mode") or "hybrid")
        try:
            top_k = _int_arg(arguments, "top_k", self.settings.search_top_k, 1, MAX_TOP_K)
            if not query:
                raise GrepError("the query is empty")
            # the light model's client lives on this loop: rewrite here, search in a thread
            plan = (await plan_with_model(self.settings, query, context.light_complete)
                    if mode != "grep" else None)
            # and rerank the fused top 30 here too (core.code.rerank)
            skip = rerank.skip_reason(self.settings, mode)
            if not skip and context.light_complete is None:
                skip = "no light model in this session"
            response = await asyncio.to_thread(
                search_project, self.settings, self.project_root, query, mode=mode,
                top_k=top_k if skip else rerank.RERANK_DEPTH, plan=plan)
            if not skip:
                response = await rerank.rerank_response(self.settings, response,
                                                        context.light_complete, top_k)
        except (GrepError, SearchError) as exc:
            return ToolOutput(f"search_code: {exc}", status="failed")
        text = format_hits_for_model(response)
        if response.rerank is not None and response.rerank.status == rerank.FELL_BACK:
            text += f"\n\n({response.rerank.describe()})"
        return ToolOutput(text)


class CodeGraphTool:
    name = "code_graph"
    description = (
        "Structural relations of a class, method or module from the code index: what it "
        "extends, implements, imports, calls and contains, and who uses it (with locations)."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "name": {"type": "string",
                     "description": "Class, method (Class.method) or module name."},
        },
        "required": ["name"],
    }
    requires_approval = False

    def __init__(self, settings: Settings, project_root: Path) -> None:
        self.settings = settings
        self.project_root = Path(project_root)

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        from .graph_query import GraphError, format_relations, relations_for

        name = str(arguments.get("name") or "").strip()
        if not name:
            return ToolOutput("code_graph: the name is empty", status="failed")
        try:
            relations = await asyncio.to_thread(
                relations_for, self.settings, self.project_root, name)
        except GraphError as exc:
            return ToolOutput(f"code_graph: {exc}", status="failed")
        return ToolOutput(format_relations(relations))
