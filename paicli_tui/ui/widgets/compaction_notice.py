"""A compaction notice in the chat: tier, tokens before → after, summary expandable."""

from __future__ import annotations

from textual.widgets import Collapsible, Markdown, Static

from ..format import fmt_tokens, token_change

TIER_LABELS = {
    "offload": "Large content saved to a file",  # a tool's output, a reply, reasoning
    "clearing": "Old tool results cleared",
    "summary": "Older turns summarised",
    "digest": "Older turns digested, no summary",
}
FAILED_LABELS = {
    "summary": "Summary failed",
    "digest": "Digest failed",
}




def restored_title(tier: str) -> str:
    """The title of a summary found in a reopened session's view: its token counts are the
    ledger's, not the view's (shown as "0 → 0 tokens" they read as a summary of nothing)."""
    label = TIER_LABELS.get(tier, TIER_LABELS["summary"])
    return f"⇣ {label} before this session was reopened"


class CompactionNotice(Collapsible):
    """Folded by default; opening it shows the summary (or the detail line). A failure is
    open from the start: its reason, wrapped, matters more than a one-line title can hold."""

    def __init__(self, tier: str, tokens_before: int | None, tokens_after: int | None,
                 detail: str = "", summary: str | None = None, failed: bool = False) -> None:
        """``tokens_before`` None: a summary restored with its session (no counts known)."""
        self.tier = tier
        self.summary = summary
        self.detail = detail
        if tokens_before is None or tokens_after is None:
            title = restored_title(tier)
        elif failed:
            label = FAILED_LABELS.get(tier, f"Compaction failed ({tier})")
            title = f"⚠ {label} at {fmt_tokens(tokens_before)} tokens"
        else:
            label = TIER_LABELS.get(tier, f"Context compacted ({tier})")
            title = f"⇣ {label}: {token_change(tokens_before, tokens_after)} tokens"
        children = []
        if detail:
            children.append(Static(detail, markup=False, classes="compaction-detail"))
        if summary:
            children.append(Markdown(summary, classes="compaction-summary"))
        super().__init__(*children, title=title, collapsed=not failed,
                         classes=f"compaction-notice tier-{tier}"
                                 + (" compaction-failed" if failed else ""))
