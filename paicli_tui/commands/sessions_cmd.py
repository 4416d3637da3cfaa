"""``paicli-tui sessions``: the saved sessions (ledgers), newest first."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..config import Settings
from ..surrogates import without_surrogates
from .conventions import EXIT_OK, add_project_flag
from .printable import printable

HELP = ("List saved sessions, newest first, with id, title, time and message count "
        "(resume one with `paicli-tui --resume ID`).")


def configure(parser: argparse.ArgumentParser) -> None:
    add_project_flag(parser)
    parser.add_argument("--all", action="store_true", help="sessions of every project")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace, settings: Settings) -> int:
    from ..core.context.ledger import list_sessions
    from ..paths import normalise_project_root

    project = None if args.all else normalise_project_root(Path(args.project or "."))
    sessions = list_sessions(settings.home, project)
    if args.json:
        # a name that is not UTF-8 as the ledger and the memory store keep it: JSON is UTF-8
        shown = without_surrogates(str(project))
        print(json.dumps({"project": shown if project else None,
                          "sessions": [s.to_json() for s in sessions]}, ensure_ascii=False))
        return EXIT_OK
    if not sessions:
        where = "any project" if project is None else str(project)
        print(f"No saved sessions for {where}.")
        return EXIT_OK
    for info in sessions:
        title = info.title or "(untitled)"
        line = f"{info.session_id}  {info.updated_here()}  {info.message_count:>5} msgs  " \
               f"{title}"
        if project is None and info.project:
            line += f"  [{info.project}]"
        print(printable(line))
    return EXIT_OK
