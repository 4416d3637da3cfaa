"""Arguments under names a tool does not take.

Weak models guess argument names: ``code_graph {"symbol": "main"}``, ``read_file
{"file_path": "a.py"}``, ``list_dir {"directory": "src"}``. The tool then read nothing
under its own names and either failed with words that did not say why ("the name is
empty") or, worse, went ahead on its defaults (``list_dir`` listed the project root).
A call whose unknown names stand in for the tool's own is answered with the names the
tool takes instead; an extra key beside the right ones ("reason", "explanation") is
harmless and left alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_NAMES_SHOWN = 8


def misnamed_arguments(tool_name: str, schema: Mapping[str, Any],
                       arguments: Mapping[str, Any]) -> str | None:
    """The failed result for ``arguments`` given under names the tool does not take (a
    required one missing, or none of its own given at all); None when the call is fine by
    name or the schema names no arguments (it cannot tell)."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties \
            or schema.get("additionalProperties") is True:
        return None
    unknown = [key for key in arguments if key not in properties]
    if not unknown:
        return None
    required = [key for key in schema.get("required") or () if isinstance(key, str)]
    missing = [key for key in required if key not in arguments]
    if not missing and any(key in properties for key in arguments):
        return None
    takes = ", ".join(f"{key} (required)" if key in required else str(key)
                      for key in list(properties)[:MAX_NAMES_SHOWN])
    given = ", ".join(repr(key[:40]) for key in unknown[:MAX_NAMES_SHOWN])
    said = f"{tool_name} takes no argument {given}" if len(unknown) == 1 else \
        f"{tool_name} takes none of the arguments {given}"
    return (f"{said}; its arguments are: {takes}. Nothing ran: call it again with those "
            "names.")
