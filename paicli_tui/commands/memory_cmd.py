"""``paicli-tui memory``: list, search, save, delete, verify, replace and clear long-term
memories from a script (the same operations as ``/save`` and ``/memory``). Exit code 3 means a
conflict that needs the person's decision."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..core.plural import counted
from ..paths import stored_project_forms
from .conventions import EXIT_CONFLICT, EXIT_ERROR, EXIT_OK, EXIT_USAGE, add_actions
from .printable import printable

if TYPE_CHECKING:
    from ..core.memory.entry import MemoryEntry
    from ..core.memory.service import LocalMemoryService

HELP = ("Long-term memory of this project and your global memories: list, search, save, "
        "delete, verify, replace, clear. A save that conflicts with a stored memory exits "
        "with code 3 and prints both; rerun with --force to keep both, or replace one.")


def configure(parser: argparse.ArgumentParser) -> None:
    actions, common = add_actions(parser)
    show = actions.add_parser("list", parents=[common], help="memories visible here")
    show.add_argument("--all", action="store_true", help="every project's memories too")
    find = actions.add_parser("search", parents=[common], help="memories ranked for a query")
    find.add_argument("query", nargs="+")
    find.add_argument("--limit", type=int, default=10, help="at most this many (default 10)")
    find.add_argument("--keywords-only", action="store_true",
                      help="rank by keywords alone (no embedder is loaded)")
    find.add_argument("--explain", action="store_true",
                      help="show each memory's keyword, vector and time parts, and the best "
                           "ones that did not pass the relevance bar")
    save = actions.add_parser("save", parents=[common], help="remember a fact")
    save.add_argument("text", nargs="+")
    save.add_argument("--global", dest="is_global", action="store_true",
                      help="visible in every project (default: this project only)")
    save.add_argument("--force", action="store_true", help="keep both on a conflict")
    save.add_argument("--sensitive", action="store_true",
                      help="save it even though it looks like a secret (you confirm)")
    save.add_argument("--file", metavar="PATH", default=None,
                      help="link the fact to a project file: it is marked possibly stale "
                           "when that file changes")
    delete = actions.add_parser("delete", parents=[common], help="forget one memory")
    delete.add_argument("id")
    verify = actions.add_parser("verify", parents=[common],
                                help="confirm a memory is still true (clears 'possibly stale')")
    verify.add_argument("id")
    change = actions.add_parser("replace", parents=[common], help="put new text in place of one")
    change.add_argument("id")
    change.add_argument("text", nargs="+")
    change.add_argument("--sensitive", action="store_true",
                        help="replace it even though the new text looks like a secret "
                             "(you confirm)")
    clear = actions.add_parser("clear", parents=[common],
                               help="forget this project's memories (or --global / --all)")
    which = clear.add_mutually_exclusive_group()
    which.add_argument("--global", dest="is_global", action="store_true",
                       help="forget the global memories instead")
    which.add_argument("--all", action="store_true", help="forget every memory of every project")
    clear.add_argument("--yes", "--force", dest="yes", action="store_true",
                       help="do not ask for confirmation")


def _entry_json(service: LocalMemoryService, entry: MemoryEntry) -> dict[str, Any]:
    return {**entry.to_dict(), "stale": service.is_stale(entry)}


def _line(service: LocalMemoryService, entry: MemoryEntry) -> str:
    marks = []
    if service.is_stale(entry):
        marks.append("possibly stale")
    if entry.verification != "verified":
        marks.append(f"{entry.source}, unverified")
    mark = f" [{'; '.join(marks)}]" if marks else ""
    where = entry.effective_scope if entry.is_global or entry.project in stored_project_forms(service.project_root) \
        else f"project {entry.project}"
    return printable(f"{entry.id}  {where}  written {entry.created_at[:10]}  "
                  f"verified {entry.last_verified_at[:10]}{mark}\n    {entry.content}")


def explain_parts(item: Any) -> dict[str, Any]:
    """Why a memory was or was not chosen: its keyword, vector and time parts."""
    return {"shown": item.shown, "relevance": round(item.relevance, 4),
            "keyword": round(item.keyword, 4), "matched": list(item.matched),
            "coverage": round(item.coverage, 3), "vector": round(item.vector, 4),
            "cosine": round(item.cosine, 4), "margin": round(item.margin, 2),
            "reading": item.reading, "english_cosine": round(item.english_cosine, 4),
            "english_margin": round(item.english_margin, 2),
            "english_reading": item.english_reading,
            "time_weight": round(item.time, 4), "leaning": item.leaning,
            "pointed": list(item.pointed), "rarity": item.rarity, "why_not": item.why_not}


def _search_json(service: LocalMemoryService, item: Any, explain: bool) -> dict[str, Any]:
    payload = {**_entry_json(service, item.entry), "score": round(item.score, 4)}
    if explain:
        payload["explain"] = explain_parts(item)
    return payload


def _explain_lines(service: LocalMemoryService, item: Any) -> str:
    from ..core.memory.retrieval import describe

    return f"{item.score:.3f}  {_line(service, item.entry)}\n    {describe(item)}"


class _Out:
    def __init__(self, service: LocalMemoryService, as_json: bool) -> None:
        self.service = service
        self.as_json = as_json

    def emit(self, payload: dict[str, Any], text: str, *, error: bool = False) -> None:
        if self.as_json:
            print(json.dumps(payload, ensure_ascii=False))
        else:
            print(text, file=sys.stderr if error else sys.stdout)

    def entries(self, entries: list[MemoryEntry], empty: str) -> None:
        if self.as_json:
            print(json.dumps([_entry_json(self.service, e) for e in entries], ensure_ascii=False))
        else:
            print("\n".join(_line(self.service, e) for e in entries) if entries else empty)


def _save_outcome(out: _Out, result: Any, verb: str) -> int:
    service = out.service
    entry = result.entry
    payload: dict[str, Any] = {"status": result.status, "message": result.message,
                               "entry": _entry_json(service, entry) if entry else None}
    if result.status == "conflict":
        payload["conflicts"] = [_entry_json(service, e) for e in result.conflicts]
        text = "\n".join([
            f"conflict: not {verb}.", "new:", f"    {printable(entry.content) if entry else ''}",
            "existing:", *(_line(service, e) for e in result.conflicts),
            "Replace one (paicli-tui memory replace ID TEXT), keep both (--force), or leave it."])
        out.emit(payload, text, error=True)
        return EXIT_CONFLICT
    if result.status in ("saved", "replaced"):
        out.emit(payload, f"{result.status} {entry.id}")
        return EXIT_OK
    if result.status == "duplicate":
        out.emit(payload, f"already remembered as {entry.id} (verification refreshed)")
        return EXIT_OK
    payload["sensitive"] = bool(getattr(result, "sensitive", False))
    out.emit(payload, f"paicli-tui memory: {result.message}", error=True)
    return EXIT_ERROR if result.status == "not_found" else EXIT_USAGE


def _fail(as_json: bool, message: str, status: str = "error") -> None:
    """An error: a JSON object on stdout with ``--json`` (scripts read one stream), else a
    line on stderr."""
    if as_json:
        print(json.dumps({"status": status, "message": message}, ensure_ascii=False))
    else:
        print(f"paicli-tui memory: {message}", file=sys.stderr)


def _clear(out: _Out, args: argparse.Namespace) -> int:
    service = out.service
    scope = "all" if args.all else "global" if args.is_global else "project"
    entries = service.list_all()
    count = sum(1 for e in entries if scope == "all" or (e.is_global if scope == "global" else
                (not e.is_global and e.project in stored_project_forms(service.project_root))))
    if count and not args.yes:
        what = {"all": "every memory of every project", "global": "the global memories",
                "project": f"the memories of {service.project_root}"}[scope]
        if sys.stdin is None or not sys.stdin.isatty():  # None: stdin closed (<&-)
            _fail(args.json, f"clear would forget {count} ({what}); pass --yes to confirm",
                  "needs_confirmation")
            return EXIT_USAGE
        answer = input(f"Forget {counted(count, 'memory', 'memories')} ({what})? [y/N] "
                       ).strip().lower()
        if answer not in ("y", "yes"):
            out.emit({"status": "cancelled", "removed": 0, "scope": scope}, "nothing cleared")
            return EXIT_OK
    removed = service.clear(scope)
    out.emit({"status": "cleared", "removed": removed, "scope": scope},
             f"forgot {counted(removed, 'memory', 'memories')}")
    return EXIT_OK


def run(args: argparse.Namespace, settings: Settings) -> int:
    from ..core.contracts.asks import ConflictDecision
    from ..core.memory.decision import carry_out
    from ..core.memory.service import LocalMemoryService
    from ..core.memory.store import MemoryFileError

    project = Path(args.project or ".")
    if not project.is_dir():
        _fail(args.json, f"{project} is not a folder")
        return EXIT_USAGE
    keywords_only = getattr(args, "keywords_only", False)
    service = LocalMemoryService(settings, project, use_vectors=not keywords_only)
    out = _Out(service, args.json)
    try:
        if args.action == "list":
            entries = service.list_all() if args.all else service.list_visible()
            out.entries(entries, "no memories yet")
            return EXIT_OK
        if args.action == "search":
            explain = getattr(args, "explain", False)
            if not " ".join(args.query).strip():  # "" would read as "nothing matched"
                _fail(args.json, "the query is empty")
                return EXIT_USAGE
            if args.limit < 1:  # as search --top-k 0: refused, not silently raised to 1
                _fail(args.json, "--limit must be at least 1")
                return EXIT_USAGE
            ranked = service.search(" ".join(args.query), limit=args.limit,
                                    explain=explain)
            if args.json:
                print(json.dumps([_search_json(service, r, explain) for r in ranked],
                                 ensure_ascii=False))
            elif explain:
                print("\n".join(_explain_lines(service, r) for r in ranked)
                      if ranked else "no candidate memories")
            else:
                print("\n".join(f"{r.score:.3f}  {_line(service, r.entry)}" for r in ranked)
                      if ranked else "no matching memories")
            return EXIT_OK
        if args.action == "save":
            text, scope = " ".join(args.text), "global" if args.is_global else "project"
            # --force is the person's "keep both", decided before the conflict is shown
            result = carry_out(service, text, ConflictDecision.KEEP_BOTH, scope=scope,
                               source_file=args.file, allow_sensitive=args.sensitive) \
                if args.force else service.save(text, scope=scope, source_file=args.file,
                                                allow_sensitive=args.sensitive)
            return _save_outcome(out, result, "saved")
        if args.action == "replace":
            return _save_outcome(out, service.replace(args.id, " ".join(args.text),
                                                      allow_sensitive=args.sensitive),
                                 "replaced")
        if args.action in ("delete", "verify"):
            entry = service.delete(args.id) if args.action == "delete" else \
                service.verify(args.id)
            if entry is None:
                out.emit({"status": "not_found", "id": args.id,
                          "message": f"no memory {args.id!r} here"},
                         f"paicli-tui memory: no memory {args.id!r} here", error=True)
                return EXIT_ERROR
            done = "deleted" if args.action == "delete" else "verified"
            out.emit({"status": done, "entry": _entry_json(service, entry)},
                     f"{done} {entry.id}")
            return EXIT_OK
        return _clear(out, args)
    except MemoryFileError as exc:
        _fail(args.json, str(exc))
        return EXIT_ERROR
    finally:  # a file moved aside or entries set aside are said, never silent
        for problem in service.store.take_problems():
            print(f"paicli-tui memory: {problem}", file=sys.stderr)
