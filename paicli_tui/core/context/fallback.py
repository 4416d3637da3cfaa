"""Tier 3b — the model-free digest (beyond the reference): compaction that always works.

Used when no valid summary can be had and the history is still over the compaction trigger.
The part before the cut is written whole to a transcript file (``NNN-transcript.txt`` beside
the saved tool outputs) and replaced by :func:`.digest.build_digest`'s four sections; the
kept tail stays unchanged, so pairing holds exactly as for a summary, and the view before it
can be restored from the ledger like any other compaction.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..messages import Message, Role
from ..plural import counted
from ..tokens import estimate_request
from .digest import build_digest
from .offload import SaveOutput
from .report import CompactionReport
from .summary import find_cut, rebuild, render_entries

TRANSCRIPT_HEADER = ("Transcript of the conversation part replaced by a model-free digest. "
                     "Labels: USER (the person), ASSISTANT, TOOL_CALL[id] name: arguments, "
                     "TOOL[id] (a tool's result), PREVIOUS SUMMARY.\n\n")


def _save_transcript(head: Sequence[Message], save: SaveOutput | None
                     ) -> tuple[str | None, str | None]:
    if save is None:
        return None, "no place to save it"
    try:
        return save("transcript", TRANSCRIPT_HEADER + "".join(render_entries(head))), None
    except OSError as exc:
        return None, exc.strerror or type(exc).__name__


def digest_history(messages: Sequence[Message], keep_user_turns: int, *, reason: str,
                   save: SaveOutput | None, max_chars: int = 6_000
                   ) -> tuple[list[Message], CompactionReport]:
    """The history with everything before the cut replaced by a digest (and saved to a
    transcript file), or unchanged with a report saying why not."""
    original = list(messages)
    before = estimate_request(original)
    cut = find_cut(original, keep_user_turns)
    if cut is None:
        return original, CompactionReport(
            "digest", False, before, before,
            f"fewer than {keep_user_turns + 1} user turns: nothing to digest")
    head = original[:cut]
    path, error = _save_transcript(head, save)
    digest = build_digest(head, reason=reason, transcript=path, transcript_error=error,
                          max_chars=max_chars)
    rebuilt = rebuild(original, cut, digest, tier="digest")
    after = estimate_request(rebuilt)
    if after >= before:
        return original, CompactionReport(
            "digest", False, before, before,
            f"digest not smaller ({after:,} >= {before:,} tokens)", outcome="failed", path=path,
            no_gain=True)
    dropped = cut - sum(1 for m in head if m.role is Role.SYSTEM)
    where = f"transcript saved in {path}" if path else f"transcript not saved ({error})"
    return rebuilt, CompactionReport(
        "digest", True, before, after,
        f"model-free digest of {counted(dropped, 'message')}, kept the last "
        f"{counted(len(original) - cut, 'message')}; "
        f"{where}. Why no summary: {reason}", summary=digest, path=path)
