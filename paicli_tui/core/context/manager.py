"""The compaction manager (behaviour §6): what runs before every model request.

A readable sequence of tiers, each a pure function plus a report:

1. clearing, when the estimate reaches the clearing trigger;
2. from the compaction trigger: old reasoning, then oversized messages, saved to files;
3. a summary by the model (at most 8 calls, a time limit, a circuit breaker), asked for
   first when ``ask_before_summary`` is on (:mod:`.consent`: "not yet" holds only up to a
   hard limit);
4. when no valid summary can be had: the model-free digest and a transcript file;
5. last resort: clearing every older tool result, then saving the arguments of tool calls
   that ran (largest first) to files; then the pairing guarantee.

Once per approach to the trigger ``Prepared.notes`` carries a warning that a summary is
coming. Whatever happens, the request handed back is within the window, or ``Prepared.overflow``
says why it cannot be and what to do, and nothing is sent. Tier 1 (offload) runs earlier,
when tool results arrive (see :mod:`.offload`).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ...config import Settings
from ..contracts.asks import SummaryConsentCallback
from ..contracts.llm import TextCompleter
from ..messages import Message, Role
from ..plural import counted
from ..tokens import TokenCalibrator, estimate_message, estimate_request, estimate_schema
from .breaker import SummaryBreaker
from .clearing import clear_tool_results
from .consent import ContextNote, SummaryGate
from .fallback import digest_history
from .fastpath import SummaryCache
from .offload import SaveOutput
from .oversized import (
    message_threshold,
    offload_arguments_to_fit,
    offload_old_reasoning,
    offload_oversized,
)
from .pairing import pairing_problems, repair_pairing
from .profile import ContextProfile
from .report import CompactionReport
from .summary import SummaryOptions, apply_summary, find_cut, summarise_history
from .task_state import task_files_block


@dataclass(frozen=True)
class Prepared:
    """The history to send, what was done to it, and its (calibrated) token estimate."""

    messages: list[Message]
    reports: list[CompactionReport]
    estimated_tokens: int
    overflow: str | None = None
    """Set when even the compacted request is above the window: why, and what to do.
    Such a request must not be sent."""
    notes: tuple[ContextNote, ...] = ()
    """How an automatic summary was consented to, and the warning that one is coming."""


NOTHING_TO_GAIN = ("the turns before the last one are already short: a summary of them "
                   "would not be smaller")

class ContextManager:
    """Keeps the history under the profile's triggers; never returns a broken pairing."""

    def __init__(self, settings: Settings, profile: ContextProfile,
                 summarise: TextCompleter | None = None,
                 calibrator: TokenCalibrator | None = None,
                 summary_cache: SummaryCache | None = None,
                 save_output: SaveOutput | None = None,
                 project_root: Path | None = None,
                 ask_consent: SummaryConsentCallback | None = None,
                 redact: Callable[[str], str] | None = None) -> None:
        self.settings = settings
        self.profile = profile
        self.summarise = summarise
        self.calibrator = calibrator or TokenCalibrator()
        self.summary_cache = summary_cache
        self.save_output = save_output
        self.project_root = project_root
        self.redact = redact
        """Masks configured keys in files re-read after a summary (the provider layer's
        redactor, as for tool results); without one they are listed, not re-read."""
        self.breaker = SummaryBreaker()
        self.gate = SummaryGate(settings.ask_before_summary, ask_consent,
                                settings.keep_user_turns)
        self._breaker_restored = False
        self._checked: list[Message] = []
        if self.summary_cache is None and settings.summary_fast_path:
            self.summary_cache = SummaryCache()

    def set_window(self, window: int | None) -> None:
        """Recompute every threshold for a new model's window."""
        self.profile = ContextProfile.for_window(window)

    # -- estimates -----------------------------------------------------------------------
    def estimate(self, messages: Sequence[Message], tool_schemas: Sequence[dict] = ()) -> int:
        """The calibrated token estimate of a request (incremental: memoised per message)."""
        return self.calibrator.adjust(estimate_request(messages, tool_schemas))

    def _calibrated(self, report: CompactionReport, schema_tokens: int) -> CompactionReport:
        # Tiers count messages only; report in the same units as the triggers.
        return replace(report,
                       tokens_before=self.calibrator.adjust(report.tokens_before + schema_tokens),
                       tokens_after=self.calibrator.adjust(report.tokens_after + schema_tokens))

    def _options(self, keep_user_turns: int | None = None, focus: str = "") -> SummaryOptions:
        return SummaryOptions(
            keep_user_turns=keep_user_turns or self.settings.keep_user_turns,
            chunk_chars=self.chunk_chars(),
            partial_chars=self.settings.summary_partial_chars,
            focus=focus,
            timeout_s=self.settings.summary_timeout_s,
            max_tokens=self.profile.summary_reserve,
        )

    def chunk_chars(self) -> int:
        """Characters per summary call: the setting (60,000), lowered for a small window so
        that one chunk of Chinese text (1.5 characters a token) still fits the model."""
        fits = self.profile.compaction_trigger * 3 // 2
        return max(1_000, min(self.settings.summary_chunk_chars, fits))

    @property
    def clearing_trigger(self) -> int:
        """The clearing trigger in force (the setting overrides the window's)."""
        return self.settings.clearing_trigger_tokens or self.profile.clearing_trigger

    @property
    def breaker_growth(self) -> int:
        """New tokens the history must take in before an open breaker allows a summary."""
        return self.profile.compaction_trigger

    def digest_chars(self) -> int:
        return max(1_200, min(6_000, self.profile.compaction_trigger))

    # -- tiers ---------------------------------------------------------------------------
    def _clear(self, messages: list[Message], keep_recent: int | None = None
               ) -> tuple[list[Message], CompactionReport]:
        return clear_tool_results(
            messages, keep_recent=self.settings.clearing_keep_recent if keep_recent is None
            else keep_recent, min_chars=self.settings.clearing_min_chars,
            exclude=self.settings.clearing_exclude_tools)

    async def _summarise(self, messages: list[Message], keep_user_turns: int | None = None,
                         *, allow_fewer_turns: bool = False, focus: str = ""
                         ) -> tuple[list[Message], CompactionReport]:
        options = self._options(keep_user_turns, focus)
        # The background summary was made for the automatic cut; /compact wants its own.
        cached = self._from_cache(messages, options) if keep_user_turns is None else None
        if cached is not None and cached[1].changed:
            return cached
        out, report = await summarise_history(messages, self.summarise, options)
        if report.result == "skipped" and allow_fewer_turns and options.keep_user_turns > 1 \
                and find_cut(messages, options.keep_user_turns) is None:
            # Beyond the reference: one long turn can still overflow; keep just that turn.
            out, report = await summarise_history(messages, self.summarise,
                                                  replace(options, keep_user_turns=1))
        return out, report

    def _from_cache(self, messages: list[Message], options: SummaryOptions
                    ) -> tuple[list[Message], CompactionReport] | None:
        if self.summary_cache is None:
            return None
        ready = self.summary_cache.take(messages)
        if ready is None:
            return None
        cut, summary = ready
        out, report = apply_summary(messages, cut, summary, estimate_request(messages))
        return out, replace(report, detail=report.detail + " (prepared in the background)")

    def _digest(self, messages: list[Message], schema_tokens: int, reason: str,
                keep_user_turns: int | None = None) -> tuple[list[Message], CompactionReport]:
        """The model-free digest, keeping as many user turns as fit under the trigger."""
        wanted = keep_user_turns or self.settings.keep_user_turns
        keep = 1
        for turns in dict.fromkeys((wanted, 1)):
            cut = find_cut(messages, turns)
            if cut is None:
                continue
            tail = estimate_request(messages[cut:]) + schema_tokens + self.digest_chars() // 3
            keep = turns
            if self.calibrator.adjust(tail) < self.profile.compaction_trigger:
                break
        return digest_history(messages, keep, reason=reason, save=self.save_output,
                              max_chars=self.digest_chars())

    async def _shrink(self, history: list[Message], tool_schemas: Sequence[dict],
                      reports: list[CompactionReport], schema_tokens: int) -> list[Message]:
        """Old reasoning, then oversized messages, to files while over the trigger."""
        threshold = message_threshold(self.settings.offload_threshold_chars,
                                      self.profile.compaction_trigger)
        for step in (lambda h: offload_old_reasoning(h, self.save_output),
                     lambda h: offload_oversized(
                         h, self.save_output, threshold=threshold,
                         tool_threshold=max(threshold, self.settings.offload_threshold_chars))):
            if self.estimate(history, tool_schemas) < self.profile.compaction_trigger:
                break
            history, report = step(history)
            if report.changed:
                reports.append(self._calibrated(report, schema_tokens))
        return history

    async def _compact(self, history: list[Message], tool_schemas: Sequence[dict],
                       reports: list[CompactionReport], schema_tokens: int, *,
                       keep_user_turns: int | None = None, focus: str = "",
                       manual: bool = False, force: bool = False,
                       notes: list[ContextNote] | None = None) -> list[Message]:
        """Tiers 3 and 3b: a summary if the model can write one, else the digest.
        ``manual`` (/compact) and ``force`` (the provider refused) run them whatever the
        estimate says; an automatic one asks first when the settings say so."""
        always = manual or force
        history = await self._shrink(history, tool_schemas, reports, schema_tokens)
        tokens = self.estimate(history, tool_schemas)
        if not always and tokens < self.profile.compaction_trigger:
            return history
        if not manual and find_cut(history, 1) is not None:  # never ask about nothing
            allowed, note = await self.gate.decide(tokens, self.profile, force=force)
            if note is not None and notes is not None:
                notes.append(note)
            if not allowed:
                return history
        reason = ""
        if self.summarise is None:
            reason = "no model configured to write a summary"
        elif not manual and not self.breaker.allows(history, self.breaker_growth):
            reason = (f"the last {self.breaker.failures} summaries failed in a row; the model "
                      f"is not asked again until the conversation has grown by "
                      f"{self.breaker_growth:,} tokens "
                      f"({self.breaker.new_tokens(history):,} so far)")
            reports.append(self._calibrated(CompactionReport(
                "summary", False, estimate_request(history), estimate_request(history),
                "not requested: " + reason), schema_tokens))
        else:
            before_summary = history
            history, report = await self._summarise(history, keep_user_turns,
                                                    allow_fewer_turns=not manual, focus=focus)
            if manual and report.no_gain:
                # /compact of a short history: the summary came out no smaller than the
                # turns it would replace; a digest of so little would save next to nothing
                reports.append(self._calibrated(replace(
                    report, outcome="skipped", detail=NOTHING_TO_GAIN), schema_tokens))
                return history
            if report.notable:
                reports.append(self._calibrated(report, schema_tokens))
            if report.changed:
                self.breaker.succeeded()
                return self._with_task_files(before_summary, history, tool_schemas)
            if report.result == "skipped":
                return history  # nothing before the kept turns: a digest cannot help either
            reason = report.detail
        if not always and self.estimate(history, tool_schemas) < self.profile.compaction_trigger:
            return history
        before_digest = history
        history, report = self._digest(history, schema_tokens, reason, keep_user_turns)
        if report.notable:
            reports.append(self._calibrated(report, schema_tokens))
        if report.changed:
            history = self._with_task_files(before_digest, history, tool_schemas)
        return history

    def _with_task_files(self, before: list[Message], after: list[Message],
                         tool_schemas: Sequence[dict]) -> list[Message]:
        """The rebuilt history with the recently used files re-read into its summary
        message, within half of what is left below the trigger."""
        marker_index = next((i for i, m in enumerate(after) if m.id not in
                             {b.id for b in before} and m.meta.get("tier")), None)
        if marker_index is None:
            return after
        kept_ids = {m.id for m in after[marker_index + 2:]}
        summarised = [m for m in before if m.id not in kept_ids]
        room = (self.profile.compaction_trigger - self.estimate(after, tool_schemas)) // 2
        block = task_files_block(summarised, after[marker_index + 2:], self.project_root,
                                 max(0, room), self.redact)
        if not block:
            return after
        marker = after[marker_index]
        out = list(after)
        out[marker_index] = marker.evolve(content=f"{marker.content}\n\n{block}",
                                          id=marker.id)
        return out

    def _note_summary_outcome(self, reports: Sequence[CompactionReport],
                              history: list[Message], schema_tokens: int,
                              out: list[CompactionReport]) -> None:
        """Feed the breaker; when it opens, say so in the reports."""
        failed = any(r.tier == "summary" and r.result == "failed" for r in reports)
        if failed and self.breaker.failed(history):
            tokens = estimate_request(history)
            out.append(self._calibrated(CompactionReport(
                "summary", False, tokens, tokens,
                f"{self.breaker.failures} summaries failed in a row: no summary is requested "
                f"until the conversation has grown by {self.breaker_growth:,} tokens; the "
                f"model-free digest is used meanwhile", outcome="failed"), schema_tokens))

    def _stamp_digest(self, history: list[Message], known: set[str]) -> list[Message]:
        """A digest made now records the breaker's state (for a resumed session)."""
        for index, message in enumerate(history):
            if message.id not in known and message.meta.get("tier") == "digest":
                history = list(history)
                history[index] = message.evolve(meta={**message.meta, **self.breaker.state()},
                                                id=message.id)
        return history

    # -- the pre-request check -----------------------------------------------------------
    async def prepare(self, messages: list[Message], tool_schemas: Sequence[dict] = (),
                      *, force: bool = False) -> Prepared:
        """The history to send now: cleared and/or compacted when over the triggers (or
        when ``force``d after a provider's context-overflow answer), pairing guaranteed,
        and ``overflow`` set if it still cannot fit the window."""
        schema_tokens = sum(estimate_schema(s) for s in tool_schemas)
        history = list(messages)
        if not self._breaker_restored:  # a resumed session keeps its breaker
            self.breaker, self._breaker_restored = SummaryBreaker.from_history(history), True
        reports: list[CompactionReport] = []
        notes: list[ContextNote] = []
        tokens = self.estimate(history, tool_schemas)
        if self.settings.clearing_enabled and (force or tokens >= self.clearing_trigger):
            history, report = self._clear(history)
            reports.append(self._calibrated(report, schema_tokens))
            tokens = self.estimate(history, tool_schemas)
        # the compaction trigger, or the hard limit while the person said "not yet"
        threshold = self.gate.threshold(self.profile, force)
        if force or tokens >= threshold:
            history = await self._compact(history, tool_schemas, reports, schema_tokens,
                                          force=force, notes=notes)
            self._note_summary_outcome(list(reports), history, schema_tokens, reports)
            history = self._stamp_digest(history, {m.id for m in messages})
            tokens = self.estimate(history, tool_schemas)
            threshold = self.gate.threshold(self.profile, force)
        if tokens >= threshold:
            history, tokens = self._last_resort(history, tool_schemas, reports, schema_tokens,
                                                force)
        history = self._ensure_pairing(history)
        if self.summary_cache is not None and self.summarise is not None:
            self.summary_cache.maybe_refresh(history, tokens, self.profile.compaction_trigger,
                                             self.summarise, self._options())
        ahead = self.gate.after_prepare(tokens, self.profile, _made_summary(reports))
        notes.extend([ahead] if ahead is not None else [])
        overflow = self.overflow_reason(history, tool_schemas, tokens)
        return Prepared(history, reports, tokens, overflow, tuple(notes))

    def compacts_next(self, messages: Sequence[Message], tool_schemas: Sequence[dict] = (),
                      *, force: bool = False) -> bool:
        """Whether :meth:`prepare` is expected to summarise (or digest) now: forced, or the
        estimate is at the compaction trigger (the hard limit after "not yet") and there
        are older turns to summarise (a tiny window's system prompt alone can pass it)."""
        if force:
            return True
        return self.estimate(messages, tool_schemas) >= self.gate.threshold(self.profile) \
            and find_cut(messages, 1) is not None

    def _last_resort(self, history: list[Message], tool_schemas: Sequence[dict],
                     reports: list[CompactionReport], schema_tokens: int, force: bool
                     ) -> tuple[list[Message], int]:
        """Still over the trigger after compacting: the kept turns themselves are too big.
        Clear older tool results, sparing only the newest (none once the provider refused),
        excluded tools included; the model can call them again."""
        tokens = self.estimate(history, tool_schemas)
        for keep in (1, 0) if force else (1,):
            history, report = clear_tool_results(history, keep_recent=keep,
                                                 min_chars=self.settings.clearing_min_chars)
            if report.changed:
                reports.append(self._calibrated(
                    replace(report, detail=f"forced (kept tail too big): {report.detail}"),
                    schema_tokens))
                tokens = self.estimate(history, tool_schemas)
            if tokens < self.profile.compaction_trigger:
                break
        if tokens >= self.profile.compaction_trigger:
            # the turn's own tool-call arguments (each below the offload threshold: many
            # files written in one task) are what is left to take off
            over = math.ceil((tokens - self.profile.compaction_trigger)
                             / self.calibrator.factor) + self.profile.compaction_trigger // 10
            history, report = offload_arguments_to_fit(history, self.save_output, over)
            if report.changed:
                reports.append(self._calibrated(
                    replace(report, detail=f"forced (kept tail too big): {report.detail}"),
                    schema_tokens))
                tokens = self.estimate(history, tool_schemas)
        return history, tokens

    def overflow_reason(self, history: Sequence[Message], tool_schemas: Sequence[dict],
                        tokens: int) -> str | None:
        """Why a request of ``tokens`` cannot be sent (None when it fits the window)."""
        window = self.profile.window
        if tokens <= window:
            return None
        fixed = self.calibrator.adjust(
            estimate_request([m for m in history if m.role is Role.SYSTEM], tool_schemas))
        rest = [m for m in history if m.role is not Role.SYSTEM]
        largest = max(rest, key=estimate_message, default=None)
        parts = [f"the system prompt and tool definitions take ~{fixed:,}"]
        if largest is not None:
            parts.append(f"the largest message ({largest.role.value}) ~"
                         f"{self.calibrator.adjust(estimate_message(largest)):,}")
        parts.append(f"{counted(len(rest), 'message')} {'is' if len(rest) == 1 else 'are'} left after "
                     "compacting")
        if fixed >= window:
            advice = ("The window is too small for this set-up: use a model with a larger "
                      "window (or pass its real size with --window).")
        else:
            advice = ("Start afresh with /clear (or a new session), ask for a smaller step, "
                      "or switch to a model with a larger window (/model, --window).")
        return (f"Not sent: the request would need ~{tokens:,} tokens but the window is "
                f"{window:,}, even after compacting ({'; '.join(parts)}). {advice}")

    async def compact_now(self, messages: list[Message], tool_schemas: Sequence[dict] = (),
                          *, focus: str = "") -> Prepared:
        """Manual ``/compact [focus]``: summarise everything but the last user turn (the
        digest if no summary can be had); if there is nothing to summarise, clear old tool
        results instead."""
        schema_tokens = sum(estimate_schema(s) for s in tool_schemas)
        reports: list[CompactionReport] = []
        history = await self._compact(list(messages), tool_schemas, reports, schema_tokens,
                                      keep_user_turns=1, focus=focus, manual=True)
        if not any(r.changed and r.tier in ("summary", "digest") for r in reports):
            if not any(r.notable or r.no_gain for r in reports):
                reports.append(self._calibrated(CompactionReport(
                    "summary", False, estimate_request(history), estimate_request(history),
                    "nothing to summarise before the last turn"), schema_tokens))
            history, cleared = self._clear(history)
            reports.append(self._calibrated(cleared, schema_tokens))
        history = self._ensure_pairing(history)
        tokens = self.estimate(history, tool_schemas)
        if _made_summary(reports):
            self.gate.reset()
        return Prepared(history, reports, tokens,
                        self.overflow_reason(history, tool_schemas, tokens))

    def _ensure_pairing(self, history: list[Message]) -> list[Message]:
        """``history`` if a provider accepts its pairing, else a repaired copy.

        Incremental: when the history starts with exactly the messages (same objects) of
        the last history this check passed, only the new messages are examined. A valid
        history ends with every tool call answered, so the new part stands on its own.
        """
        checked = self._checked
        if checked and len(history) >= len(checked) and all(map(operator.is_, checked,
                                                                history)):
            problems = pairing_problems(history[len(checked):])
        else:
            problems = pairing_problems(history)
        if problems:
            history, _ = repair_pairing(history)
        self._checked = list(history)  # a copy: callers may append to the list we return
        return history

    async def aclose(self) -> None:
        """Stop any background summary work."""
        if self.summary_cache is not None:
            await self.summary_cache.aclose()


def _made_summary(reports: Sequence[CompactionReport]) -> bool:
    """A summary or a digest replaced older turns."""
    return any(r.changed and r.tier in ("summary", "digest") for r in reports)
