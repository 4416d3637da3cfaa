"""An MCP tool's input schema as strict providers accept it.

A server's schema goes to the provider inside every request, and OpenAI refuses the whole
request (HTTP 400 "Invalid schema for function …") for shapes servers commonly send:
``{"type": "array"}`` without ``items`` ("array schema missing items"), and the PHP servers'
``"properties": []`` / ``"required": {}`` (an empty PHP array encodes as either). One such tool
had every request of every session refused while its server was enabled. Each is put right on
a copy; the schema's meaning is kept (``items: {}`` is any item, an empty property list is
none).
"""

from __future__ import annotations

from typing import Any

MAX_SCHEMA_NODES = 10_000
"""Schema levels put right at most (a server's schema is its data); the rest is kept as is."""

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
"""Keys whose value maps names to schemas."""
_SCHEMA_VALUES = ("items", "additionalProperties", "additionalItems", "not", "if", "then",
                  "else", "contains", "propertyNames", "unevaluatedItems",
                  "unevaluatedProperties")
"""Keys whose value is one schema."""
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")
"""Keys whose value is a list of schemas (``items`` in its old tuple form too)."""


def provider_schema(raw: Any) -> dict[str, Any]:
    """The tool's input schema as providers accept it: an object at the root, every array
    with ``items``, ``properties`` an object and ``required`` a list of names; a copy (the
    server's own object is left alone)."""
    if not (isinstance(raw, dict) and raw.get("type") == "object"):
        return {"type": "object", "properties": {}}
    root = dict(raw)
    pending = [root]
    seen = 0
    while pending and seen < MAX_SCHEMA_NODES:
        node = pending.pop()
        seen += 1
        _put_right(node)
        pending.extend(_copied_children(node))
    root.setdefault("properties", {})
    return root


def _put_right(node: dict[str, Any]) -> None:
    kind = node.get("type")
    if (kind == "array" or (isinstance(kind, list) and "array" in kind)) and "items" not in node:
        node["items"] = {}
    if "properties" in node and not isinstance(node["properties"], dict):
        node["properties"] = {}
    required = node.get("required")
    if "required" in node and not (isinstance(required, list)
                                   and all(isinstance(name, str) for name in required)):
        names = [name for name in required if isinstance(name, str)] \
            if isinstance(required, list) else []
        if names:
            node["required"] = names
        else:
            del node["required"]


def _copied_children(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The schemas directly below ``node``, each replaced in it by a copy (returned)."""
    children: list[dict[str, Any]] = []
    for key in _SCHEMA_MAPS:
        value = node.get(key)
        if isinstance(value, dict):
            node[key] = {name: dict(s) if isinstance(s, dict) else s
                         for name, s in value.items()}
            children += [s for s in node[key].values() if isinstance(s, dict)]
    for key in _SCHEMA_VALUES:
        value = node.get(key)
        if isinstance(value, dict):
            node[key] = dict(value)
            children.append(node[key])
    for key in _SCHEMA_LISTS:
        value = node.get(key)
        if isinstance(value, list):
            node[key] = [dict(s) if isinstance(s, dict) else s for s in value]
            children += [s for s in node[key] if isinstance(s, dict)]
    return children
