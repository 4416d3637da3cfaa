"""``paicli-tui search QUERY``: search the project's code (hybrid, semantic, text or grep)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..config import Settings
from .conventions import EXIT_ERROR, EXIT_OK, EXIT_USAGE, add_project_flag, fail
from .printable import printable

HELP = ("Search the project's code. hybrid (default) fuses full-text and semantic ranking; "
        "semantic uses the embedder; text the full-text index; grep exact words (no index "
        "needed). Chinese and English questions both work. Build the index first with "
        "`paicli-tui index`.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", nargs="+", help="what you are looking for")
    parser.add_argument("--mode", choices=("hybrid", "semantic", "text", "grep"),
                        default="hybrid")
    parser.add_argument("--top-k", dest="top_k", type=int, default=None,
                        help="number of results (default 5, at most 30)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--explain", action="store_true",
                        help="show each ranker's rank and the query plan")
    parser.add_argument("--no-rewrite", dest="no_rewrite", action="store_true",
                        help="never ask the model to rewrite a Chinese question into English "
                        "search terms (the offline dictionary gloss is used instead)")
    parser.add_argument("--no-rerank", dest="no_rerank", action="store_true",
                        help="keep the fused order: never ask the light model to reorder the "
                        "top results (it does in hybrid mode when light_model is set and "
                        "search_rerank is not off)")
    add_project_flag(parser)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from ..core.code import rerank
    from ..core.code.search import (
        SearchError,
        clamp_top_k,
        plan_with_configured_model,
        search_project,
    )
    from ..core.code.stale import CHANGED_NOTE
    from ..core.contracts.embedder import EmbedderError

    if args.top_k is not None and not 1 <= args.top_k <= 30:
        return fail("search", args.json, "--top-k must be between 1 and 30", EXIT_USAGE)
    root = Path(args.project or ".")
    query = " ".join(args.query)
    if not query.strip():  # the words given are the mistake: a usage error
        return _failed(args, query, "the query is empty", EXIT_USAGE)
    try:
        # the configured model (its light_model when set) rewrites non-English questions;
        # not worth a model call when the search cannot run for want of an index
        wants_plan = not args.no_rewrite and args.mode != "grep"
        plan = plan_with_configured_model(settings, query, root) if wants_plan else None
        skip = rerank.skip_reason(settings, args.mode, no_rerank=args.no_rerank)
        k = clamp_top_k(args.top_k, settings.search_top_k)
        response = search_project(settings, root, query, mode=args.mode,
                                  top_k=k if skip else rerank.RERANK_DEPTH, plan=plan)
        if args.mode != "grep":
            response = (rerank.skipped(response, skip, k) if skip
                        else rerank.rerank_with_configured_model(settings, response, k))
    except (SearchError, EmbedderError) as exc:
        return _failed(args, query, str(exc), EXIT_ERROR)
    if args.json:
        print(json.dumps(response.to_json(explain=args.explain), ensure_ascii=False))
        return EXIT_OK
    if not response.hits:
        _say(f"No results for {query!r}. {response.note}".strip())
        return EXIT_OK
    if response.mode == "grep":
        _say(f"{response.match_lines} matching line{'s' * (response.match_lines != 1)} in "
             f"{response.match_files} file{'s' * (response.match_files != 1)}; the best "
             f"{len(response.hits)} place{'s' * (len(response.hits) != 1)}:")
    for number, hit in enumerate(response.hits, 1):
        if hit.kind == "line":  # grep without an index: the line is the place
            _say(f"{number}. {hit.path}:{hit.start_line}  ({hit.score:.4f})")
        else:
            _say(f"{number}. {hit.path}:{hit.start_line}-{hit.end_line}  {hit.kind} "
                 f"{hit.name}  ({hit.score:.4f})")
        if hit.changed:
            _say(f"   {CHANGED_NOTE[hit.changed]}")
        if hit.match_line:
            _say(f"   {hit.match_line}: {hit.match_text[:200]}")
        if args.explain and hit.ranks:
            ranks = ", ".join(f"{k} #{v}" if v else f"{k} -" for k, v in hit.ranks.items())
            if hit.rerank is not None:
                ranks += f", rerank #{hit.rerank}"
            _say(f"   ranks: {ranks}")
            if hit.via_declaration:
                _say(f"   answers the declaration {hit.via_declaration} (no body)")
            if hit.via:
                _say(f"   answers the class {hit.via}")
            if hit.doc_sentence:
                _say(f"   semantic read its doc sentence: {hit.doc_sentence}")
    if response.note:  # an index whose first build has not read every file
        _say(f"Note: {response.note}.")
    if response.rerank is not None and (args.explain or response.rerank.status == "fell back"):
        _say(response.rerank.describe())
    if args.explain:
        _say(f"plan: {json.dumps(response.plan, ensure_ascii=False)}")
    return EXIT_OK


def _failed(args: argparse.Namespace, query: str, message: str, code: int) -> int:
    if args.json:
        print(json.dumps({"query": query, "mode": args.mode, "results": [],
                          "error": message}, ensure_ascii=False))
    else:
        print(f"paicli-tui search: {message}", file=sys.stderr)
    return code


def _say(line: str) -> None:
    """A line for the terminal: a matched line of a hostile file cannot drive it."""
    print(printable(line))
