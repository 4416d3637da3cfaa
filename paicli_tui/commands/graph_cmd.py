"""``paicli-tui graph NAME``: where a class, method or module is defined and its relations."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..config import Settings
from .conventions import EXIT_ERROR, EXIT_OK, EXIT_USAGE, add_project_flag
from .printable import printable

HELP = ("Show the code-graph relations of a class, method or module: what it extends, "
        "implements, imports, calls and contains, and who uses it, with file:line locations. "
        "Built by `paicli-tui index`.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="class, Class.method, method or module name")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_project_flag(parser)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from ..core.code.graph_query import GraphError, format_relations, relations_for

    if not args.name.strip():  # the name given is the mistake: a usage error
        return _failed(args, "the name is empty", EXIT_USAGE)
    try:
        relations = relations_for(settings, Path(args.project or "."), args.name)
    except GraphError as exc:
        return _failed(args, str(exc), EXIT_ERROR)
    if args.json:
        print(json.dumps(relations.to_json(), ensure_ascii=False))
    else:
        print(printable(format_relations(relations)))
    return EXIT_OK


def _failed(args: argparse.Namespace, message: str, code: int) -> int:
    """The error as JSON on stdout with --json, else a line on stderr; ``code``."""
    if args.json:
        print(json.dumps({"name": args.name, "error": message}, ensure_ascii=False))
    else:
        print(f"paicli-tui graph: {message}", file=sys.stderr)
    return code
