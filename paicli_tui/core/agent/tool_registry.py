"""The tools of one session, by name, and running one call safely."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from ..contracts.tools import Tool, ToolContext, ToolOutput, tool_schema
from ..messages import read_arguments
from .argument_names import misnamed_arguments

log = logging.getLogger(__name__)


MAX_OFFERED = 128
"""Tools one request may offer: OpenAI refuses more ("array too long"), so two or three MCP
servers beside the program's own tools got every request refused."""
MCP_PREFIX = "mcp__"



class ToolRegistry:
    """Tools in registration order; a later tool with the same name replaces an earlier one.
    Requests offer at most MAX_OFFERED: the program's own first, then MCP tools in order."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)
        self._schemas: list[dict[str, Any]] | None = None
        self._schemas_of: tuple[str, ...] = ()
        """The names ``_schemas`` was made for (a tool becoming unavailable changes them)."""

    def add(self, tool: Tool) -> None:
        self._tools[tool.name] = tool
        self._schemas = None

    def replace(self, old: Iterable[str], new: Iterable[Tool]) -> None:
        """Put ``new`` where the first of the ``old`` names stood (a restarted MCP server's
        tools: the same list in the same order keeps the request's prefix), the rest of
        ``old`` gone; at the end when none of them was here."""
        gone = set(old)
        tools: dict[str, Tool] = {}
        placed = False
        for name, tool in self._tools.items():
            if name not in gone:
                tools[name] = tool
            elif not placed:
                tools.update((t.name, t) for t in new)
                placed = True
        if not placed:
            tools.update((t.name, t) for t in new)
        self._tools = tools
        self._schemas = None

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def _available(self) -> list[Tool]:
        """The tools a request may offer: not those of an MCP server that is down (they
        stay registered, so a restart puts them back in the same place, and a call the
        model makes from memory answers how to bring the server back)."""
        return [t for t in self._tools.values() if getattr(t, "available", True)]

    def _offered(self) -> list[Tool]:
        tools = self._available()
        if len(tools) <= MAX_OFFERED:
            return tools
        own = [t for t in tools if not t.name.startswith(MCP_PREFIX)]
        return (own + [t for t in tools if t.name.startswith(MCP_PREFIX)])[:MAX_OFFERED]

    def left_out(self) -> list[str]:
        """Names of the tools no request offers although they could run (past
        MAX_OFFERED)."""
        offered = {t.name for t in self._offered()}
        return [t.name for t in self._available() if t.name not in offered]

    def schemas(self) -> list[dict[str, Any]]:
        """The ``tools`` list for requests; the same object while the tools offered are
        unchanged (its serialised bytes stay identical, which keeps the request prefix
        stable)."""
        offered = self._offered()
        names = tuple(t.name for t in offered)
        if self._schemas is None or names != self._schemas_of:
            self._schemas, self._schemas_of = [tool_schema(t) for t in offered], names
        return self._schemas

    async def run(self, name: str, raw_arguments: str, context: ToolContext
                  ) -> tuple[dict[str, Any], ToolOutput]:
        """Run one call. Never raises for the tool's own faults: unknown tools, malformed
        arguments and tool exceptions become a failed result the model can read."""
        tool = self._tools.get(name)
        if tool is None:
            return {}, ToolOutput(
                f"Unknown tool {name!r}. Available tools: {', '.join(self._tools)}.",
                status="failed")
        try:
            arguments = read_arguments(raw_arguments)
        except json.JSONDecodeError as exc:
            # json's "Unterminated string starting at" already ends in "at"
            what = exc.msg.removesuffix(" at")
            return {}, ToolOutput(
                f"The arguments for {name} are not valid JSON ({what} at position "
                f"{exc.pos}). Send a JSON object matching the tool's schema.", status="failed")
        except RecursionError:  # "[[[[…" a hundred thousand deep: no tool takes that
            return {}, ToolOutput(
                f"The arguments for {name} are nested too deeply to read. Send a JSON object "
                "matching the tool's schema.", status="failed")
        if not isinstance(arguments, dict):
            return {}, ToolOutput(f"The arguments for {name} must be a JSON object.",
                                  status="failed")
        # the program's own tools only: an MCP server's schema is its author's sketch, and
        # the server answers a call it cannot take in its own words
        misnamed = None if name.startswith(MCP_PREFIX) else \
            misnamed_arguments(name, tool.parameters, arguments)
        if misnamed is not None:
            return arguments, ToolOutput(misnamed, status="failed")
        try:
            return arguments, await tool.run(arguments, context)
        except Exception as exc:  # a tool bug must not end the turn or corrupt history
            log.exception("tool %s failed", name)
            return arguments, ToolOutput(f"{name} failed unexpectedly: {type(exc).__name__}: "
                                         f"{exc}", status="failed")
