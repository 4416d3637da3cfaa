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

    try:
        if not args.name.strip():  # the name given is the mistake: a usage error
            raise GraphError("the name is empty")
        relations = relations_for(settings, Path(args.project or "."), args.name)
    except GraphError as exc:
        if args.json:
            print(json.dumps({"name": args.name, "error": str(exc)}, ensure_ascii=False))
        else:
            print(f"paicli-tui graph: {exc}", file=sys.stderr)
        return EXIT_USAGE if not args.name.strip() else EXIT_ERROR
    if args.json:
        print(json.dumps(relations.to_json(), ensure_ascii=False))
    else:
        print(printable(format_relations(relations)))
    return EXIT_OK
