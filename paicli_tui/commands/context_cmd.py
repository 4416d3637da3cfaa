"""``paicli-tui context``: the context thresholds for a model's window (behaviour §2)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..config import Settings
from ..core.plural import counted
from .conventions import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    add_project_flag,
    add_provider_flags,
    fail,
    resolve_session,
)

HELP = ("Show the context thresholds for a model's window: when old tool results are "
        "cleared, when old turns are summarised, how much long-term memory is injected.")


def configure(parser: argparse.ArgumentParser) -> None:
    add_project_flag(parser)  # accepted like everywhere (its config applies, it must exist)
    add_provider_flags(parser)
    parser.add_argument("--session", metavar="ID",
                        help="also estimate the tokens of a saved session's current view")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _window(settings: Settings) -> tuple[int, str, str | None, str | None]:
    """(window, where it came from, provider, model), chosen as a session would choose."""
    from ..core.llm.registry import chosen_model

    spec, model, window, source = chosen_model(settings)
    return window, source, spec.name if spec else None, model


def _session_figures(settings: Settings, session_id: str) -> dict[str, Any]:
    from ..core.context.ledger import SessionLedger
    from ..core.tokens import estimate_request

    restored = SessionLedger.open(settings.home, session_id).restore()
    return {"session": session_id, "messages": len(restored.messages),
            "estimated_tokens": estimate_request(restored.messages),
            "warnings": restored.warnings}


_ROWS = (
    ("window", "window", ""),
    ("effective_window", "effective window", "max(8,000, window)"),
    ("summary_reserve", "summary reserve", "kept free for the summary"),
    ("buffer", "buffer", "safety margin"),
    ("compaction_trigger", "compaction trigger", "old turns are summarised from here"),
    ("clearing_trigger", "clearing trigger", "old tool results are cleared from here"),
    ("memory_budget", "memory budget", "tokens of long-term memory per turn"),
)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from ..core.context.ledger import LedgerError
    from ..core.context.profile import ContextProfile
    from ..core.contracts.llm import LLMError

    unknown = None
    if args.session:  # a unique start of an id names that session
        args.session, unknown = resolve_session(settings.home.history_raw_dir, args.session)
    if unknown:  # a mistyped id is a usage error, as for exec --resume
        return fail("context", args.json, unknown, EXIT_USAGE)
    try:
        window, source, provider, model = _window(settings)
        profile = ContextProfile.for_window(window)
        session = _session_figures(settings, args.session) if args.session else None
    except (LLMError, ValueError) as exc:
        return fail("context", args.json, str(exc), EXIT_USAGE)
    except LedgerError as exc:
        return fail("context", args.json, str(exc), EXIT_ERROR)
    if args.json:
        out: dict[str, Any] = {"provider": provider, "model": model, "window_source": source,
                               **profile.as_dict()}
        if session is not None:
            out["session"] = session
        print(json.dumps(out, ensure_ascii=False))
        return EXIT_OK
    who = " / ".join(x for x in (provider, model) if x) or "no model configured"
    print(f"Context profile for {who} (window from {source})")
    values = profile.as_dict()
    for key, label, note in _ROWS:
        line = f"  {label:<20}{values[key]:>11,}"
        print(f"{line}   {note}" if note else line)
    if session is not None:
        print(f"\nSession {session['session']}: {counted(session['messages'], 'message')}, "
              f"~{session['estimated_tokens']:,} tokens estimated")
        for warning in session["warnings"]:
            print(f"  warning: {warning}")
    return EXIT_OK
