"""Entry point ``paicli-tui``: the TUI by default, headless sub-commands by name.

Each sub-command lives in ``paicli_tui/commands/<module>.py`` and offers ``HELP``,
``configure(parser)`` and ``run(args, settings) -> int``. Modules import their heavy
dependencies inside ``run`` so that ``--help`` and start-up stay fast.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import io
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import NoReturn

from . import __version__
from .commands.conventions import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_READER_GONE,
    EXIT_USAGE,
    add_accept_edits_flag,
    add_provider_flags,
    fail,
    foreign_session,
    missing_project,
    resolve_session,
)
from .config import LOG_LEVELS, ConfigError, Settings, load_settings
from .logs import start_logging
from .private_process import keep_environment_private
from .surrogates import without_surrogates

# sub-command name -> module under paicli_tui.commands
COMMANDS: dict[str, str] = {
    "exec": "exec_cmd",
    "memory": "memory_cmd",
    "index": "index_cmd",
    "search": "search_cmd",
    "graph": "graph_cmd",
    "sessions": "sessions_cmd",
    "context": "context_cmd",
    "mcp": "mcp_cmd",
}


def _available_commands() -> dict[str, str]:
    found = {}
    for name, module in COMMANDS.items():
        if importlib.util.find_spec(f"paicli_tui.commands.{module}") is not None:
            found[name] = module
    return found


def _load(module: str) -> ModuleType:
    return importlib.import_module(f"paicli_tui.commands.{module}")


def _flag_settings(args: argparse.Namespace) -> dict[str, object]:
    names = ("provider", "model", "base_url", "window", "theme", "log_level")
    flags = {n: getattr(args, n, None) for n in names}
    if getattr(args, "yes", False):
        flags["auto_approve"] = True
    if getattr(args, "accept_edits", False):
        flags["accept_edits"] = True
    return flags



def add_log_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--log-level", dest="log_level", choices=LOG_LEVELS,
                        help="what the log file under PAICLI_HOME/logs keeps "
                             "(default warning; PAICLI_LOG_LEVEL)")


def _tui_parser() -> argparse.ArgumentParser:
    commands = ", ".join(_available_commands())
    parser = argparse.ArgumentParser(
        prog="paicli-tui",
        description="A terminal coding agent with long-term memory and context engineering. "
                    f"Sub-commands: {commands} (paicli-tui COMMAND --help).",
    )
    parser.add_argument("--version", action="version", version=f"paicli-tui {__version__}")
    parser.add_argument("project_dir", nargs="?", default=None, metavar="PROJECT_DIR",
                        help="the project to open (default: the current directory)")
    # the sub-commands' spelling works here too (people type what `index` and `search` take)
    parser.add_argument("--project", dest="project_flag", metavar="DIR", default=None,
                        help="the same as PROJECT_DIR")
    parser.add_argument("--resume", nargs="?", const="", default=None, metavar="SESSION",
                        help="reopen a session (no id: pick from a list)")
    parser.add_argument("--theme", choices=("dark", "light"))
    add_accept_edits_flag(parser)
    add_log_flag(parser)
    add_provider_flags(parser)
    return parser


class _UsageError(Exception):
    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser


class _CommandParser(argparse.ArgumentParser):
    """A sub-command's parser (and its own sub-parsers) whose usage errors reach
    :func:`main`, which also answers on stdout when ``--json`` was asked for."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(self, message)


def _usage_error(name: str, module: ModuleType, words: Sequence[str], error: _UsageError
                 ) -> int:
    """argparse's usage error (``--max-turns many``, a misspelt flag), also as the JSON
    refusal when ``--json`` was asked for: a script reading one stream got nothing."""
    given = words[:words.index("--")] if "--" in words else words
    if "--json" not in given or "--json" in str(error):  # --json itself is the mistake
        argparse.ArgumentParser.error(error.parser, str(error))
    error.parser.print_usage(sys.stderr)
    return _refuse(name, module, argparse.Namespace(json=True), str(error))


def _streams_for_any_locale(as_json: bool) -> None:
    """Under a locale that is not UTF-8 (Latin-1, GBK, ASCII) a Chinese memory or a code
    line ended the command in UnicodeEncodeError. Text shows what the terminal cannot as
    ``\\uXXXX``; ``--json`` is written in UTF-8, as JSON is exchanged, whatever the locale."""
    import codecs

    for stream, real in ((sys.stdout, sys.__stdout__), (sys.stderr, sys.__stderr__)):
        if stream is not real or not isinstance(stream, io.TextIOWrapper):
            continue  # closed (None), or replaced (a test's capture)
        try:
            utf8 = codecs.lookup(stream.encoding).name == "utf-8"
            if stream is sys.stdout and as_json:
                stream.flush()
                sys.stdout = _JsonOut(stream.detach(), encoding="utf-8", errors="strict",
                                      line_buffering=stream.line_buffering)
            elif not utf8:
                stream.reconfigure(errors="backslashreplace")
        except (LookupError, ValueError, OSError):
            continue


class _JsonOut(io.TextIOWrapper):
    """stdout for ``--json``: UTF-8, and a file or folder name's byte that is not UTF-8 (a
    lone surrogate, ``caf\\xe9.py``) goes as U+FFFD; written raw it made the line no JSON
    parser takes."""

    def write(self, text: str) -> int:
        return super().write(without_surrogates(text))


_TEXT_ARGUMENTS = ("prompt", "query", "text", "name", "id")
"""The arguments that are words, not paths: a query, a memory's text, a name, a prompt."""


def _words_as_utf8(args: argparse.Namespace) -> None:
    """Bytes typed on the command line that are not UTF-8 (``caf\\xe9`` from a Latin-1
    terminal) arrive as lone surrogates, which no index query, JSON line or model request
    can carry: in the words they become U+FFFD. Folders keep their bytes (they must be
    found)."""
    for name in _TEXT_ARGUMENTS:
        value = getattr(args, name, None)
        if isinstance(value, str):
            setattr(args, name, without_surrogates(value))
        elif isinstance(value, list):
            setattr(args, name, [without_surrogates(v) if isinstance(v, str) else v
                                 for v in value])


def _command_parser(name: str, module: ModuleType) -> argparse.ArgumentParser:
    parser = _CommandParser(prog=f"paicli-tui {name}", description=module.HELP)
    module.configure(parser)
    add_log_flag(parser)
    return parser


def _settings_or_exit(args: argparse.Namespace) -> Settings | None:
    try:
        return load_settings(_flag_settings(args))
    except ConfigError as exc:
        print(f"paicli-tui: {exc}", file=sys.stderr)
        return None


def _refuse(name: str, module: ModuleType, args: argparse.Namespace, message: str) -> int:
    """A sub-command that cannot start: a line on stderr, or with ``--json`` one JSON object
    on stdout (scripts read one stream). A module with its own JSON shape (exec's event
    stream) says it through its ``refuse``."""
    own = getattr(module, "refuse", None)
    if own is not None:
        return int(own(args, message, EXIT_USAGE))
    if getattr(args, "json", False):
        print(json.dumps({"status": "error", "message": message}, ensure_ascii=False))
    else:
        print(f"paicli-tui {name}: {message}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the TUI or a sub-command; its exit code. A reader that stops early
    (``paicli-tui memory list | head -1``) ends the command quietly with 141, as it ends
    ``git log``: no traceback on stderr."""
    try:
        try:
            return _main(argv)
        finally:  # what is still buffered meets a closed pipe here, not at interpreter exit
            if sys.stdout is not None:  # None: stdout closed (>&-), nothing to flush
                sys.stdout.flush()
    except BrokenPipeError:
        _quiet_closed_streams()
        return EXIT_READER_GONE


def _quiet_closed_streams() -> None:
    """Point stdout and stderr at /dev/null where their reader went away: Python flushes
    them once more at exit, and that flush must not print an 'Exception ignored' note."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # closed before we started: Python has nothing to flush
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
            except (OSError, ValueError):
                pass


def _main(argv: Sequence[str] | None = None) -> int:
    # before any command, server or helper starts: they must not read the key from us
    keep_environment_private()
    argv = list(sys.argv[1:] if argv is None else argv)
    available = _available_commands()
    if argv and argv[0] in available:
        _streams_for_any_locale("--json" in (argv[:argv.index("--")] if "--" in argv else argv))
        module = _load(available[argv[0]])
        try:
            args = _command_parser(argv[0], module).parse_args(argv[1:])
        except _UsageError as error:
            return _usage_error(argv[0], module, argv[1:], error)
        _words_as_utf8(args)
        folder = missing_project(args)
        if folder is not None:
            return _refuse(argv[0], module, args, f"project folder {folder!r} does not exist")
        try:
            settings = load_settings(_flag_settings(args))
        except ConfigError as exc:
            return _refuse(argv[0], module, args, str(exc))
        start_logging(settings)
        try:
            return int(module.run(args, settings) or 0)
        except KeyboardInterrupt:  # Ctrl+C: said like any error, JSON with --json
            return fail(argv[0], getattr(args, "json", False), "interrupted (Ctrl+C)",
                        EXIT_INTERRUPTED)
        except BrokenPipeError:
            raise  # the reader went away: main ends quietly
        except OSError as exc:  # a folder or disk no command foresaw: one line, no traceback
            return fail(argv[0], getattr(args, "json", False), str(exc), EXIT_ERROR)
    parser = _tui_parser()
    args = parser.parse_args(argv)
    if args.project_dir and args.project_flag and args.project_dir != args.project_flag:
        parser.error(f"two projects given: {args.project_dir!r} and --project "
                     f"{args.project_flag!r}")
    project_dir = args.project_flag or args.project_dir or "."
    settings = _settings_or_exit(args)
    if settings is None:
        return EXIT_USAGE
    unknown = None
    if args.resume:  # a unique start of an id names that session
        args.resume, unknown = resolve_session(settings.home.history_raw_dir, args.resume)
    if unknown:  # told before the screen opens, as exec does, instead of a new session
        print(f"paicli-tui: {unknown}", file=sys.stderr)
        return EXIT_USAGE
    foreign = args.resume and foreign_session(settings.home, args.resume, Path(project_dir),
                                              "paicli-tui")
    if foreign:  # as exec: its tools would act on this folder's files, not its own
        print(f"paicli-tui: {foreign}", file=sys.stderr)
        return EXIT_USAGE
    start_logging(settings)
    from .app import run_app  # Textual is imported only when the TUI really starts

    return run_app(settings, project_dir=project_dir, resume=args.resume)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
