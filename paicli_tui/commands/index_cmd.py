"""``paicli-tui index [DIR]``: build or refresh the project's code index (incremental)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..config import Settings
from ..core.plural import counted
from .conventions import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, add_project_flag, fail

HELP = ("Build or refresh the code index of a project (default: the current directory) for "
        "semantic, full-text and hybrid search and the code graph. Only new and changed "
        "files are parsed and embedded again.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", nargs="?", default=None, metavar="DIR",
                        help="the project folder (default: --project or the current directory)")
    add_project_flag(parser)
    parser.add_argument("--rebuild", action="store_true",
                        help="embed every file again into a new index built beside the one "
                             "in use (searches keep reading the old one until it is "
                             "complete; a stopped rebuild is continued by the next one)")
    parser.add_argument("--embedder", default=None,
                        help="'use' (offline default: the code index then uses 'use+minilm'), 'use-m3', "
                             "'minilm', 'use+minilm', 'ollama:<model>' or 'openai:<model>' "
                             "(embedding_base_url in config.toml)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace, settings: Settings) -> int:
    from rich.console import Console

    from ..core.code.commit_retry import IndexCommitConflictError
    from ..core.code.index_lease import IndexLeaseError
    from ..core.code.indexer import CodeIndexer
    from ..core.contracts.embedder import EmbedderError

    root = Path(args.dir or args.project or ".")
    err = Console(stderr=True)
    if not root.is_dir():
        return fail("index", args.json, f"{root} is not a folder", EXIT_ERROR)
    if args.embedder:
        settings = settings.with_overrides(embedder=args.embedder)
    indexer = CodeIndexer(settings, root)
    try:
        if args.quiet or args.json or not err.is_terminal:
            summary = indexer.update(rebuild=args.rebuild)
        else:
            summary = _with_progress(indexer, err, args.rebuild)
    except KeyboardInterrupt:
        return fail("index", args.json, "interrupted (Ctrl+C)" + _intact(indexer),
                    EXIT_INTERRUPTED)
    except (EmbedderError, IndexLeaseError, IndexCommitConflictError) as exc:
        return fail("index", args.json, str(exc) + _intact(indexer), EXIT_ERROR)
    except OSError as exc:
        return fail("index", args.json, f"cannot write the index at {indexer.location}: "
                                        f"{exc}{_intact(indexer)}", EXIT_ERROR)
    if args.json:
        print(json.dumps(summary.to_json(), ensure_ascii=False))
        return EXIT_OK
    for line in summary.rebuild_lines():
        print(line)
    if summary.rebuilt and summary.rebuilt != "new index":
        print(f"Rebuilt the index: {summary.rebuilt}.")
    print(f"Indexed {summary.counts()}.")
    if summary.files_minified or summary.files_generated:
        print(f"{counted(summary.files_minified, 'minified file')} cut into bounded chunks, "
              f"{counted(summary.files_generated, 'generated file')} left out.")
    if summary.capped_line():
        print(summary.capped_line())
    if summary.lease_taken_over:
        print(f"Took over the index lease of {summary.lease_taken_over}: it had stopped "
              "renewing it (that indexer died or lost the network).")
    if summary.commit_conflicts_retried:
        print(f"{counted(summary.commit_conflicts_retried, 'commit conflict')} with another writer of "
              "this index retried (each write applied again on the latest version).")
    if summary.lock_note:
        print(f"Note: {summary.lock_note}.")
    if summary.vocabulary_note:  # searches still run: they prepare the words themselves
        print(f"Note: the project's words for search: {summary.vocabulary_note}.")
    if summary.vocabulary_caches_removed:
        from ..core.code.vocabulary_prune import describe_removed

        removed = describe_removed(summary.vocabulary_caches_removed)
        print(f"{removed[0].upper()}{removed[1:]}.")
    if summary.doc_sentences_note:
        print(f"Note: the doc sentences for search: {summary.doc_sentences_note}.")
    print(f"Index: {summary.location}")
    sys.stdout.flush()
    return EXIT_OK


def _intact(indexer) -> str:
    """What a rebuild stopped midway left: the index in use untouched, its work kept; what a
    first build stopped midway left: the files it wrote, searchable."""
    if indexer.first_build:
        return ("; the files indexed so far are kept and searchable (searches say the index is "
                "unfinished): the same command finishes it")
    if not indexer.staging:
        return ""
    return ("; the index in use is unchanged (the rebuild was building beside it): the same "
            "command continues the rebuild where it stopped")


def _with_progress(indexer, console, rebuild: bool):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    labels = {"wait": "Waiting for another indexer", "scan": "Scanning files", "parse": "Parsing", "embed": "Parsing and embedding files",
              "write": "Writing", "fulltext": "Full-text index", "done": "Done"}
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        tasks: dict[str, int] = {}

        def on_progress(event) -> None:
            if event.phase == "done":
                return
            if event.phase not in tasks:
                tasks[event.phase] = bar.add_task(labels.get(event.phase, event.phase),
                                                  total=event.total or None)
            bar.update(tasks[event.phase], completed=event.done, total=event.total or None)

        return indexer.update(on_progress, rebuild=rebuild)
