"""The compaction manager (SPEC §6): what runs before every model request.

A readable sequence of tiers: clearing when the estimate reaches the clearing trigger, a
summary when it is still at the compaction trigger, and a final pairing guarantee. Tier 1
(offload) runs earlier, when tool results arrive (see :mod:`.offload`).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...config import Settings
from ..contracts.llm import TextCompleter
from ..messages import Message
from ..tokens import TokenCalibrator, estimate_request, estimate_schema
from .clearing import clear_tool_results
from .fastpath import SummaryCache
from .pairing import pairing_problems, repair_pairing
from .profile import ContextProfile
from .report import CompactionReport
from .summary import SummaryOptions, apply_summary, find_cut, summarise_history


@dataclass(frozen=True)
class Prepared:
    """The history to send, what was done to it, and its (calibrated) token estimate."""

    messages: list[Message]
    reports: list[CompactionReport]
    estimated_tokens: int


class ContextManager:
    """Keeps the history under the profile's triggers; never returns a broken pairing."""

    def __init__(self, settings: Settings, profile: ContextProfile,
                 summarise: TextCompleter | None = None,
                 calibrator: TokenCalibrator | None = None,
                 summary_cache: SummaryCache | None = None) -> None:
        self.settings = settings
        self.profile = profile
        self.summarise = summarise
        self.calibrator = calibrator or TokenCalibrator()
        self.summary_cache = summary_cache
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

    def _options(self, keep_user_turns: int | None = None) -> SummaryOptions:
        return SummaryOptions(
            keep_user_turns=keep_user_turns or self.settings.keep_user_turns,
            chunk_chars=self.chunk_chars(),
            partial_chars=self.settings.summary_partial_chars,
        )

    def chunk_chars(self) -> int:
        """Characters per summary call: the setting (60,000), lowered for a small window so
        that one chunk of Chinese text (1.5 characters a token) still fits the model."""
        fits = self.profile.compaction_trigger * 3 // 2
        return max(1_000, min(self.settings.summary_chunk_chars, fits))

    # -- tiers ---------------------------------------------------------------------------
    def _clear(self, messages: list[Message]) -> tuple[list[Message], CompactionReport]:
        return clear_tool_results(messages, keep_recent=self.settings.clearing_keep_recent,
                                  min_chars=self.settings.clearing_min_chars)

    async def _summarise(self, messages: list[Message], keep_user_turns: int | None = None,
                         *, allow_fewer_turns: bool = False
                         ) -> tuple[list[Message], CompactionReport]:
        options = self._options(keep_user_turns)
        # The background summary was made for the automatic cut; /compact wants its own.
        cached = self._from_cache(messages, options) if keep_user_turns is None else None
        if cached is not None and cached[1].changed:
            return cached
        out, report = await summarise_history(messages, self.summarise, options)
        if not report.changed and allow_fewer_turns and options.keep_user_turns > 1 \
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

    # -- the pre-request check -----------------------------------------------------------
    async def prepare(self, messages: list[Message], tool_schemas: Sequence[dict] = (),
                      *, force: bool = False) -> Prepared:
        """The history to send now: cleared and/or summarised when over the triggers (or
        when ``force``d after a provider's context-overflow answer), pairing guaranteed."""
        schema_tokens = sum(estimate_schema(s) for s in tool_schemas)
        history = list(messages)
        reports: list[CompactionReport] = []
        tokens = self.estimate(history, tool_schemas)
        if force or tokens >= self.profile.clearing_trigger:
            history, report = self._clear(history)
            reports.append(self._calibrated(report, schema_tokens))
            tokens = self.estimate(history, tool_schemas)
        if force or tokens >= self.profile.compaction_trigger:
            history, report = await self._summarise(history, allow_fewer_turns=True)
            reports.append(self._calibrated(report, schema_tokens))
            tokens = self.estimate(history, tool_schemas)
        if force and tokens >= self.profile.compaction_trigger:
            # The provider already refused this history once: spare only the newest result.
            history, report = clear_tool_results(history, keep_recent=1,
                                                 min_chars=self.settings.clearing_min_chars)
            if report.changed:
                reports.append(self._calibrated(
                    replace(report, detail="forced: " + report.detail), schema_tokens))
                tokens = self.estimate(history, tool_schemas)
        history = self._ensure_pairing(history)
        if self.summary_cache is not None and self.summarise is not None:
            self.summary_cache.maybe_refresh(history, tokens, self.profile.compaction_trigger,
                                             self.summarise, self._options())
        return Prepared(history, reports, tokens)

    async def compact_now(self, messages: list[Message], tool_schemas: Sequence[dict] = ()
                          ) -> Prepared:
        """Manual ``/compact``: summarise everything but the last user turn; if no summary
        can be made, clear old tool results instead."""
        schema_tokens = sum(estimate_schema(s) for s in tool_schemas)
        history, report = await self._summarise(list(messages), keep_user_turns=1)
        reports = [self._calibrated(report, schema_tokens)]
        if not report.changed:
            history, cleared = self._clear(history)
            reports.append(self._calibrated(cleared, schema_tokens))
        history = self._ensure_pairing(history)
        return Prepared(history, reports, self.estimate(history, tool_schemas))

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
