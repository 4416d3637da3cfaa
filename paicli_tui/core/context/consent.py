"""Before an automatic summary: warn once that one is coming, and (setting
``ask_before_summary``) ask the person first.

The warning comes once per approach to the compaction trigger: when the request just
prepared, plus what the last step added (at least a tenth of the trigger), reaches the
trigger. It comes again only after a summary or digest was made, or after the history fell
back under the clearing trigger (``/clear``).

Asking never lets the window overflow: "not yet" holds only up to the hard limit (the
trigger plus half the safety buffer; the room reserved for the reply stays free). From there, and
whenever nobody can answer (headless ``exec``, a sub-agent) or the provider refused a
request as too long, the summary is made without asking, and a note says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..contracts.asks import SummaryConsent, SummaryConsentCallback, SummaryConsentRequest
from .profile import ContextProfile

WARN_SHARE = 10
"""The warning comes at the latest at (100 − 100/WARN_SHARE)% = 90% of the trigger."""

Answer = Literal["now", "not_yet", "not_asked", "hard_limit", "forced"]
"""``now`` / ``not_yet``: the person's answer. ``not_asked``: nobody can answer here.
``hard_limit``: "not yet" ran out. ``forced``: the provider refused the request as too
long."""


def hard_limit(profile: ContextProfile) -> int:
    """Where "not yet" ends: the compaction trigger plus half the buffer, never into the
    room reserved for the reply (a tiny window's trigger is already there: no extra)."""
    room = profile.window - profile.summary_reserve
    return max(profile.compaction_trigger,
               min(profile.compaction_trigger + profile.buffer // 2, room))


def summary_ahead(tokens: int, previous: int | None, trigger: int) -> bool:
    """True when the next request is expected to reach ``trigger``: ``tokens`` (this
    request) plus the last step's growth, or a tenth of the trigger if that is more."""
    if tokens >= trigger:
        return False  # the summary is not ahead: it is being made (or postponed) now
    growth = tokens - previous if previous is not None else 0
    return tokens + max(growth, trigger // WARN_SHARE) >= trigger


@dataclass(frozen=True)
class ContextNote:
    """Something about a coming summary the person should hear (an event and a ledger
    record), beside the tiers' reports."""

    kind: Literal["summary_ahead", "summary_consent"]
    tokens: int
    compaction_trigger: int
    hard_limit: int
    detail: str
    answer: Answer | None = None
    """For ``summary_consent``: how it was decided."""

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "tokens": self.tokens,
                "compaction_trigger": self.compaction_trigger,
                "hard_limit": self.hard_limit, "detail": self.detail, "answer": self.answer}


class SummaryGate:
    """The warning's and the consent's state for one session's history."""

    def __init__(self, ask_enabled: bool, ask: SummaryConsentCallback | None = None,
                 keep_user_turns: int = 3) -> None:
        self.ask_enabled = ask_enabled
        self.ask = ask
        self.keep_user_turns = keep_user_turns
        self.warned = False
        self.postponed = False
        """The person said "not yet": no summary below the hard limit."""
        self._previous: int | None = None

    def threshold(self, profile: ContextProfile, force: bool = False) -> int:
        """From how many tokens the summary tiers (and the last resort) run now."""
        if self.postponed and not force:
            return hard_limit(profile)
        return profile.compaction_trigger

    def reset(self) -> None:
        """A summary or digest was made (or the history was cleared): start afresh."""
        self.warned = self.postponed = False
        self._previous = None

    def after_prepare(self, tokens: int, profile: ContextProfile, compacted: bool
                      ) -> ContextNote | None:
        """Called once per prepared request; the warning, the first time it is due."""
        if compacted or tokens < profile.clearing_trigger:
            self.reset()
        previous, self._previous = self._previous, tokens
        if self.warned or not summary_ahead(tokens, previous, profile.compaction_trigger):
            return None
        self.warned = True
        trigger, limit = profile.compaction_trigger, hard_limit(profile)
        ask = (" You will be asked first (ask_before_summary)." if self.ask_enabled
               and self.ask is not None else "")
        return ContextNote(
            "summary_ahead", tokens, trigger, limit,
            f"The conversation is at {tokens:,} of {trigger:,} tokens: one of the next "
            f"requests will summarise the older turns (the last {self.keep_user_turns} "
            f"stay word for word).{ask}")

    async def decide(self, tokens: int, profile: ContextProfile, *, force: bool
                     ) -> tuple[bool, ContextNote | None]:
        """Whether the automatic summary may run now, and the note saying how that was
        decided (None when asking is off or nothing new was decided)."""
        if not self.ask_enabled:
            return True, None
        trigger, limit = profile.compaction_trigger, hard_limit(profile)

        def note(answer: Answer, detail: str) -> ContextNote:
            return ContextNote("summary_consent", tokens, trigger, limit, detail, answer)

        if force:
            return True, note("forced", "The provider refused the request as too long: "
                                        "summarising without asking.")
        if self.postponed:
            if tokens < limit:
                return False, None
            self.postponed = False
            return True, note("hard_limit", f"Summarising without asking: the conversation "
                                            f"reached the hard limit of {limit:,} tokens "
                                            f"after 'not yet'.")
        if self.ask is None:
            return True, note("not_asked", "ask_before_summary is on, but nobody can answer "
                                           "here (a headless run or a sub-agent): "
                                           "summarising without asking.")
        if tokens >= limit:
            return True, note("hard_limit", f"Summarising without asking: the request is "
                                            f"already past the hard limit of {limit:,} "
                                            f"tokens.")
        try:
            answer = await self.ask(SummaryConsentRequest(
                tokens, trigger, limit, profile.window, self.keep_user_turns))
        except Exception as exc:  # noqa: BLE001 - a broken dialog must not stop the turn
            return True, note("not_asked", f"The question could not be shown ({exc}): "
                                           "summarising without asking.")
        if answer == SummaryConsent.NOT_YET:
            self.postponed = True
            return False, note("not_yet", f"Not yet: no summary until {limit:,} tokens; "
                                          f"there the older turns are summarised without "
                                          f"asking. /compact summarises whenever you want.")
        return True, note("now", "You chose to summarise now.")
