"""Automatic fact extraction from the person's own words (behaviour §15).

The model only proposes verbatim quotes; this module decides. Local filters run first (no
model call when they fail); the reply must be exactly ``{"facts":[{"quote": str}, ...]}`` with
at most three items; each quote must appear verbatim in what we sent, outside code fences,
block quotes and quotation marks, in a sentence that is neither a question, nor about the
current moment, nor passing on someone else's claim, with nothing sensitive in it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from ...resources import load_prompt
from ..contracts.llm import TextCompleter
from .lexicon import (
    has_fact_cue,
    is_question,
    is_reported,
    is_temporary,
    mentions_sensitive,
)
from .textspans import (
    Sentence,
    blockquote_mask,
    fenced_mask,
    quoted_regions,
    split_sentences,
    without_regions,
)

log = logging.getLogger(__name__)

MIN_INPUT_CHARS = 5
MAX_INPUT_CHARS = 4_000
MIN_QUOTE_CHARS = 5
MAX_QUOTE_CHARS = 180
MAX_FACTS = 3
PROMPT_NAME = "extract_facts"


@dataclass
class Extraction:
    """What one extraction did: accepted quotes, whether the model was asked, and why any
    quote (or the whole batch) was turned down."""

    quotes: list[str] = field(default_factory=list)
    called_model: bool = False
    skipped: str | None = None
    """Why no model call was made (a local filter), else None."""
    rejected: list[tuple[str, str]] = field(default_factory=list)
    """(quote or '<batch>', reason) pairs."""


@dataclass(frozen=True)
class FilteredInput:
    text: str
    """The input with every sensitive sentence removed (what the model sees)."""
    sentences: list[Sentence]
    fenced: list[bool]
    blockquoted: list[bool]
    quoted: list[tuple[int, int]]

    @classmethod
    def of(cls, text: str) -> FilteredInput:
        return cls(text, split_sentences(text), fenced_mask(text), blockquote_mask(text),
                   quoted_regions(text))

    def sentences_over(self, start: int, end: int) -> list[Sentence]:
        return [s for s in self.sentences if s.start < end and start < s.end]

    def _own_words(self, sentence: Sentence) -> bool:
        """Not code, not a quoted message, not blank."""
        span = range(sentence.start, sentence.end)
        inside_code = any(self.fenced[sentence.start:sentence.end]) and all(
            self.fenced[i] or self.text[i].isspace() for i in span)
        quoted_line = all(self.blockquoted[i] or self.text[i].isspace() for i in span)
        return not (inside_code or quoted_line)

    def _eligible(self, sentence: Sentence) -> bool:
        return self._own_words(sentence) and not (
            is_question(sentence.text, sentence.terminator) or is_temporary(sentence.text)
            or is_reported(sentence.text))

    def worth_asking(self) -> bool:
        """True when some sentence could hold a fact (the person's own words, not a question,
        not about the moment, not someone else's claim) and the person's own words carry a
        durable-fact cue outside quotation marks. The cue may sit in a neighbouring sentence:
        in "为什么我们这样做？数据库是 MySQL 8.0。" the question holds the cue, the fact none."""
        if not any(self._eligible(s) for s in self.sentences):
            return False
        unquoted = without_regions(self.text, self.quoted)
        return any(self._own_words(s) and has_fact_cue(unquoted[s.start:s.end])
                   for s in self.sentences)


def drop_sensitive_sentences(text: str) -> str:
    """``text`` without the sentences that mention a credential or personal identifier; a
    dropped sentence that ended a line leaves its newline so line structure is kept."""
    kept = []
    for sentence in split_sentences(text):
        if mentions_sensitive(sentence.text):
            if sentence.terminator == "\n":
                kept.append("\n")
            continue
        kept.append(sentence.text)
    return "".join(kept)


def prefilter(user_input: str) -> tuple[FilteredInput | None, str | None]:
    """The filtered input worth a model call, or (None, reason) when a local filter fails."""
    stripped = user_input.strip()
    if len(stripped) < MIN_INPUT_CHARS:
        return None, "too short"
    if len(stripped) > MAX_INPUT_CHARS:
        return None, "too long"
    filtered = drop_sensitive_sentences(user_input).strip()
    if not filtered:
        return None, "only sensitive content"
    if not has_fact_cue(filtered):
        return None, "no durable-fact cue"
    candidate = FilteredInput.of(filtered)
    if not candidate.worth_asking():
        return None, "no sentence that could state a durable fact"
    return candidate, None


class _DuplicateKey(ValueError):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise _DuplicateKey("duplicate key")
    return dict(pairs)


_FENCED_REPLY = re.compile(r"^```(?:json)?[ \t]*\n(.*)\n```$", re.DOTALL)


def parse_reply(reply: str) -> list[str] | None:
    """The quotes in a reply of exactly ``{"facts":[{"quote": str}, ...]}`` (≤ 3 items), or
    None when anything else is there: an unknown key anywhere, a non-string quote, too many
    items, not JSON. A single surrounding ```json fence is tolerated."""
    text = reply.strip()
    fenced = _FENCED_REPLY.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or set(data) != {"facts"}:
        return None
    facts = data["facts"]
    if not isinstance(facts, list) or len(facts) > MAX_FACTS:
        return None
    quotes = []
    for item in facts:
        if not isinstance(item, dict) or set(item) != {"quote"}:
            return None
        if not isinstance(item["quote"], str):
            return None
        quotes.append(item["quote"])
    return quotes


def check_quote(quote: str, source: FilteredInput) -> str | None:
    """None when the quote is acceptable, else the reason it is not."""
    if not MIN_QUOTE_CHARS <= len(quote.strip()) <= MAX_QUOTE_CHARS:
        return "length"
    if "\n" in quote or "\r" in quote:
        return "not a single line"
    if mentions_sensitive(quote):
        return "sensitive"
    if quote not in source.text:
        return "not verbatim"
    reasons = []
    start = source.text.find(quote)
    while start >= 0:  # any clean occurrence will do
        reason = _check_occurrence(source, start, start + len(quote))
        if reason is None:
            return None
        reasons.append(reason)
        start = source.text.find(quote, start + 1)
    return reasons[0]


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _cuts_a_word(text: str, start: int, end: int) -> bool:
    """The span begins or ends inside a Latin word or number ("e use pnpm", "Python 3.1" of
    "Python 3.12"): a fragment, not what the person wrote."""
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    return (_latin(before) and _latin(text[start])) or (_latin(text[end - 1]) and _latin(after))


# A quote that begins right after a negation says the opposite of the person: "use Java 8"
# out of "we no longer use Java 8", "使用 Lombok" out of "禁止使用 Lombok".
_NEGATED_BEFORE = re.compile(
    r"(?:(?<![A-Za-z])(?:not|no\s+longer|never|(?:do|does|did|wo|ca)n['’]t|cannot|stop"
    r"|stopped|no)\s+|[不没勿]|(?<![特区差告分级类性])别|不再|不要|禁止|停止|放弃|不准|不许)\s*$",
    re.IGNORECASE)


def _check_occurrence(source: FilteredInput, start: int, end: int) -> str | None:
    if _cuts_a_word(source.text, start, end):
        return "cuts a word"
    if _NEGATED_BEFORE.search(source.text, max(0, start - 12), start):
        return "cut off its negation"
    if any(source.fenced[start:end]):
        return "inside a code fence"
    if any(source.blockquoted[start:end]):
        return "inside a block quote"
    if any(a <= start and end <= b for a, b in source.quoted):
        return "inside quotation marks"
    for sentence in source.sentences_over(start, end):
        if is_question(sentence.text, sentence.terminator):
            return "a question"
        if is_temporary(sentence.text):
            return "temporary state"
        if is_reported(sentence.text):
            return "someone else's claim"
        if mentions_sensitive(sentence.text):
            return "sensitive"
    return None


def check_reply(reply: str, source: FilteredInput) -> Extraction:
    """Apply every code check to a model reply (the model's answer is never trusted)."""
    result = Extraction(called_model=True)
    quotes = parse_reply(reply)
    if quotes is None:
        result.rejected.append(("<batch>", "reply is not exactly {\"facts\":[{\"quote\":…}]}"))
        return result
    for quote in quotes:
        reason = check_quote(quote, source)
        if reason:
            result.rejected.append((quote, reason))
        elif quote.strip() not in result.quotes:
            result.quotes.append(quote.strip())
    return result


EXTRACTION_TIMEOUT_S = 60.0
"""Longest the light model may take over its answer (a few hundred characters). Without it a
model that never finished held the extraction for the stream's 30-minute cap, and
``paicli-tui exec`` waited for it after printing its answer."""


async def extract_facts(user_input: str, complete: TextCompleter, *,
                        timeout_s: float = EXTRACTION_TIMEOUT_S) -> Extraction:
    """Ask the light model for durable facts in ``user_input`` and keep only the quotes that
    pass every check. Model errors, and an answer slower than ``timeout_s``, are logged and
    yield no facts."""
    source, reason = prefilter(user_input)
    if source is None:
        return Extraction(skipped=reason)
    try:
        # asyncio.timeout, not wait_for: on 3.11 wait_for drops a cancel that arrives with
        # the answer (see core/llm/openai_client.next_within)
        async with asyncio.timeout(timeout_s):
            reply = await complete(load_prompt(PROMPT_NAME), source.text)
    except TimeoutError:
        log.warning("fact extraction: the model did not answer within %g s", timeout_s)
        return Extraction(called_model=True, rejected=[("<batch>", "model timed out")])
    except Exception as exc:  # the turn already finished; extraction must never break it
        log.warning("fact extraction failed: %s", type(exc).__name__)
        return Extraction(called_model=True, rejected=[("<batch>", "model error")])
    return check_reply(reply, source)
