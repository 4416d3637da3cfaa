"""What every sub-command shares: the public exit codes and the common flags."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from ..paths import HomePaths, normalise_project_root
from ..surrogates import without_surrogates

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_CONFLICT = 3
"""A memory conflict needs the person's decision (public contract)."""
EXIT_INTERRUPTED = 130
"""Ctrl+C (SIGINT): 128 + 2, as a shell reports a command the signal ended."""
EXIT_READER_GONE = 141
"""The reader of stdout went away (``| head -1``): 128 + SIGPIPE, as ``git log`` exits."""


def add_accept_edits_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--accept-edits", dest="accept_edits", action="store_true",
                        help="approve file changes (write_file, edit_file) without asking; "
                             "commands still ask (in the TUI Shift+Tab switches it; config: "
                             "accept_edits = true)")


def add_provider_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model")
    group.add_argument("--provider", help="deepseek, glm, kimi, stepfun, hunyuan, qwen, openai, "
                       "ollama or custom")
    group.add_argument("--model", help="model name (default: the provider's default)")
    group.add_argument("--base-url", dest="base_url", help="override the provider's base URL")
    group.add_argument("--window", type=int, help="context window in tokens")


def add_project_flag(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    """``--project DIR``; ``default`` argparse.SUPPRESS for a sub-parser's copy, so a value
    given before its action is kept (``memory --project DIR list``)."""
    parser.add_argument("--project", metavar="DIR", default=default,
                        help="project folder (default: the current directory)")


def add_actions(parser: argparse.ArgumentParser) -> tuple[Any, argparse.ArgumentParser]:
    """The actions of a command (``memory list``, ``mcp list``) and the parent parser each
    action takes: ``--project`` and ``--json`` go before the action or after it (``memory
    --json list``, ``memory list --json``); the action's copies leave a value given before
    it alone (SUPPRESS)."""
    add_project_flag(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    common = argparse.ArgumentParser(add_help=False)
    add_project_flag(common, default=argparse.SUPPRESS)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print JSON instead of text")
    return parser.add_subparsers(dest="action", required=True, metavar="ACTION"), common


def missing_project(args: argparse.Namespace) -> str | None:
    """The project folder a sub-command was pointed at when it does not exist, else None.

    Checked once for every sub-command before it runs, so a mistyped ``--project`` is always
    the same usage error (exit 2) naming the folder."""
    folder = getattr(args, "dir", None) or getattr(args, "project", None)
    if folder is None or Path(folder).expanduser().is_dir():
        return None
    return str(folder)


def resolve_session(history_dir: Path, wanted: str) -> tuple[str, str | None]:
    """The session ``wanted`` names and None: itself, or the one session whose id starts
    with it (a unique start, as ``/resume`` in the app takes it). Else ``wanted`` and what
    to tell the person: the ids it is the start of, or where the ids are listed."""
    if (history_dir / f"{wanted}.jsonl").is_file():
        return wanted, None
    names = sorted((p.stem for p in history_dir.glob("*.jsonl")
                    if ".sub-" not in p.stem and p.is_file()),  # a FIFO is no session
                   reverse=True) if history_dir.is_dir() else []
    close = [name for name in names if wanted and name.startswith(wanted)]
    if len(close) == 1:
        return close[0], None
    if close:
        return wanted, f"no session {wanted!r}; did you mean {' or '.join(close[:3])}?"
    return wanted, f"no session {wanted!r}; `paicli-tui sessions` lists this project's sessions"


def foreign_session(home: HomePaths, wanted: str, project: Path, command: str) -> str | None:
    """None when session ``wanted`` was started in ``project``; else the refusal to tell
    the person: resumed here its tools would act on this folder's files, not its own. It
    names the session's folder and the ``command`` (``paicli-tui exec``, ``paicli-tui``)
    that resumes it there."""
    from ..core.context.ledger import is_project_of, session_project

    theirs = session_project(home, wanted)
    if is_project_of(theirs, project):
        return None
    assert theirs is not None
    gone = "" if Path(theirs).is_dir() else " (that folder no longer exists)"
    return (f"session {wanted} belongs to another project, {theirs}{gone}; this is "
            f"{normalise_project_root(project)}. Resume it there: "
            f"{command} --resume {wanted} --project {shlex.quote(theirs)}")


def fail(command: str, as_json: bool, message: str, code: int) -> int:
    """An error of ``paicli-tui COMMAND``, and its exit code: with ``--json`` one JSON object
    on stdout (``{"status": "error", "message": …}``, what a script reading stdout parses),
    else one line on stderr, never wrapped."""
    if as_json:
        print(json.dumps({"status": "error", "message": message}, ensure_ascii=False),
              flush=True)
    else:
        print(f"paicli-tui {command}: {message}", file=sys.stderr, flush=True)
    return code


def read_standard_input() -> str:
    """Standard input as text in the locale's encoding, bytes it does not decode as U+FFFD:
    a UTF-8 locale other than C reads stdin strictly, and a Latin-1 file piped in raised
    UnicodeDecodeError. '' when stdin is closed (``<&-``, a job runner)."""
    if sys.stdin is None:
        return ""
    buffer = getattr(sys.stdin, "buffer", None)  # a text stream without one: already text
    if buffer is None:
        return without_surrogates(sys.stdin.read())
    return without_surrogates(buffer.read().decode(sys.stdin.encoding or "utf-8", "replace"))
